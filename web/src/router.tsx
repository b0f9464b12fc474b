/**
 * The route tree, built in code. Every page is its own chunk (`lazyRouteComponent`), so the
 * sign-in page loads only the router, React and its form; the shell and the app's screens
 * load after sign-in. Signed-in routes sit under the `app` layout, whose `beforeLoad` waits
 * for the session restored from the refresh cookie and sends everyone else to sign-in.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  redirect,
} from '@tanstack/react-router';
import { sessionRestored } from './api/client';
import { getSession } from './api/session';
import { loadSignedInTexts } from './i18n';
import { ErrorView } from './components/ErrorView';
import { NotFound } from './components/NotFound';
import { PublicLayout } from './components/PublicLayout';
import { RootLayout } from './components/RootLayout';
import { partnerListSearch, partnerTabSearch } from './routes/partners/search';
import { SignInPage } from './routes/SignIn';
import { searchParser } from './search';
import {
  validateContractsSearch,
  validateMonthEndSearch,
  validateSettingsSearch,
} from './adminSearch';

/** A same-origin path to return to after sign-in; anything else (`//evil`, `https:`) is dropped. */
export function safeRedirect(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//')
    ? value
    : undefined;
}

const rootRoute = createRootRoute({
  component: RootLayout,
  notFoundComponent: NotFound,
  errorComponent: ErrorView,
});

const publicLayout = createRoute({
  getParentRoute: () => rootRoute,
  id: 'public',
  // In the entry chunk: every first visit shows a public page (sign-in, setup) first.
  component: PublicLayout,
});

const signInRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { redirect?: string } => {
    const target = safeRedirect(search.redirect);
    return target === undefined ? {} : { redirect: target };
  },
  beforeLoad: async ({ search }) => {
    await sessionRestored;
    if (getSession() !== null) throw redirect({ href: search.redirect ?? '/' });
  },
  // In the entry chunk too: most first visits land here, and a chunk of its own would cost
  // a request and bytes on the page with the tightest budget.
  component: SignInPage,
});

const emailSearch = searchParser<{ email?: string }>({ email: 'text' });

const forgotPasswordRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: '/forgot-password',
  validateSearch: emailSearch,
  // Its texts load with it: the entry carries only the sign-in page's (vite.config.ts).
  beforeLoad: () => loadSignedInTexts(),
  component: lazyRouteComponent(() => import('./routes/ForgotPassword'), 'ForgotPasswordPage'),
});

const resetPasswordRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: '/reset-password',
  validateSearch: emailSearch,
  // Its texts load with it: the entry carries only the sign-in page's (vite.config.ts).
  beforeLoad: () => loadSignedInTexts(),
  component: lazyRouteComponent(() => import('./routes/ResetPassword'), 'ResetPasswordPage'),
});

const acceptInvitationRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: '/accept-invitation',
  validateSearch: emailSearch,
  // Its texts load with it: the entry carries only the sign-in page's (vite.config.ts).
  beforeLoad: () => loadSignedInTexts(),
  component: lazyRouteComponent(() => import('./routes/ResetPassword'), 'AcceptInvitationPage'),
});

const setupRoute = createRoute({
  getParentRoute: () => publicLayout,
  path: '/setup',
  beforeLoad: () => loadSignedInTexts(),
  component: lazyRouteComponent(() => import('./routes/Setup'), 'SetupPage'),
});

const appLayout = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ location }) => {
    await sessionRestored;
    if (getSession() === null) {
      throw redirect({ to: '/sign-in', search: { redirect: location.href } });
    }
    await loadSignedInTexts();
  },
  component: lazyRouteComponent(() => import('./components/Shell'), 'Shell'),
});

const cockpitRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/',
  component: lazyRouteComponent(() => import('./routes/cockpit/CockpitPage'), 'CockpitPage'),
});
export const invoiceTabs = ['draft', 'open', 'overdue', 'paid', 'cancelled'] as const;
export type InvoiceTab = (typeof invoiceTabs)[number];
export interface InvoiceListSearch {
  status?: InvoiceTab;
  q?: string;
  cursor?: string;
  /** UPLOADED: received invoices (suppliers' bills, the payables); GENERATED: issued ones. */
  source?: 'GENERATED' | 'UPLOADED';
}

const invoicesRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/invoices',
  validateSearch: searchParser<InvoiceListSearch>({
    status: invoiceTabs,
    q: 'text',
    cursor: 'text',
    source: ['GENERATED', 'UPLOADED'],
  }),
  component: lazyRouteComponent(() => import('./routes/invoices/InvoiceList'), 'InvoiceListPage'),
});
const newInvoiceRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/invoices/new',
  component: lazyRouteComponent(() => import('./routes/invoices/InvoiceEditor'), 'NewInvoicePage'),
});
const invoiceRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/invoices/$documentId',
  component: lazyRouteComponent(() => import('./routes/invoices/InvoicePage'), 'InvoicePage'),
});

