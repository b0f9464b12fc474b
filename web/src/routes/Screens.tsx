/**
 * The signed-in screens of this skeleton: each a heading and a "coming" note until its real
 * screen lands. One chunk for all of them (they are tiny).
 */
import { useTranslation } from 'react-i18next';
import '../styles/screens.css';

function Placeholder({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{title}</h1>
      <p className="muted">{t('placeholder.coming')}</p>
    </section>
  );
}

export function ContractsPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('nav.contracts')} />;
}
export function MonthEndPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('nav.monthEnd')} />;
}
export function SettingsPage() {
  const { t } = useTranslation();
  return <Placeholder title={t('nav.settings')} />;
}
