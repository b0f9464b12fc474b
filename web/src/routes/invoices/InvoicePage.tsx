import { useQuery } from '@tanstack/react-query';
import { Link, getRouteApi } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormNote } from '../../components/Form';
import { useFormats } from '../../api/account';
import { DraftEditor } from './InvoiceEditor';
import { CancelDialog, CreditNoteDialog, PaymentDialog, SendDialog } from './InvoiceActions';
import { CustomerLinks } from './CustomerLinks';
import { DocumentChain } from './DocumentChain';
import { Downloads, Preview } from './DocumentFiles';
import { InvoiceBadge, finalFocus, invoiceQuery, useInvoiceTitle, type Invoice } from './shared';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/invoices/$documentId');

function FinalInvoice({ invoice }: { invoice: Invoice }) {
  const { t } = useTranslation();
  const format = useFormats();
  const title = useInvoiceTitle();
  const [message, setMessage] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!finalFocus.pending) return;
    finalFocus.pending = false;
    heading.current?.focus();
  }, []);

  const isCreditNote = invoice.invoiceType === 'CREDIT_NOTE';
  const cancelled = invoice.cancelledByDocumentId !== null;
  const report = (text: string) => {
    setFailure(null);
    setMessage(text);
  };
  const fail = (text: string) => {
    setMessage(null);
    setFailure(text);
  };

  return (
    <section className="screen invoice-final" aria-labelledby="screen-title">
      <div className="screen-header">
        <h1 id="screen-title" ref={heading} tabIndex={-1}>
          {title(invoice)} <InvoiceBadge invoice={invoice} />
        </h1>
        <Link to="/invoices" className="button">
          {t('invoices.editor.back')}
        </Link>
      </div>
      <FormNote message={message} />
      {failure !== null ? (
        <div className="form-alert" role="alert">
          {failure}
        </div>
      ) : null}
      <dl className="invoice-facts">
        <dt>{t('invoices.columns.customer')}</dt>
        <dd>
          {invoice.partnerId ? (
            <a href={`/partners/${invoice.partnerId}`}>{invoice.partnerName}</a>
          ) : (
            invoice.partnerName
          )}
        </dd>
        <dt>{t('invoices.columns.date')}</dt>
        <dd>{format.date(invoice.creationDate)}</dd>
        {invoice.dueDate ? (
          <>
            <dt>{t('invoices.columns.dueDate')}</dt>
            <dd>{format.date(invoice.dueDate)}</dd>
          </>
        ) : null}
        <dt>{t('invoices.totals.netTotal')}</dt>
        <dd>{format.money(invoice.netTotal, invoice.currency)}</dd>
        <dt>{t('invoices.totals.grossTotal')}</dt>
        <dd>{format.money(invoice.grossTotal, invoice.currency)}</dd>
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
              <Link to="/invoices/$documentId" params={{ documentId: invoice.precedingDocumentId }}>
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
        {invoice.sentAt ? (
          <>
            <dt>{t('invoices.final.sent')}</dt>
            <dd>
              {t('invoices.final.sentTo', {
                date: format.date(invoice.sentAt),
                to: invoice.sentTo.join(', '),
              })}
              {invoice.delivery === 'outbox' ? (
                <strong className="warning-text"> {t('invoices.send.outboxShort')}</strong>
              ) : null}
            </dd>
          </>
        ) : null}
      </dl>
      <DocumentChain document={invoice} />
      <div className="invoice-actions">
        <Downloads invoice={invoice} onError={fail} />
        <div className="button-group" role="group" aria-label={t('invoices.final.actions')}>
          <SendDialog invoice={invoice} onDone={report} />
          {!isCreditNote && !cancelled && invoice.paymentStatus !== 'PAID' ? (
            <PaymentDialog invoice={invoice} onDone={report} />
          ) : null}
          {!isCreditNote && !cancelled ? (
            <>
              <CreditNoteDialog invoice={invoice} onDone={report} />
              <CancelDialog invoice={invoice} onDone={report} />
            </>
          ) : null}
        </div>
      </div>
      {!isCreditNote ? <CustomerLinks document={invoice} /> : null}
      <Preview invoice={invoice} />
    </section>
  );
}

export function InvoicePage() {
  const { t } = useTranslation();
  const { documentId } = route.useParams();
  const invoice = useQuery(invoiceQuery(documentId));
  if (invoice.isPending) {
    return (
      <section className="screen" aria-busy="true">
        <p role="status">{t('app.loading')}</p>
      </section>
    );
  }
  if (invoice.isError) {
    return (
      <section className="screen">
        <p role="alert">{invoice.error.message}</p>
        <button type="button" className="button" onClick={() => void invoice.refetch()}>
          {t('errors.retry')}
        </button>
      </section>
    );
  }
  return invoice.data.status === 'DRAFT' ? (
    <DraftEditor invoice={invoice.data} />
  ) : (
    <FinalInvoice invoice={invoice.data} />
  );
}