/**
 * The quote list's search: its tab (free text here, read by the list, which drops an unknown
 * one), search and page. A new quote is `/quotes/new`, a new order confirmation
 * `/quotes/new-order-confirmation`, on the document's own route (ids are `doc_…`): every byte
 * of this file is in the sign-in page's JS, and routes of their own would cost some.
 */
export interface QuoteListSearch {
  status?: string;
  q?: string;
  cursor?: string;
}
const quotesRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/quotes',
  validateSearch: searchParser<QuoteListSearch>({ status: 'text', q: 'text', cursor: 'text' }),
  component: lazyRouteComponent(() => import('./routes/quotes/QuoteList'), 'QuoteListPage'),
});
const quoteRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/quotes/$documentId',
  component: lazyRouteComponent(() => import('./routes/quotes/screens'), 'QuotePage'),
});

const partnerScreens = () => import('./routes/partners/screens');

const partnersRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/partners',
  validateSearch: partnerListSearch,
  component: lazyRouteComponent(partnerScreens, 'PartnersPage'),
});
const partnerNewRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/partners/new',
  component: lazyRouteComponent(partnerScreens, 'PartnerNewPage'),
});
const partnerRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/partners/$partnerId',
  validateSearch: partnerTabSearch,
  component: lazyRouteComponent(partnerScreens, 'PartnerDetailPage'),
});
/** The product list's search and page, in the URL so a link shows the same list. */
export interface ProductsSearch {
  q?: string;
  cursor?: string;
}

const productsRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/products',
  validateSearch: searchParser<ProductsSearch>({ q: 'text', cursor: 'text' }),
  component: lazyRouteComponent(() => import('./routes/products/Products'), 'ProductsPage'),
});
const bankRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/bank',
  component: lazyRouteComponent(() => import('./routes/bank/BankPage'), 'BankPage'),
});
const bankImportRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/bank/imports/$importId',
  validateSearch: searchParser<{ filter?: 'undecided' | 'accepted' | 'rejected' | 'duplicates' }>({
    filter: ['undecided', 'accepted', 'rejected', 'duplicates'],
  }),
  component: lazyRouteComponent(() => import('./routes/bank/ImportReview'), 'ImportReviewPage'),
});
const sepaRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/bank/sepa',
  component: lazyRouteComponent(() => import('./routes/sepa/SepaPage'), 'SepaPage'),
});
const dunningRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/dunning',
  validateSearch: searchParser<{ date?: string }>({ date: 'date' }),
  component: lazyRouteComponent(() => import('./routes/dunning/DunningPage'), 'DunningPage'),
});
const contracts = () => import('./routes/contracts/routes');
const contractsRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/contracts',
  validateSearch: validateContractsSearch,
  component: lazyRouteComponent(contracts, 'ContractsRoute'),
});
const contractNewRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/contracts/new',
  component: lazyRouteComponent(contracts, 'ContractNewRoute'),
});
const contractRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/contracts/$contractId',
  component: lazyRouteComponent(contracts, 'ContractRoute'),
});
const contractEditRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/contracts/$contractId/edit',
  component: lazyRouteComponent(contracts, 'ContractEditRoute'),
});
const monthEndRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/month-end',
  validateSearch: validateMonthEndSearch,
  component: lazyRouteComponent(() => import('./routes/month-end/MonthEnd'), 'MonthEndRoute'),
});
const settingsRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/settings',
  validateSearch: validateSettingsSearch,
  component: lazyRouteComponent(() => import('./routes/settings/Settings'), 'SettingsRoute'),
});

const companySettingsRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/settings/company',
  component: lazyRouteComponent(
    () => import('./routes/settings/CompanySettings'),
    'CompanySettingsPage',
  ),
});
const taxRatesRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/settings/tax-rates',
  component: lazyRouteComponent(() => import('./routes/settings/TaxRates'), 'TaxRatesPage'),
});

const routeTree = rootRoute.addChildren([
  publicLayout.addChildren([
    signInRoute,
    forgotPasswordRoute,
    resetPasswordRoute,
    acceptInvitationRoute,
    setupRoute,
  ]),
  appLayout.addChildren([
    cockpitRoute,
    invoicesRoute,
    newInvoiceRoute,
    invoiceRoute,
    quotesRoute,
    quoteRoute,
    partnersRoute,
    partnerNewRoute,
    partnerRoute,
    productsRoute,
    bankRoute,
    bankImportRoute,
    sepaRoute,
    dunningRoute,
    contractsRoute,
    contractNewRoute,
    contractRoute,
    contractEditRoute,
    monthEndRoute,
    settingsRoute,
    companySettingsRoute,
    taxRatesRoute,
  ]),
]);

export const router = createRouter({
  routeTree,
  defaultPreload: 'intent',
  defaultNotFoundComponent: NotFound,
  defaultErrorComponent: ErrorView,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
