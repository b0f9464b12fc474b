/**
 * A quote or order confirmation: a new one and a draft in the invoice editor (the document type
 * its parameter), a FINAL one with its facts, the customer's answer, conversion, the chain it is
 * part of, customer links, the PDF preview and download.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, getRouteApi } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import { FormNote } from '../../components/Form';
import { formatDateTime } from '../../format';
import { CustomerLinks } from '../invoices/CustomerLinks';
import { DocumentChain } from '../invoices/DocumentChain';
import { Downloads, Preview } from '../invoices/DocumentFiles';
import { DraftEditor, NewSalesDocument } from '../invoices/InvoiceEditor';
import { finalFocus, invoiceQuery, useInvoiceTitle, type Invoice } from '../invoices/shared';
import { ConvertDialog, DecisionDialog } from './QuoteActions';
import { QuoteBadge } from './QuoteBadge';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/quotes/$documentId');

function FinalQuote({ document }: { document: Invoice }) {
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

  const quote = document.documentType === 'QUOTE';
  const open = document.quoteStatus === 'OPEN';
  // Declined and expired quotes cannot be converted (the API answers 409); the buttons say so
  // by not being there.
  const convertible = !quote || open || document.quoteStatus === 'ACCEPTED';
  const report = (text: string) => {
    setFailure(null);
    setMessage(text);
  };

  return (
    <section className="screen invoice-final" aria-labelledby="screen-title">
      <div className="screen-header">
        <h1 id="screen-title" ref={heading} tabIndex={-1}>
          {title(document)} <QuoteBadge document={document} />
        </h1>
        <Link to="/quotes" className="button">
          {t('quotes.editor.back')}
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
          {document.partnerId ? (
            <Link to="/partners/$partnerId" params={{ partnerId: document.partnerId }}>
              {document.partnerName}
            </Link>
          ) : (
            document.partnerName
          )}
        </dd>
        <dt>{t('quotes.columns.date')}</dt>
        <dd>{format.date(document.creationDate)}</dd>
        {document.validUntil ? (
          <>
            <dt>{t('quotes.columns.validUntil')}</dt>
            <dd>{format.date(document.validUntil)}</dd>
          </>
        ) : null}
        <dt>{t('invoices.totals.netTotal')}</dt>
        <dd>{format.money(document.netTotal, document.currency)}</dd>
        <dt>{t('invoices.totals.grossTotal')}</dt>
        <dd>{format.money(document.grossTotal, document.currency)}</dd>
        {document.quoteDecidedAt ? (
          <>
            <dt>{t('quotes.final.decided')}</dt>
            <dd>
              {t('quotes.final.decidedBy', {
                date: formatDateTime(document.quoteDecidedAt),
                name: document.quoteDecidedBy ?? '',
              })}
            </dd>
          </>
        ) : null}
      </dl>
      <DocumentChain document={document} />
      <div className="invoice-actions">
        <Downloads
          invoice={document}
          onError={(text) => {
            setMessage(null);
            setFailure(text);
          }}
        />
        <div className="button-group" role="group" aria-label={t('invoices.final.actions')}>
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
        </div>
      </div>
      {quote ? <CustomerLinks document={document} /> : null}
      <Preview invoice={document} />
    </section>
  );
}

export function QuotePage() {
  const { documentId } = route.useParams();
  // New documents have addresses of their own on this route (ids are `doc_…`).
  if (documentId === 'new') return <NewSalesDocument documentType="QUOTE" />;
  if (documentId === 'new-order-confirmation')
    return <NewSalesDocument documentType="ORDER_CONFIRMATION" />;
  return <QuoteDocument documentId={documentId} />;
}

function QuoteDocument({ documentId }: { documentId: string }) {
  const { t } = useTranslation();
  const document = useQuery(invoiceQuery(documentId));
  if (document.isPending) {
    return (
      <section className="screen" aria-busy="true">
        <p role="status">{t('app.loading')}</p>
      </section>
    );
  }
  if (document.isError) {
    return (
      <section className="screen">
        <p role="alert">{document.error.message}</p>
        <button type="button" className="button" onClick={() => void document.refetch()}>
          {t('errors.retry')}
        </button>
      </section>
    );
  }
  return document.data.status === 'DRAFT' ? (
    <DraftEditor invoice={document.data} />
  ) : (
    <FinalQuote document={document.data} />
  );
}
