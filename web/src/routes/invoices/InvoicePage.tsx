import { useQuery } from '@tanstack/react-query';
import { Link, getRouteApi } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { FormNote } from '../../components/Form';
import { useFormats } from '../../api/account';
import { DraftEditor } from './InvoiceEditor';
import { CancelDialog, CreditNoteDialog, PaymentDialog, SendDialog } from './InvoiceActions';
import { InvoiceBadge, finalFocus, invoiceQuery, useInvoiceTitle, type Invoice } from './shared';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/invoices/$documentId');

type EinvoiceFormat = 'xrechnung-cii' | 'xrechnung-ubl' | 'zugferd';

/** Saves a blob under a name: downloads need the bearer, so a plain link cannot fetch them. */
function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

function fileNameOf(response: Response, fallback: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback;
}

/** Page 1 of the stored PDF as a PNG (rasterized by the API; an <img> needs no plugin). */
function Preview({ invoice }: { invoice: Invoice }) {
  const { t } = useTranslation();
  const title = useInvoiceTitle();
  const preview = useQuery({
    queryKey: [...keys.invoices.preview(invoice.id), invoice.fileId],
    enabled: invoice.fileId !== null,
    // The signed download link expires; a fresh one before that.
    staleTime: 60_000,
    retry: 2,
    queryFn: async () => {
      const raster = await api.POST('/v1/documents/rasterize', {
        // Each rasterize stores new PNG files: the same key replays the stored answer (24 h)
        // instead of storing the page again on every visit.
        params: { header: { 'idempotency-key': `preview:${invoice.id}:${invoice.fileId}:110` } },
        body: { documentId: invoice.id, pages: [1], dpi: 110 },
      });
      if (raster.error) throw new ProblemError(raster.error);
      const page = raster.data.pages[0];
      if (page === undefined) return null;
      const link = await api.GET('/v1/files/download-url', {
        params: { query: { fileId: page.fileId } },
      });
      if (link.error) throw new ProblemError(link.error);
      return { url: link.data.url, width: page.width, height: page.height };
    },
  });
  return (
    <section className="invoice-preview" aria-labelledby="preview-title">
      <h2 id="preview-title">{t('invoices.final.preview')}</h2>
      {preview.data ? (
        <img
          src={preview.data.url}
          width={preview.data.width}
          height={preview.data.height}
          alt={t('invoices.final.previewAlt', { title: title(invoice) })}
        />
      ) : preview.isError ? (
        <p role="alert">{t('invoices.final.previewFailed')}</p>
      ) : (
        <p role="status">{t('invoices.final.previewLoading')}</p>
      )}
    </section>
  );
}

function Downloads({ invoice, onError }: { invoice: Invoice; onError: (text: string) => void }) {
  const { t } = useTranslation();
  const base = invoice.documentNumber ?? invoice.id;

  const einvoice = async (format: EinvoiceFormat) => {
    const { data, error, response } = await api.GET('/v1/documents/{documentId}/einvoice', {
      params: { path: { documentId: invoice.id }, query: { format } },
      parseAs: 'blob',
    });
    if (error) return onError(error.detail ?? error.title);
    const extension = format === 'zugferd' ? 'pdf' : 'xml';
    saveBlob(data, fileNameOf(response, `${base}-${format}.${extension}`));
  };

  const pdf = async () => {
    if (invoice.fileId === null) return;
    const link = await api.GET('/v1/files/download-url', {
      params: { query: { fileId: invoice.fileId } },
    });
    if (link.error) return onError(link.error.detail ?? link.error.title);
    // The signed link needs no bearer: the browser downloads it itself (an attachment).
    const anchor = document.createElement('a');
    anchor.href = link.data.url;
    anchor.download = `${base}.pdf`;
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
  };

  const formats: { format: EinvoiceFormat; label: string }[] = [
    { format: 'xrechnung-cii', label: t('invoices.final.downloadCii') },
    { format: 'xrechnung-ubl', label: t('invoices.final.downloadUbl') },
    { format: 'zugferd', label: t('invoices.final.downloadZugferd') },
  ];
  return (
    <div className="button-group" role="group" aria-label={t('invoices.final.downloads')}>
      <button
        type="button"
        className="button"
        disabled={invoice.fileId === null}
        onClick={() => void pdf()}
      >
        {t('invoices.final.downloadPdf')}
      </button>
      {invoice.source === 'GENERATED'
        ? formats.map(({ format, label }) => (
            <button
              key={format}
              type="button"
              className="button"
              onClick={() => void einvoice(format)}
            >
              {label}
            </button>
          ))
        : null}
    </div>
  );
}

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
