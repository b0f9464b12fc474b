/**
 * The contracts list: name, partner, status, billing plan and its next invoice date. Filters
 * (status, search) live in the URL so a filtered list can be shared; pages by cursor.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ErrorAlert, Pager, unwrap, useCursorPages } from '../../components/AdminKit';
import { validateContractsSearch, type ContractsSearch } from '../../adminSearch';
import { formatDate, formatMoney } from '../../format';
import '../../styles/admin.css';
import '../../styles/forms.css';

function useContracts(search: ContractsSearch, cursor: string | undefined) {
  return useQuery({
    queryKey: keys.contracts.list({ ...search, cursor }),
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/contracts', {
          params: { query: { limit: 25, ...search, ...(cursor ? { cursor } : {}) } },
        }),
      ),
  });
}

export function ContractsPage({ search }: { search: ContractsSearch }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const pages = useCursorPages();
  const contracts = useContracts(search, pages.cursor);
  const { reset } = pages;
  useEffect(() => reset(), [search.status, search.q, reset]);

  const setSearch = (next: ContractsSearch) =>
    void navigate({ to: '/contracts', search: validateContractsSearch({ ...next }) });

  return (
    <section className="screen" aria-labelledby="screen-title">
      <div className="admin-header">
        <h1 id="screen-title">{t('contracts.title')}</h1>
        <Link to="/contracts/new" className="button button-primary">
          {t('contracts.new')}
        </Link>
      </div>
      <form
        className="admin-actions admin-panel"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const q = new FormData(event.currentTarget).get('q');
          setSearch({ ...search, q: typeof q === 'string' ? q : undefined });
        }}
      >
        <div className="field">
          <label htmlFor="contracts-q">{t('contracts.search')}</label>
          {/* Keyed by the URL's search: back and forward show the search they went to. */}
          <input
            id="contracts-q"
            name="q"
            type="search"
            key={search.q ?? ''}
            defaultValue={search.q ?? ''}
          />
        </div>
        <div className="field">
          <label htmlFor="contracts-status">{t('contracts.status')}</label>
          <select
            id="contracts-status"
            value={search.status ?? ''}
            onChange={(e) =>
              setSearch({
                ...search,
                status: (e.target.value || undefined) as ContractsSearch['status'],
              })
            }
          >
            <option value="">{t('contracts.allStatuses')}</option>
            <option value="ACTIVE">{t('contracts.statusACTIVE')}</option>
            <option value="DRAFT">{t('contracts.statusDRAFT')}</option>
          </select>
        </div>
        <button type="submit" className="button">
          {t('contracts.applySearch')}
        </button>
      </form>
      <ErrorAlert error={contracts.error} />
      {contracts.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {contracts.data ? (
        contracts.data.data.length === 0 ? (
          <p>{t('contracts.empty')}</p>
        ) : (
          <table className="admin-table">
            <caption>{t('contracts.listCaption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('contracts.name')}</th>
                <th scope="col">{t('contracts.partner')}</th>
                <th scope="col">{t('contracts.status')}</th>
                <th scope="col" className="num">
                  {t('contracts.totalValue')}
                </th>
                <th scope="col">{t('contracts.plan')}</th>
                <th scope="col">{t('contracts.nextInvoiceDate')}</th>
              </tr>
            </thead>
            <tbody>
              {contracts.data.data.map((contract) => (
                <tr key={contract.id}>
                  <th scope="row">
                    <Link to="/contracts/$contractId" params={{ contractId: contract.id }}>
                      {contract.name}
                    </Link>
                  </th>
                  <td>{contract.partnerName}</td>
                  <td>{t(`contracts.status${contract.status}`)}</td>
                  <td className="num">{formatMoney(contract.totalValue, contract.currency)}</td>
                  <td>
                    {contract.billing === null
                      ? t('contracts.noPlan')
                      : `${t(`contracts.interval${contract.billing.interval}`)}${
                          contract.billing.paused ? ` · ${t('contracts.paused')}` : ''
                        }${contract.billing.ended ? ` · ${t('contracts.ended')}` : ''}`}
                  </td>
                  <td>{contract.billing ? formatDate(contract.billing.nextInvoiceDate) : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      <Pager
        hasPrevious={pages.hasPrevious}
        nextCursor={contracts.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </section>
  );
}
