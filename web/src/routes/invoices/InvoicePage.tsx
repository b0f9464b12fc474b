/**
 * An invoice or credit note: a draft in the editor; a FINAL one with its payment state, what it
 * corrects or what cancelled it, and its actions (send, payment, credit note, Storno) in the
 * frame every FINAL document shares.
 */
import { Link, getRouteApi } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { CancelDialog, CreditNoteDialog, PaymentDialog, SendDialog } from './InvoiceActions';
import { DocumentPage, FinalDocumentFrame } from './FinalDocumentFrame';
import { InvoiceBadge, type Invoice } from './shared';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/invoices/$documentId');

function FinalInvoice({ invoice }: { invoice: Invoice }) {
  const { t } = useTranslation();
  const isCreditNote = invoice.invoiceType === 'CREDIT_NOTE';
  const cancelled = invoice.cancelledByDocumentId !== null;

  return (
    <FinalDocumentFrame
      document={invoice}
      badge={<InvoiceBadge invoice={invoice} />}
      back={{ to: '/invoices', label: t('invoices.editor.back') }}
      dateLabel={t('invoices.columns.date')}
      secondDate={{ label: t('invoices.columns.dueDate'), value: invoice.dueDate }}
      customerLinks={!isCreditNote}
      facts={
        <>
          {invoice.paymentStatus ? (
            <>
              <dt>{t('invoices.final.paymentStatus')}</dt>
              <dd>{t(`invoices.paymentStatus.${invoice.paymentStatus}`)}</dd>
            </>
          ) : null}
          {invoice.precedingDocumentId ? (
            <>
              <dt>{t('invoices.final.corrects')}</dt>
              <dd>
                <Link
                  to="/invoices/$documentId"
                  params={{ documentId: invoice.precedingDocumentId }}
                >
                  {invoice.precedingDocumentNumber}
                </Link>
              </dd>
            </>
          ) : null}
          {invoice.cancelledByDocumentId ? (
            <>
              <dt>{t('invoices.final.cancelledBy')}</dt>
              <dd>
                <Link
                  to="/invoices/$documentId"
                  params={{ documentId: invoice.cancelledByDocumentId }}
                >
                  {t('invoices.final.openCreditNote')}
                </Link>
              </dd>
            </>
          ) : null}
        </>
      }
      actions={(report) => (
        <>
          <SendDialog document={invoice} onDone={report} />
          {!isCreditNote && !cancelled && invoice.paymentStatus !== 'PAID' ? (
            <PaymentDialog invoice={invoice} onDone={report} />
          ) : null}
          {!isCreditNote && !cancelled ? (
            <>
              <CreditNoteDialog invoice={invoice} onDone={report} />
              <CancelDialog invoice={invoice} onDone={report} />
            </>
          ) : null}
        </>
      )}
    />
  );
}

export function InvoicePage() {
  const { documentId } = route.useParams();
  return (
    <DocumentPage documentId={documentId} final={(invoice) => <FinalInvoice invoice={invoice} />} />
  );
}
