/**
 * How invoices are numbered. The API fixes the formats (`{YYYY}-{0000}`, credit notes
 * `GS-{YYYY}-{0000}`, gapless per year) and has no route to change them; the readiness answer
 * names them and the next number, which this shows read-only.
 */
import { useTranslation } from 'react-i18next';
import { useInvoiceReadiness } from '../../components/SetupChecklist';

export function NumberingSection() {
  const { t } = useTranslation();
  const readiness = useInvoiceReadiness();
  const detail = readiness.data?.items.find((item) => item.key === 'invoiceNumbering')?.detail;
  if (!detail) return null;
  return (
    <section className="settings-section" id="numbering" aria-labelledby="numbering-title">
      <h2 id="numbering-title">{t('company.numbering')}</h2>
      <p className="muted">{t('company.numberingText')}</p>
      <dl className="facts">
        <dt>{t('company.invoiceFormat')}</dt>
        <dd>
          <code>{detail.invoiceFormat}</code>
        </dd>
        <dt>{t('company.creditNoteFormat')}</dt>
        <dd>
          <code>{detail.creditNoteFormat}</code>
        </dd>
        <dt>{t('company.nextInvoiceNumber')}</dt>
        <dd>
          <code>{detail.nextInvoiceNumber}</code>
        </dd>
      </dl>
    </section>
  );
}
