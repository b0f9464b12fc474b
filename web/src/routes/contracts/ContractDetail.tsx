/**
 * One contract: its data, the billing plan with the next invoice date, pause and resume, and
 * "bill now" — a dry run first that lists what would be billed, then the real run, which the
 * API allows admins only. The invoices the plan made are listed below.
 */
import type { components } from '@kontor/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ErrorAlert, unwrap } from '../../components/AdminKit';
import { formatDate, formatMoney } from '../../format';
import { ContractForm } from './ContractForm';
import '../../styles/admin.css';

type Contract = components['schemas']['Contract'];
type Run = components['schemas']['ContractBillingRun'];

function useContract(contractId: string) {
  return useQuery({
    queryKey: keys.contracts.detail(contractId),
    queryFn: async () =>
      unwrap(await api.GET('/v1/contracts/{contractId}', { params: { path: { contractId } } })),
  });
}

/** The product names of plan lines that name only a product. */
function useProductNames(): (id: string | undefined) => string | undefined {
  const products = useQuery({
    queryKey: keys.products.list({ limit: 100 }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/products', { params: { query: { limit: 100 } } })),
  });
  return (id) => products.data?.data.find((product) => product.id === id)?.name;
}

function PlanSection({ contract }: { contract: Contract }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const productName = useProductNames();
  const plan = contract.billing;
  const pause = useMutation({
    mutationFn: async (paused: boolean) => {
      if (plan === null) return contract;
      const { ended: _ended, ...rest } = plan;
      return unwrap(
        await api.PUT('/v1/contracts/{contractId}', {
          params: { path: { contractId: contract.id } },
          body: { version: contract.version, billing: { ...rest, paused } },
        }),
      );
    },
    onSuccess: async () => queryClient.invalidateQueries({ queryKey: keys.contracts.all }),
  });
  if (plan === null) {
    return (
      <section className="admin-panel" aria-labelledby="plan-title">
        <h2 id="plan-title">{t('contracts.plan')}</h2>
        <p>{t('contracts.noPlan')}</p>
      </section>
    );
  }
  const state = plan.ended
    ? t('contracts.ended')
    : plan.paused
      ? t('contracts.paused')
      : t('contracts.running');
  return (
    <section className="admin-panel" aria-labelledby="plan-title">
      <h2 id="plan-title">{t('contracts.plan')}</h2>
      <dl className="admin-dl">
        <dt>{t('contracts.planState')}</dt>
        <dd>
          <span
            className={
              plan.paused || plan.ended
                ? 'admin-badge admin-badge-warn'
                : 'admin-badge admin-badge-ok'
            }
          >
            {state}
          </span>
        </dd>
        <dt>{t('contracts.interval')}</dt>
        <dd>{t(`contracts.interval${plan.interval}`)}</dd>
        <dt>{t('contracts.nextInvoiceDate')}</dt>
        <dd>{formatDate(plan.nextInvoiceDate)}</dd>
        <dt>{t('contracts.period')}</dt>
        <dd>{t(`contracts.period${plan.period}`)}</dd>
        <dt>{t('contracts.planEndDate')}</dt>
        <dd>{formatDate(plan.endDate)}</dd>
        <dt>{t('contracts.autoFinalize')}</dt>
        <dd>{plan.autoFinalize ? t('admin.yes') : t('admin.no')}</dd>
        <dt>{t('contracts.autoSend')}</dt>
        <dd>{plan.autoSend ? t('admin.yes') : t('admin.no')}</dd>
      </dl>
      <table className="admin-table">
        <caption>{t('contracts.lines')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('contracts.lineDescription')}</th>
            <th scope="col" className="num">
              {t('contracts.quantity')}
            </th>
            <th scope="col" className="num">
              {t('contracts.unitPrice')}
            </th>
          </tr>
        </thead>
        <tbody>
          {plan.lineItems.map((line, index) => (
            <tr key={index}>
              <td>{line.description ?? productName(line.productId) ?? line.productId ?? '–'}</td>
              <td className="num">{line.quantity}</td>
              <td className="num">
                {line.unitPrice === undefined
                  ? t('contracts.productPrice')
                  : formatMoney(line.unitPrice, contract.currency)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert error={pause.error} />
      {plan.ended ? null : (
        <div className="admin-actions">
          <button
            type="button"
            className="button"
            disabled={pause.isPending}
            onClick={() => pause.mutate(!plan.paused)}
          >
            {plan.paused ? t('contracts.resume') : t('contracts.pause')}
          </button>
        </div>
      )}
      <BillNow contract={contract} />
    </section>
  );
}

function RunResult({ run, contract }: { run: Run; contract: Contract }) {
  const { t } = useTranslation();
  return (
    <div className="admin-form">
      {run.invoices.length === 0 ? (
        <p>{t('contracts.runNothing')}</p>
      ) : (
        <table className="admin-table">
          <caption>{run.dryRun ? t('contracts.dryRunCaption') : t('contracts.runCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('contracts.invoiceDate')}</th>
              <th scope="col">{t('contracts.servicePeriod')}</th>
              <th scope="col">{t('contracts.invoiceStatus')}</th>
            </tr>
          </thead>
          <tbody>
            {run.invoices.map((invoice) => (
              <tr key={`${invoice.invoiceDate}-${invoice.servicePeriod.from}`}>
                <td>{formatDate(invoice.invoiceDate)}</td>
                <td>
                  {formatDate(invoice.servicePeriod.from)} – {formatDate(invoice.servicePeriod.to)}
                </td>
                <td>{t(`contracts.invoiceStatus${invoice.status}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {run.problems.length > 0 ? (
        <div className="form-alert" role="alert">
          <ul>
            {run.problems.map((problem) => (
              <li key={`${problem.invoiceDate}-${problem.code}`}>
                {formatDate(problem.invoiceDate)}: {problem.detail} (
                {t(`contracts.outcome${problem.outcome}`)})
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p className="muted">
        {t('contracts.runUntil', { date: formatDate(run.until), name: contract.name })}
      </p>
    </div>
  );
}

function BillNow({ contract }: { contract: Contract }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [dry, setDry] = useState<Run | null>(null);
  const run = useMutation({
    mutationFn: async (dryRun: boolean) =>
      unwrap(
        await api.POST('/v1/contracts/billing-runs', { body: { contractId: contract.id, dryRun } }),
      ),
    onSuccess: async (result) => {
      if (result.dryRun) {
        setDry(result);
        return;
      }
      setDry(null);
      // A real run moved the plan on and made invoices.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.contracts.all }),
        queryClient.invalidateQueries({ queryKey: keys.invoices.all }),
      ]);
    },
  });
  const done = run.data && !run.data.dryRun ? run.data : null;
  return (
    <div className="admin-form" aria-live="polite">
      <h3>{t('contracts.billNow')}</h3>
      <p className="muted">{t('contracts.billNowHint')}</p>
      <div className="admin-actions">
        <button
          type="button"
          className="button"
          disabled={run.isPending}
          onClick={() => run.mutate(true)}
        >
          {t('contracts.dryRun')}
        </button>
        {dry !== null && dry.invoices.length > 0 ? (
          <button
            type="button"
            className="button button-primary"
            disabled={run.isPending}
            onClick={() => run.mutate(false)}
          >
            {t('contracts.runNow', { count: dry.invoices.length })}
          </button>
        ) : null}
      </div>
      {run.isPending ? <p role="status">{t('contracts.running')}</p> : null}
      <ErrorAlert error={run.error} />
      {dry !== null ? <RunResult run={dry} contract={contract} /> : null}
      {done !== null ? (
        <>
          <p role="status" className="form-note">
            {t('contracts.runDone', { count: done.invoices.length })}
          </p>
          <RunResult run={done} contract={contract} />
        </>
      ) : null}
    </div>
  );
}

function ContractInvoices({ contract }: { contract: Contract }) {
  const { t } = useTranslation();
  const invoices = useQuery({
    queryKey: keys.contracts.invoices(contract.id),
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/contracts/{contractId}/invoices', {
          params: { path: { contractId: contract.id }, query: { limit: 50 } },
        }),
      ),
  });
  return (
    <section className="admin-panel" aria-labelledby="contract-invoices">
      <h2 id="contract-invoices">{t('contracts.invoices')}</h2>
      <ErrorAlert error={invoices.error} />
      {invoices.data?.data.length === 0 ? <p>{t('contracts.noInvoices')}</p> : null}
      {invoices.data && invoices.data.data.length > 0 ? (
        <table className="admin-table">
          <caption className="visually-hidden">{t('contracts.invoices')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('contracts.invoiceNumber')}</th>
              <th scope="col">{t('contracts.invoiceDate')}</th>
              <th scope="col">{t('contracts.servicePeriod')}</th>
              <th scope="col">{t('contracts.invoiceStatus')}</th>
              <th scope="col" className="num">
                {t('contracts.grossTotal')}
              </th>
            </tr>
          </thead>
          <tbody>
            {invoices.data.data.map((invoice) => (
              <tr key={invoice.documentId}>
                <td>{invoice.documentNumber ?? t('contracts.draftNumber')}</td>
                <td>{formatDate(invoice.invoiceDate)}</td>
                <td>
                  {formatDate(invoice.servicePeriod.from)} – {formatDate(invoice.servicePeriod.to)}
                </td>
                <td>{invoice.status}</td>
                <td className="num">{formatMoney(invoice.grossTotal, invoice.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

export function ContractDetailPage({ contractId }: { contractId: string }) {
  const { t } = useTranslation();
  const contract = useContract(contractId);
  if (contract.isPending) return <p role="status">{t('app.loading')}</p>;
  if (contract.isError) return <ErrorAlert error={contract.error} />;
  const c = contract.data;
  return (
    <section className="screen" aria-labelledby="screen-title">
      <p>
        <Link to="/contracts">{t('contracts.back')}</Link>
      </p>
      <div className="admin-header">
        <h1 id="screen-title">{c.name}</h1>
        <Link to="/contracts/$contractId/edit" params={{ contractId: c.id }} className="button">
          {t('contracts.edit')}
        </Link>
      </div>
      <section className="admin-panel" aria-labelledby="contract-data">
        <h2 id="contract-data">{t('contracts.data')}</h2>
        <dl className="admin-dl">
          <dt>{t('contracts.partner')}</dt>
          <dd>{c.partnerName}</dd>
          <dt>{t('contracts.status')}</dt>
          <dd>{t(`contracts.status${c.status}`)}</dd>
          <dt>{t('contracts.startDate')}</dt>
          <dd>{formatDate(c.startDate)}</dd>
          <dt>{t('contracts.endDate')}</dt>
          <dd>{formatDate(c.endDate)}</dd>
          <dt>{t('contracts.totalValue')}</dt>
          <dd>{formatMoney(c.totalValue, c.currency)}</dd>
          <dt>{t('contracts.cancellationDeadline')}</dt>
          <dd>{formatDate(c.cancellationDeadline)}</dd>
        </dl>
      </section>
      <PlanSection contract={c} />
      <ContractInvoices contract={c} />
    </section>
  );
}

export function ContractEditPage({ contractId }: { contractId: string }) {
  const { t } = useTranslation();
  const contract = useContract(contractId);
  if (contract.isPending) return <p role="status">{t('app.loading')}</p>;
  if (contract.isError) return <ErrorAlert error={contract.error} />;
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('contracts.editTitle', { name: contract.data.name })}</h1>
      <ContractForm contract={contract.data} />
    </section>
  );
}

export function ContractNewPage() {
  const { t } = useTranslation();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('contracts.newTitle')}</h1>
      <ContractForm />
    </section>
  );
}
