/**
 * What the invoice screens share: the document type, reading one invoice, and the state badge.
 */
import type { components } from '@kontor/client';
import { queryOptions } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';

export type Invoice = components['schemas']['Document'];

export const invoiceQuery = (id: string) =>
  queryOptions({
    queryKey: keys.invoices.detail(id),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/documents/{documentId}', {
        params: { path: { documentId: id } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });

type BadgeState = 'draft' | 'creditNote' | 'cancelled' | 'paid' | 'partial' | 'overdue' | 'open';

/** The state the API's fields say an invoice is in, for the badge (no rule of our own). */
export function badgeState(invoice: Invoice): BadgeState {
  if (invoice.status === 'DRAFT') return 'draft';
  if (invoice.invoiceType === 'CREDIT_NOTE') return 'creditNote';
  if (invoice.cancelledByDocumentId !== null) return 'cancelled';
  if (invoice.paymentStatus === 'PAID') return 'paid';
  if (invoice.overdue) return 'overdue';
  if (invoice.paymentStatus === 'PARTIAL') return 'partial';
  return 'open';
}

export function InvoiceBadge({ invoice }: { invoice: Invoice }) {
  const { t } = useTranslation();
  const state = badgeState(invoice);
  return (
    <span className={`invoice-badge invoice-badge-${state}`}>{t(`invoices.badge.${state}`)}</span>
  );
}

/** The document's title: its kind and number, or "Draft" while it has none. */
export function useInvoiceTitle() {
  const { t } = useTranslation();
  return (invoice: Invoice) => {
    if (invoice.documentNumber === null) return t('invoices.draftTitle');
    if (invoice.documentType === 'QUOTE')
      return t('quotes.quoteTitle', { number: invoice.documentNumber });
    if (invoice.documentType === 'ORDER_CONFIRMATION')
      return t('quotes.orderConfirmationTitle', { number: invoice.documentNumber });
    return invoice.invoiceType === 'CREDIT_NOTE'
      ? t('invoices.creditNoteTitle', { number: invoice.documentNumber })
      : t('invoices.invoiceTitle', { number: invoice.documentNumber });
  };
}

/** Set when a draft just became FINAL in this tab: the final view takes the focus. */
export const finalFocus = { pending: false };

/**
 * Lists that can also answer CSV are typed as JSON-or-text; the app always asks for JSON.
 */
export function asJson<T extends object>(data: T | string): T {
  if (typeof data === 'string') throw new Error('expected a JSON answer');
  return data;
}
