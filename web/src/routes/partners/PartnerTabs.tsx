/**
 * The records of a partner, each tab one list of the API filtered by the partner: invoices
 * (`GET /v1/documents?partnerId=`), payments (`GET /v1/payments?partnerId=`), contracts
 * (`GET /v1/contracts?partnerId=`) and notes and reminders (`GET /v1/notes?parentId=`). Each
 * loads a page and more on demand (keyset cursor), as the API answers it.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { LoadingOrError } from '../../components/LoadingOrError';
import { useFormats } from '../../api/account';
import { unwrapPage } from './pages';

type Schemas = components['schemas'];
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const LIMIT = 25;

function usePaged<T>(queryKey: readonly unknown[], load: (cursor?: string) => Promise<Page<T>>) {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

function PagedTable<T>({
  query,
  caption,
  empty,
  head,
  row,
}: {
  query: ReturnType<typeof usePaged<T>>;
  caption: string;
  empty: string;
  head: ReactNode;
  row: (item: T) => ReactNode;
}) {
  const { t } = useTranslation();
  if (query.data === undefined) {
    return <LoadingOrError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const items = query.data.pages.flatMap((page) => page.data);
  if (items.length === 0) return <p className="muted">{empty}</p>;
  return (
    <>
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>{head}</thead>
        <tbody>{items.map(row)}</tbody>
      </table>
      {query.hasNextPage ? (
        <div className="pager">
          <button
            type="button"
            className="button"
            disabled={query.isFetchingNextPage}
            onClick={() => void query.fetchNextPage()}
          >
            {t('partners.loadMore')}
          </button>
        </div>
      ) : null}
    </>
  );
}

export function InvoicesTab({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const query = usePaged(keys.invoices.list({ partnerId }), async (cursor) =>
    unwrapPage(
      await api.GET('/v1/documents', {
        params: { query: { partnerId, documentType: 'INVOICE', cursor, limit: LIMIT } },
      }),
    ),
  );
  const state = (doc: Schemas['Document']) => {
    if (doc.status === 'DRAFT') return t('partners.invoice.draft');
    if (doc.cancelledByDocumentId !== null) return t('partners.invoice.cancelled');
    if (doc.overdue) return t('partners.invoice.overdue');
    return t(`partners.invoice.${doc.paymentStatus ?? 'UNPAID'}`);
  };
  return (
    <PagedTable
      query={query}
      caption={t('partners.tabs.invoices')}
      empty={t('partners.invoice.empty')}
      head={
        <tr>
          <th scope="col">{t('partners.invoice.number')}</th>
          <th scope="col">{t('partners.invoice.name')}</th>
          <th scope="col">{t('partners.invoice.date')}</th>
          <th scope="col">{t('partners.invoice.due')}</th>
          <th scope="col" className="num">
            {t('partners.invoice.gross')}
          </th>
          <th scope="col">{t('partners.invoice.state')}</th>
        </tr>
      }
      row={(doc) => (
        <tr key={doc.id}>
          <th scope="row">{doc.documentNumber ?? t('partners.invoice.noNumber')}</th>
          <td>{doc.name}</td>
          <td>{formats.date(doc.creationDate)}</td>
          <td>{doc.dueDate === null ? '' : formats.date(doc.dueDate)}</td>
          <td className="num">{formats.money(doc.grossTotal, doc.currency)}</td>
          <td>{state(doc)}</td>
        </tr>
      )}
    />
  );
}

export function PaymentsTab({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const query = usePaged(keys.payments.list({ partnerId }), async (cursor) =>
    unwrapPage(
      await api.GET('/v1/payments', { params: { query: { partnerId, cursor, limit: LIMIT } } }),
    ),
  );
  return (
    <PagedTable
      query={query}
      caption={t('partners.tabs.payments')}
      empty={t('partners.payment.empty')}
      head={
        <tr>
          <th scope="col">{t('partners.payment.date')}</th>
          <th scope="col">{t('partners.payment.direction')}</th>
          <th scope="col">{t('partners.payment.document')}</th>
          <th scope="col" className="num">
            {t('partners.payment.amount')}
          </th>
          <th scope="col">{t('partners.payment.status')}</th>
        </tr>
      }
      row={(payment) => (
        <tr key={payment.id}>
          <th scope="row">{formats.date(payment.paymentDate)}</th>
          <td>{t(`partners.payment.${payment.direction}`)}</td>
          <td>{payment.documentNumber}</td>
          <td className="num">{formats.money(payment.amount, payment.currency)}</td>
          <td>{t(`partners.payment.${payment.status}`)}</td>
        </tr>
      )}
    />
  );
}

export function ContractsTab({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const query = usePaged(keys.contracts.list({ partnerId }), async (cursor) =>
    unwrapPage(
      await api.GET('/v1/contracts', { params: { query: { partnerId, cursor, limit: LIMIT } } }),
    ),
  );
  return (
    <PagedTable
      query={query}
      caption={t('partners.tabs.contracts')}
      empty={t('partners.contract.empty')}
      head={
        <tr>
          <th scope="col">{t('partners.contract.name')}</th>
          <th scope="col">{t('partners.contract.start')}</th>
          <th scope="col">{t('partners.contract.end')}</th>
          <th scope="col" className="num">
            {t('partners.contract.value')}
          </th>
          <th scope="col">{t('partners.contract.status')}</th>
        </tr>
      }
      row={(contract) => (
        <tr key={contract.id}>
          <th scope="row">{contract.name}</th>
          <td>{formats.date(contract.startDate)}</td>
          <td>{contract.endDate === null ? '' : formats.date(contract.endDate)}</td>
          <td className="num">{formats.money(contract.totalValue, contract.currency)}</td>
          <td>{t(`partners.contract.${contract.status}`)}</td>
        </tr>
      )}
    />
  );
}

export function NotesTab({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const query = usePaged(keys.notes.list({ parentId: partnerId }), async (cursor) =>
    unwrapPage(
      await api.GET('/v1/notes', {
        params: { query: { parentType: 'PARTNER', parentId: partnerId, cursor, limit: LIMIT } },
      }),
    ),
  );
  return (
    <PagedTable
      query={query}
      caption={t('partners.tabs.notes')}
      empty={t('partners.note.empty')}
      head={
        <tr>
          <th scope="col">{t('partners.note.title')}</th>
          <th scope="col">{t('partners.note.type')}</th>
          <th scope="col">{t('partners.note.due')}</th>
          <th scope="col">{t('partners.note.content')}</th>
        </tr>
      }
      row={(note) => (
        <tr key={note.id}>
          <th scope="row">{note.title}</th>
          <td>
            {t(`partners.note.${note.type}`)}
            {note.done ? <span className="badge">{t('partners.note.done')}</span> : null}
          </td>
          <td>{note.dueDate === null ? '' : formats.date(note.dueDate)}</td>
          <td className="note-content">{note.content}</td>
        </tr>
      )}
    />
  );
}
