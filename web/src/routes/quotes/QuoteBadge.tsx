import { useTranslation } from 'react-i18next';
import type { Invoice } from '../invoices/shared';

type QuoteState = 'draft' | 'open' | 'accepted' | 'declined' | 'expired' | 'final';

/** The state the API's fields say a quote or order confirmation is in (no rule of our own). */
function quoteState(document: Invoice): QuoteState {
  if (document.status === 'DRAFT') return 'draft';
  switch (document.quoteStatus) {
    case 'OPEN':
      return 'open';
    case 'ACCEPTED':
      return 'accepted';
    case 'DECLINED':
      return 'declined';
    case 'EXPIRED':
      return 'expired';
    case null:
      return 'final';
  }
}

/** The invoice badge's colours: accepted as paid, declined and expired as cancelled. */
const colour: Record<QuoteState, string> = {
  draft: ' invoice-badge-draft',
  open: '',
  final: '',
  accepted: ' invoice-badge-paid',
  declined: ' invoice-badge-cancelled',
  expired: ' invoice-badge-cancelled',
};

export function QuoteBadge({ document }: { document: Invoice }) {
  const { t } = useTranslation();
  const state = quoteState(document);
  return <span className={`invoice-badge${colour[state]}`}>{t(`quotes.badge.${state}`)}</span>;
}
