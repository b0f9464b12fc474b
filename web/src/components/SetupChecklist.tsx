/**
 * The setup checklist: what the account still lacks before its invoices can become FINAL, as
 * `GET /v1/account/invoice-readiness` answers it (company data, bank account, logo, tax rates,
 * numbering), each open step with what is missing and a link to where it is fixed. The API
 * decides what counts; this only shows it. Used on `/settings/company` and by the cockpit.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { components } from '@kontor/client';
import { api } from '../api/client';
import { keys } from '../api/keys';
import { ProblemError, fieldOfPointer } from '../api/problems';
import '../styles/setup-checklist.css';

export type InvoiceReadiness = components['schemas']['InvoiceReadiness'];
type Item = InvoiceReadiness['items'][number];
type Problem = Item['problems'][number];

export function useInvoiceReadiness() {
  return useQuery({
    queryKey: keys.readiness.all,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/account/invoice-readiness');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

/** Where each step is fixed: a section of the company page, or the tax rates. */
function FixLink({ item }: { item: Item }) {
  const { t } = useTranslation();
  const label = `${t('checklist.fix')}: ${t(`checklist.items.${item.key}`)}`;
  if (item.key === 'taxRates')
    return (
      <Link
        to="/settings/tax-rates"
        className="checklist-fix"
        aria-label={label}
        activeOptions={{ includeHash: true }}
      >
        {t('checklist.fix')}
      </Link>
    );
  const hash = {
    company: 'company',
    bankAccount: 'bank',
    logo: 'logo',
    invoiceNumbering: 'numbering',
  }[item.key];
  return (
    <Link
      to="/settings/company"
      hash={hash}
      className="checklist-fix"
      aria-label={label}
      activeOptions={{ includeHash: true }}
    >
      {t('checklist.fix')}
    </Link>
  );
}

/** The field a problem names (`/company/address/street`), in the words of the company form. */
function useProblemText() {
  const { t } = useTranslation();
  const labels: Record<string, string> = {
    legalName: t('company.legalName'),
    'address.street': t('company.street'),
    'address.postalCode': t('company.postalCode'),
    'address.city': t('company.city'),
    'address.country': t('company.country'),
    address: t('checklist.address'),
    vatId: t('company.vatId'),
    taxNumber: t('checklist.taxId'),
    bankAccounts: t('company.iban'),
    'bankAccounts.0.iban': t('company.iban'),
    'bankAccounts.0.bic': t('company.bic'),
    taxRates: t('checklist.items.taxRates'),
  };
  return (problem: Problem) => {
    const field = fieldOfPointer(problem.path.replace(/^\/company/, ''));
    const label = labels[field];
    // A path this list does not know keeps the API's own words.
    if (label === undefined) return `${problem.path} ${problem.message}`;
    return problem.code === 'required'
      ? t('checklist.missing', { field: label })
      : t('checklist.invalid', { field: label });
  };
}

function Mark({ done }: { done: boolean }) {
  return (
    <svg className="checklist-mark" viewBox="0 0 20 20" aria-hidden="true" focusable="false">
      <circle cx="10" cy="10" r="9" />
      {done ? <path d="M5.5 10.5l3 3 6-7" /> : null}
    </svg>
  );
}

function ChecklistItem({ item }: { item: Item }) {
  const { t } = useTranslation();
  const problemText = useProblemText();
  const state = item.done
    ? t('checklist.done')
    : item.required
      ? t('checklist.open')
      : t('checklist.optional');
  return (
    <li className={item.done ? 'checklist-item checklist-done' : 'checklist-item'}>
      <Mark done={item.done} />
      <div className="checklist-body">
        <div className="checklist-head">
          <span className="checklist-label">{t(`checklist.items.${item.key}`)}</span>
          <span className="checklist-state">{state}</span>
        </div>
        {item.detail ? (
          <p className="checklist-detail">
            {t('checklist.numbering', {
              format: item.detail.invoiceFormat,
              next: item.detail.nextInvoiceNumber,
            })}
          </p>
        ) : null}
        {!item.done && item.problems.length > 0 ? (
          <ul className="checklist-problems">
            {item.problems.map((problem) => (
              <li key={`${problem.path} ${problem.message}`}>{problemText(problem)}</li>
            ))}
          </ul>
        ) : null}
        {item.done ? null : <FixLink item={item} />}
      </div>
    </li>
  );
}

export function SetupChecklist({ hideWhenReady = false }: { hideWhenReady?: boolean }) {
  const { t } = useTranslation();
  const titleId = useId();
  const readiness = useInvoiceReadiness();
  if (hideWhenReady && readiness.data?.ready) return null;
  return (
    <section className="setup-checklist" aria-labelledby={titleId}>
      <h2 id={titleId}>{t('checklist.title')}</h2>
      {readiness.isPending ? (
        <p role="status" aria-busy="true">
          {t('app.loading')}
        </p>
      ) : null}
      {readiness.isError ? (
        <div role="alert">
          <p>{t('checklist.loadFailed')}</p>
          <button type="button" className="button" onClick={() => void readiness.refetch()}>
            {t('errors.retry')}
          </button>
        </div>
      ) : null}
      {readiness.data ? (
        <>
          <p
            role="status"
            className={
              readiness.data.ready ? 'checklist-summary checklist-ready' : 'checklist-summary'
            }
          >
            {readiness.data.ready ? t('checklist.ready') : t('checklist.notReady')}
          </p>
          <ol className="checklist">
            {readiness.data.items.map((item) => (
              <ChecklistItem key={item.key} item={item} />
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}
