/**
 * Quotes by state and outcome (drafts, open, accepted, declined, expired) and the order
 * confirmations, searched and paged on the server like the invoice list (whose search box and
 * table it shares).
 */
import type { paths } from '@kontor/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import {
  DocumentPager,
  DocumentTable,
  DocumentTabs,
  ListAlert,
  ListSearchBox,
} from '../invoices/DocumentList';
import { asJson } from '../invoices/shared';
import { QuoteBadge } from './QuoteBadge';
import '../../styles/screens.css';
import '../../styles/invoices.css';

const route = getRouteApi('/app/quotes');

/** The list's tabs: quotes by state and outcome, and the order confirmations. */
const quoteTabs = [
  'draft',
  'open',
  'accepted',
  'declined',
  'expired',
  'orderConfirmations',
] as const;
type QuoteTab = (typeof quoteTabs)[number];

/** The tab a link names; an unknown one shows all (the router keeps the tab as text). */
const tabOf = (status: string | undefined): QuoteTab | undefined =>
  quoteTabs.find((tab) => tab === status);
const PAGE_SIZE = 50;
/** The addresses of a new quote and a new order confirmation (on the document's route). */
const NEW_QUOTE = { documentId: 'new' };
const NEW_ORDER_CONFIRMATION = { documentId: 'new-order-confirmation' };

type ListQuery = NonNullable<paths['/v1/documents']['get']['parameters']['query']>;

/** The API's filters for a tab: the server filters and pages. */
function listQuery(tab: QuoteTab | undefined, q: string | undefined, cursor: string | undefined) {
  const query: ListQuery = {
    documentType: tab === 'orderConfirmations' ? 'ORDER_CONFIRMATION' : 'QUOTE',
    limit: PAGE_SIZE,
  };
  if (q !== undefined) query.q = q;
  if (cursor !== undefined) query.cursor = cursor;
  switch (tab) {
    case 'draft':
      return { ...query, status: 'DRAFT' as const };
    case 'open':
      return { ...query, quoteStatus: 'OPEN' as const };
    case 'accepted':
      return { ...query, quoteStatus: 'ACCEPTED' as const };
    case 'declined':
      return { ...query, quoteStatus: 'DECLINED' as const };
    case 'expired':
      return { ...query, quoteStatus: 'EXPIRED' as const };
    case 'orderConfirmations':
    case undefined:
      return query;
  }
}

export function QuoteListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate({ from: '/quotes' });
  const search = route.useSearch();
  const tab = tabOf(search.status);
  const params = listQuery(tab, search.q, search.cursor);
  const list = useQuery({
    queryKey: keys.invoices.list({
      kind: 'quotes',
      tab,
      q: search.q,
      cursor: search.cursor,
    }),
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/documents', { params: { query: params } });
      if (error) throw new ProblemError(error);
      return asJson(data);
    },
  });
  const confirmations = tab === 'orderConfirmations';

  const onSearch = useCallback(
    (q: string) =>
      void navigate({
        search: (prev) => ({
          ...(prev.status ? { status: prev.status } : {}),
          ...(q ? { q } : {}),
        }),
        replace: true,
      }),
    [navigate],
  );
  const pageSearch = (cursor: string | undefined) => ({
    ...(tab ? { status: tab } : {}),
    ...(search.q ? { q: search.q } : {}),
    ...(cursor ? { cursor } : {}),
  });

  return (
    <section className="screen" aria-labelledby="screen-title">
      <div className="screen-header">
        <h1 id="screen-title">{t('quotes.nav')}</h1>
        <div className="button-group">
          <Link to="/quotes/$documentId" params={NEW_QUOTE} className="button button-primary">
            {t('quotes.list.newQuote')}
          </Link>
          <Link to="/quotes/$documentId" params={NEW_ORDER_CONFIRMATION} className="button">
            {t('quotes.list.newOrderConfirmation')}
          </Link>
        </div>
      </div>
      <DocumentTabs
        list="/quotes"
        tabs={quoteTabs}
        current={tab}
        q={search.q}
        label={t('quotes.list.tabs')}
        name={(name) => t(`quotes.tabs.${name ?? 'all'}`)}
      />
      <ListSearchBox
        key={tab ?? 'all'}
        label={t('quotes.list.search')}
        initial={search.q ?? ''}
        onSearch={onSearch}
      />
      <ListAlert list={list} />
      <DocumentTable
        rows={list.data?.data}
        caption={t(`quotes.tabs.${tab ?? 'all'}`)}
        busy={list.isFetching}
        pending={list.isPending}
        empty={t('quotes.list.empty')}
        dateLabel={t('quotes.columns.date')}
        secondDate={
          confirmations
            ? { label: t('quotes.columns.deliveryDate'), value: (d) => d.deliveryDate }
            : { label: t('quotes.columns.validUntil'), value: (d) => d.validUntil }
        }
        badge={(document) => <QuoteBadge document={document} />}
      />
      <DocumentPager
        list="/quotes"
        cursor={search.cursor}
        nextCursor={list.data?.nextCursor}
        search={pageSearch}
      />
    </section>
  );
}
