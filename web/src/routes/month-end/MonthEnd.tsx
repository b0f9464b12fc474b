/** Month end: the DATEV export (settings, period, download) and the audit trail. */
import { useSearch } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { validateMonthEndSearch } from '../../adminSearch';
import { AuditTrailPanel } from './AuditTrail';
import { DatevExportPanel } from './DatevExport';
import { DatevSettingsPanel } from './DatevSettings';
import '../../styles/admin.css';
import '../../styles/forms.css';

export function MonthEndRoute() {
  const { t } = useTranslation();
  const search = validateMonthEndSearch(useSearch({ strict: false }));
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('monthEnd.title')}</h1>
      <DatevExportPanel />
      <DatevSettingsPanel />
      <AuditTrailPanel search={search} />
    </section>
  );
}
