/** The contracts area's route components (lazy, one chunk): they read params and search. */
import { useParams, useSearch } from '@tanstack/react-router';
import { ContractDetailPage, ContractEditPage, ContractNewPage } from './ContractDetail';
import { validateContractsSearch } from '../../adminSearch';
import { ContractsPage } from './ContractsPage';

export function ContractsRoute() {
  const search = useSearch({ strict: false });
  return <ContractsPage search={validateContractsSearch(search)} />;
}

export function ContractRoute() {
  const { contractId } = useParams({ strict: false });
  return <ContractDetailPage key={contractId} contractId={contractId ?? ''} />;
}

export function ContractEditRoute() {
  const { contractId } = useParams({ strict: false });
  return <ContractEditPage key={contractId} contractId={contractId ?? ''} />;
}

export function ContractNewRoute() {
  return <ContractNewPage />;
}
