/**
 * A quote or order confirmation: a new one and a draft in the invoice editor (the document type
 * its parameter), a FINAL one with its facts, the customer's answer, sending, conversion, the
 * chain it is part of, customer links, the PDF preview and download.
 */
import { getRouteApi } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import { DocumentPage, FinalDocumentFrame } from '../invoices/FinalDocumentFrame';
import { SendDialog } from '../invoices/InvoiceActions';
import { NewSalesDocument } from '../invoices/InvoiceEditor';
import type { Invoice } from '../invoices/shared';
import { ConvertDialog, DecisionDialog } from './QuoteActions';
import { QuoteBadge } from './QuoteBadge';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/quotes/$documentId');

function FinalQuote({ document }: { document: Invoice }) {
  const { t } = useTranslation();
  const quote = document.documentType === 'QUOTE';
  const open = document.quoteStatus === 'OPEN';
  // Declined and expired quotes cannot be converted (the API answers 409); the buttons say so
  // by not being there.
  const convertible = !quote || open || document.quoteStatus === 'ACCEPTED';

  return (
    <FinalDocumentFrame
      document={document}
      badge={<QuoteBadge document={document} />}
      back={{ to: '/quotes', label: t('quotes.editor.back') }}
      dateLabel={t('quotes.columns.date')}
      secondDate={{ label: t('quotes.columns.validUntil'), value: document.validUntil }}
      customerLinks={quote}
      facts={
        document.quoteDecidedAt ? (
          <>
            <dt>{t('quotes.final.decided')}</dt>
            <dd>
              {t('quotes.final.decidedBy', {
                date: formatDateTime(document.quoteDecidedAt),
                name: document.quoteDecidedBy ?? '',
              })}
            </dd>
          </>
        ) : null
      }
      actions={(report) => (
        <>
          <SendDialog
            document={document}
            onDone={report}
            title={quote ? t('quotes.send.titleQuote') : t('quotes.send.titleConfirmation')}
            sent={(to) =>
              quote ? t('quotes.send.doneQuote', { to }) : t('quotes.send.doneConfirmation', { to })
            }
          />
          {quote && open ? (
            <>
              <DecisionDialog document={document} decision="ACCEPTED" onDone={report} />
              <DecisionDialog document={document} decision="DECLINED" onDone={report} />
            </>
          ) : null}
          {quote && convertible ? (
            <ConvertDialog document={document} target="ORDER_CONFIRMATION" />
          ) : null}
          {convertible ? <ConvertDialog document={document} target="INVOICE" /> : null}
        </>
      )}
    />
  );
}

export function QuotePage() {
  const { documentId } = route.useParams();
  // New documents have addresses of their own on this route (ids are `doc_…`).
  if (documentId === 'new') return <NewSalesDocument documentType="QUOTE" />;
  if (documentId === 'new-order-confirmation')
    return <NewSalesDocument documentType="ORDER_CONFIRMATION" />;
  return (
    <DocumentPage
      documentId={documentId}
      final={(document) => <FinalQuote document={document} />}
    />
  );
}
