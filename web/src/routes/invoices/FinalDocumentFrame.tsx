/**
 * What the page of a sales document shares, whatever its type (invoice, quote, order
 * confirmation): reading it (loading, failure with Retry, a draft in the editor) and, once
 * FINAL, the frame around it — the title with its badge (which takes the keyboard after
 * finalizing), the way back to its list, the note or failure its actions leave, its facts
 * (customer, dates, totals, the type's own, where it was sent), the chain it is part of,
 * downloads and the type's actions, customer links and the PDF preview.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import { FormNote } from '../../components/Form';
import { CustomerLinks } from './CustomerLinks';
import { DocumentChain } from './DocumentChain';
import { Downloads, Preview } from './DocumentFiles';
import { DraftEditor } from './InvoiceEditor';
import { finalFocus, invoiceQuery, useInvoiceTitle, type Invoice } from './shared';

/** Leaves a message above the facts (an action's outcome in the API's words). */
export type Report = (message: string) => void;

/** The document's page: its draft in the editor, else `final` of the FINAL document. */
export function DocumentPage({
  documentId,
  final,
}: {
  documentId: string;
  final: (document: Invoice) => ReactNode;
}) {
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
    <>{final(document.data)}</>
  );
}

interface FrameProps {
  document: Invoice;
  /** The state badge beside the title. */
  badge: ReactNode;
  /** The list the document belongs to. */
  back: { to: '/invoices' | '/quotes'; label: string };
  dateLabel: string;
  /** The second date: an invoice's due date, a quote's validity (shown when set). */
  secondDate: { label: string; value: string | null };
  /** The type's own facts, after the totals. */
  facts?: ReactNode;
  /** The type's actions; `report` leaves their outcome above the facts. */
  actions: (report: Report) => ReactNode;
  /** Whether the document may have customer links (not a credit note). */
  customerLinks: boolean;
}

/** A FINAL document's page around what its type adds (facts and actions). */
export function FinalDocumentFrame(props: FrameProps) {
  const { document, secondDate } = props;
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
          {title(document)} {props.badge}
        </h1>
        <Link to={props.back.to} className="button">
          {props.back.label}
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
        <dt>{props.dateLabel}</dt>
        <dd>{format.date(document.creationDate)}</dd>
        {secondDate.value ? (
          <>
            <dt>{secondDate.label}</dt>
            <dd>{format.date(secondDate.value)}</dd>
          </>
        ) : null}
        <dt>{t('invoices.totals.netTotal')}</dt>
        <dd>{format.money(document.netTotal, document.currency)}</dd>
        <dt>{t('invoices.totals.grossTotal')}</dt>
        <dd>{format.money(document.grossTotal, document.currency)}</dd>
        {props.facts}
        {document.sentAt ? (
          <>
            <dt>{t('invoices.final.sent')}</dt>
            <dd>
              {t('invoices.final.sentTo', {
                date: format.date(document.sentAt),
                to: document.sentTo.join(', '),
              })}
              {document.delivery === 'outbox' ? (
                <strong className="warning-text"> {t('invoices.send.outboxShort')}</strong>
              ) : null}
            </dd>
          </>
        ) : null}
      </dl>
      <DocumentChain document={document} />
      <div className="invoice-actions">
        <Downloads invoice={document} onError={fail} />
        <div className="button-group" role="group" aria-label={t('invoices.final.actions')}>
          {props.actions(report)}
        </div>
      </div>
      {props.customerLinks ? <CustomerLinks document={document} /> : null}
      <Preview invoice={document} />
    </section>
  );
}
