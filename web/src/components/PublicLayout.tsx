import { Outlet } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './LanguageSwitch';

/** Sign-in, password and setup pages: one centred card under the brand. */
export function PublicLayout() {
  const { t } = useTranslation();
  return (
    <div className="public-layout">
      <header className="public-header">
        <span className="brand">{t('app.name')}</span>
        <LanguageSwitch />
      </header>
      <main className="page-center" id="main">
        <Outlet />
      </main>
    </div>
  );
}
