/**
 * Settings: one tab per area, chosen by the typed search parameter `tab` (a link to any tab
 * can be shared). Company data and tax rates are their own screens (`/settings/company`,
 * `/settings/tax-rates`), linked from here.
 */
import { Link, useSearch } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { settingsTabs, validateSettingsSearch, type SettingsTab } from '../../adminSearch';
import { AccountTab } from './AccountSettings';
import { ApiTokensTab } from './ApiTokens';
import { PlanUsageTab } from './PlanUsage';
import { UsersTab } from './Users';
import { WebhooksTab } from './Webhooks';
import '../../styles/admin.css';
import '../../styles/forms.css';

function TabBody({ tab, endpoint }: { tab: SettingsTab; endpoint: string | undefined }) {
  switch (tab) {
    case 'users':
      return <UsersTab />;
    case 'tokens':
      return <ApiTokensTab />;
    case 'webhooks':
      return <WebhooksTab endpointId={endpoint} />;
    case 'plan':
      return <PlanUsageTab />;
    case 'account':
      return <AccountTab />;
  }
}

export function SettingsRoute() {
  const { t } = useTranslation();
  const search = validateSettingsSearch(useSearch({ strict: false }));
  const tab = search.tab ?? 'users';
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('settingsAdmin.title')}</h1>
      <nav aria-label={t('settingsAdmin.sections')}>
        <ul className="admin-tabs">
          {settingsTabs.map((name) => (
            <li key={name}>
              <Link
                to="/settings"
                search={{ tab: name }}
                className="admin-tab"
                aria-current={name === tab ? 'page' : undefined}
                activeOptions={{ includeSearch: true }}
              >
                {t(`settingsAdmin.tabs.${name}`)}
              </Link>
            </li>
          ))}
          {/* The company data and tax rates have routes of their own. */}
          <li>
            <Link className="admin-tab" to="/settings/company">
              {t('settingsAdmin.tabs.company')}
            </Link>
          </li>
          <li>
            <Link className="admin-tab" to="/settings/tax-rates">
              {t('settingsAdmin.tabs.taxRates')}
            </Link>
          </li>
        </ul>
      </nav>
      <TabBody tab={tab} endpoint={search.endpoint} />
    </section>
  );
}
