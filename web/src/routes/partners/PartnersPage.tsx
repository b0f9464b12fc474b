/**
 * Customers and vendors: a page of the API's list at a time (`GET /v1/partners`, keyset
 * cursor), so 10 000 partners page as fast as 10. Search (`q`: name without case and accents,
 * or the start of the number), type and tag are search parameters: a filtered page is a link.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import type { components } from '@kontor/client';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { LoadingOrError } from '../../components/LoadingOrError';
import { unwrapPage } from './pages';
import { MAX_TRAIL, type PartnerListSearch, type PartnerTypeFilter } from './search';
import '../../styles/screens.css';
import '../../styles/forms.css';
import '../../styles/records.css';

type Partner = components['schemas']['Partner'];
const PAGE_SIZE = 25;
const partnerTypeFilters: PartnerTypeFilter[] = ['customer', 'vendor'];
const partnersRoute = getRouteApi('/app/partners');

export function billingAddress(partner: Partner) {
  return partner.addresses.find((address) => address.type === 'BILLING') ?? partner.addresses[0];
}

function usePartnerPage(search: PartnerListSearch) {
  const params = {
    limit: PAGE_SIZE,
    cursor: search.cursor,
    q: search.q,
    tag: search.tag,
    type: search.type === undefined ? undefined : (search.type.toUpperCase() as Partner['type']),
  };
  return useQuery({
    queryKey: keys.partners.list(params),
    queryFn: async () => {
      return unwrapPage(await api.GET('/v1/partners', { params: { query: params } }));
    },
    // The old page stays while the next loads: paging never flashes an empty table.
    placeholderData: keepPreviousData,
  });
}

function Filters({ search }: { search: PartnerListSearch }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [q, setQ] = useState(search.q ?? '');
  const [type, setType] = useState<PartnerTypeFilter | ''>(search.type ?? '');
  const [tag, setTag] = useState(search.tag ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // A new filter starts at the first page.
    void navigate({
      to: '/partners',
      search: {
        q: q.trim() === '' ? undefined : q.trim(),
        type: type === '' ? undefined : type,
        tag: tag.trim() === '' ? undefined : tag.trim(),
      },
    });
  };
  return (
    <form className="toolbar" role="search" onSubmit={submit}>
      <div className="field field-wide">
        <label htmlFor="partner-q">{t('partners.search')}</label>
        <input
          id="partner-q"
          type="search"
          value={q}
          onChange={(event) => setQ(event.target.value)}
          aria-describedby="partner-q-hint"
        />
        <p className="field-hint" id="partner-q-hint">
          {t('partners.searchHint')}
        </p>
      </div>
      <div className="field">
        <label htmlFor="partner-type">{t('partners.typeFilter')}</label>
        <select
          id="partner-type"
          value={type}
          onChange={(event) => setType(event.target.value as PartnerTypeFilter | '')}
        >
          <option value="">{t('partners.typeAll')}</option>
          {partnerTypeFilters.map((value) => (
            <option key={value} value={value}>
              {value === 'customer' ? t('partners.typeCustomers') : t('partners.typeVendors')}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="partner-tag">{t('partners.tagFilter')}</label>
        <input id="partner-tag" value={tag} onChange={(event) => setTag(event.target.value)} />
      </div>
      <button type="submit" className="button button-primary">
        {t('partners.applyFilters')}
      </button>
    </form>
  );
}

function PartnerRows({ partners }: { partners: Partner[] }) {
  const { t } = useTranslation();
  return (
    <tbody>
      {partners.map((partner) => {
        const address = billingAddress(partner);
        return (
          <tr key={partner.id}>
            <td>{partner.partnerNumber}</td>
            <th scope="row">
              <Link to="/partners/$partnerId" params={{ partnerId: partner.id }}>
                {partner.name}
              </Link>
            </th>
            <td>{t(`partners.types.${partner.type}`)}</td>
            <td>{partner.tags.join(', ')}</td>
            <td>{[address?.postalCode, address?.city].filter(Boolean).join(' ')}</td>
            <td>{address?.email}</td>
          </tr>
        );
      })}
    </tbody>
  );
}

function Pager({ search, nextCursor }: { search: PartnerListSearch; nextCursor: string | null }) {
  const { t } = useTranslation();
  const trail = search.trail ?? [];
  const previous = trail.at(-1);
  const page = trail.length < MAX_TRAIL ? trail.length + 1 : undefined;
  return (
    <nav className="pager" aria-label={t('partners.pages')}>
      {search.cursor !== undefined ? (
        <Link
          to="/partners"
          search={{
            ...search,
            cursor: previous === '' || previous === undefined ? undefined : previous,
            trail: trail.length > 1 ? trail.slice(0, -1) : undefined,
          }}
          className="button"
        >
          {t('partners.previous')}
        </Link>
      ) : null}
      {page !== undefined && search.cursor !== undefined ? (
        <span>{t('partners.page', { page })}</span>
      ) : null}
      {nextCursor !== null ? (
        <Link
          to="/partners"
          search={{
            ...search,
            cursor: nextCursor,
            trail: [...trail, search.cursor ?? ''].slice(-MAX_TRAIL),
          }}
          className="button"
        >
          {t('partners.next')}
        </Link>
      ) : null}
    </nav>
  );
}

export function PartnersPage() {
  const { t } = useTranslation();
  const search = partnersRoute.useSearch();
  const page = usePartnerPage(search);
  return (
    <section className="screen" aria-labelledby="screen-title">
      <div className="screen-header">
        <h1 id="screen-title">{t('nav.partners')}</h1>
        <Link to="/partners/new" className="button button-primary">
          {t('partners.new')}
        </Link>
      </div>
      {/* Keyed by the URL's filters: Back and a shared link show what they name. */}
      <Filters key={`${search.q}|${search.type}|${search.tag}`} search={search} />
      {/* A failed page after a shown one (e.g. a cursor that no longer fits): say so. */}
      {page.error !== null && page.data !== undefined ? (
        <LoadingOrError error={page.error} onRetry={() => void page.refetch()} />
      ) : null}
      {page.data === undefined ? (
        <LoadingOrError error={page.error} onRetry={() => void page.refetch()} />
      ) : page.data.data.length === 0 ? (
        <p className="muted" role="status">
          {t('partners.empty')}
        </p>
      ) : (
        <>
          <table className="data-table" aria-busy={page.isPlaceholderData}>
            <caption className="visually-hidden">{t('partners.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('partners.number')}</th>
                <th scope="col">{t('partners.name')}</th>
                <th scope="col">{t('partners.type')}</th>
                <th scope="col">{t('partners.tags')}</th>
                <th scope="col">{t('partners.city')}</th>
                <th scope="col">{t('partners.email')}</th>
              </tr>
            </thead>
            <PartnerRows partners={page.data.data} />
          </table>
          <Pager search={search} nextCursor={page.data.nextCursor} />
        </>
      )}
    </section>
  );
}
