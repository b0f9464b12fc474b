/**
 * A FINAL document's files: page 1 of its PDF as a preview, and its downloads (the PDF; for an
 * issued invoice also its e-invoices). Invoices, quotes and order confirmations show the same.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { useInvoiceTitle, type Invoice } from './shared';

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
export function Preview({ invoice }: { invoice: Invoice }) {
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

export function Downloads({
  invoice,
  onError,
}: {
  invoice: Invoice;
  onError: (text: string) => void;
}) {
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
      {invoice.source === 'GENERATED' && invoice.documentType === 'INVOICE'
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
