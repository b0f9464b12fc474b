/**
 * `/settings/company`: what an account needs before its invoices can become FINAL — the
 * checklist on top (the API's readiness), then the master data and bank account, the logo and
 * how invoices are numbered, and the SEPA pre-notification period. Each checklist item links to its section here.
 */
import { useTranslation } from 'react-i18next';
import { useAccountSettings, useCompany } from '../../api/account';
import { SetupChecklist } from '../../components/SetupChecklist';
import { CompanyForm } from './CompanyForm';
import { LogoSection } from './LogoSection';
import { NumberingSection } from './NumberingSection';
import { SepaSettingsSection } from './SepaSettingsSection';
import '../../styles/forms.css';
import '../../styles/settings.css';

function Loading() {
  const { t } = useTranslation();
  return (
    <p role="status" aria-busy="true">
      {t('app.loading')}
    </p>
  );
}

function LoadFailed({ retry }: { retry: () => void }) {
  const { t } = useTranslation();
  return (
    <div role="alert">
      <p>{t('common.unexpected')}</p>
      <button type="button" className="button" onClick={retry}>
        {t('errors.retry')}
      </button>
    </div>
  );
}

export function CompanySettingsPage() {
  const { t } = useTranslation();
  const company = useCompany();
  const account = useAccountSettings();
  return (
    <section className="screen settings-screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('company.title')}</h1>
      <p className="lead">{t('company.intro')}</p>
      <SetupChecklist />
      <section className="settings-section" aria-labelledby="company-title">
        <h2 id="company-title">{t('company.formTitle')}</h2>
        {company.isPending ? <Loading /> : null}
        {company.isError ? <LoadFailed retry={() => void company.refetch()} /> : null}
        {/* Keyed by nothing that a background refetch changes: typed values stay. */}
        {company.data ? <CompanyForm company={company.data} /> : null}
      </section>
      {account.isError ? <LoadFailed retry={() => void account.refetch()} /> : null}
      {account.data ? <LogoSection account={account.data} /> : null}
      <NumberingSection />
      <SepaSettingsSection />
    </section>
  );
}
