import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { signOut } from '../api/client';
import { QueryProvider, queryClient } from '../api/query';
import { useSession } from '../api/session';
import { LanguageSwitch } from './LanguageSwitch';
import '../styles/shell.css';

type NavTo =
  | '/'
  | '/invoices'
  | '/quotes'
  | '/partners'
  | '/products'
  | '/bank'
  | '/dunning'
  | '/contracts'
  | '/month-end'
  | '/settings';

function NavItems({ onNavigate }: { onNavigate: () => void }) {
  const { t } = useTranslation();
  const items: { to: NavTo; label: string }[] = [
    { to: '/', label: t('nav.cockpit') },
    { to: '/invoices', label: t('nav.invoices') },
    { to: '/quotes', label: t('quotes.nav') },
    { to: '/partners', label: t('nav.partners') },
    { to: '/products', label: t('nav.products') },
    { to: '/bank', label: t('nav.bank') },
    { to: '/dunning', label: t('nav.dunning') },
    { to: '/contracts', label: t('nav.contracts') },
    { to: '/month-end', label: t('nav.monthEnd') },
    { to: '/settings', label: t('nav.settings') },
  ];
  return (
    <ul className="nav-list">
      {items.map((item) => (
        <li key={item.to}>
          <Link
            to={item.to}
            className="nav-link"
            activeOptions={{ exact: item.to === '/' }}
            onClick={onNavigate}
          >
            {item.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function UserMenu() {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const leave = async () => {
    await signOut().catch(() => undefined);
    queryClient.clear();
    await navigate({ to: '/sign-in' });
  };
  return (
    // Not modal: a modal menu locks page scroll with an injected <style>, which the CSP refuses.
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger className="user-menu-trigger">
        <span className="avatar" aria-hidden="true">
          {(session?.user.name ?? session?.user.email ?? '?').slice(0, 1).toUpperCase()}
        </span>
        <span className="user-name">{session?.user.name ?? session?.user.email}</span>
        {/* The accessible name keeps the visible name and says what the button opens. */}
        <span className="visually-hidden">{t('shell.userMenu')}</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu" align="end" sideOffset={6}>
          <DropdownMenu.Label className="menu-label">
            {t('shell.signedInAs', { email: session?.user.email ?? '' })}
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="menu-separator" />
          <DropdownMenu.Item className="menu-item" onSelect={() => void leave()}>
            {t('shell.signOut')}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** The signed-in frame: top bar (brand, company, language, user menu) and side navigation. */
export function Shell() {
  const { t } = useTranslation();
  const session = useSession();
  const [navOpen, setNavOpen] = useState(false);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="topbar">
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={navOpen}
          aria-controls="sidebar"
          onClick={() => setNavOpen((open) => !open)}
        >
          {t('nav.toggle')}
        </button>
        <Link to="/" className="brand">
          {t('app.name')}
        </Link>
        <span className="company">{session?.account.name}</span>
        <div className="topbar-end">
          <LanguageSwitch />
          <UserMenu />
        </div>
      </header>
      <nav
        id="sidebar"
        className={navOpen ? 'sidebar sidebar-open' : 'sidebar'}
        aria-label={t('nav.label')}
      >
        {/* A narrow screen's navigation closes once the user went somewhere. */}
        <NavItems onNavigate={() => setNavOpen(false)} />
      </nav>
      <main className="content" id="main" tabIndex={-1}>
        <QueryProvider>
          <Outlet />
        </QueryProvider>
      </main>
    </div>
  );
}
