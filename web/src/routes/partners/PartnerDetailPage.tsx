/**
 * One customer or vendor: its data (the edit form) and, per tab, what the API holds for it.
 * The tab is a search parameter (`?tab=invoices`), so each tab is a link that can be shared.
 */
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { LoadingOrError } from '../../components/LoadingOrError';
import { NoteForm } from './NoteForm';
import { PartnerForm } from './PartnerForm';
import { SepaTab } from './SepaTab';
import { ContractsTab, InvoicesTab, NotesTab, PaymentsTab } from './PartnerTabs';
import { partnerTabs, type PartnerTab } from './search';
import '../../styles/screens.css';
import '../../styles/forms.css';
import '../../styles/records.css';
import '../../styles/partners.css';

const route = getRouteApi('/app/partners/$partnerId');

function usePartner(partnerId: string) {
  return useQuery({
    queryKey: keys.partners.detail(partnerId),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/partners/{partnerId}', {
        params: { path: { partnerId } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

function TabNav({ partnerId, active }: { partnerId: string; active: PartnerTab }) {
  const { t } = useTranslation();
  return (
    <nav className="tab-nav" aria-label={t('partners.tabsLabel')}>
      <ul>
        {partnerTabs.map((tab) => (
          <li key={tab}>
            <Link
              to="/partners/$partnerId"
              params={{ partnerId }}
              search={tab === 'data' ? {} : { tab }}
              className={tab === active ? 'tab tab-active' : 'tab'}
              aria-current={tab === active ? 'page' : undefined}
              activeOptions={{ includeSearch: true }}
            >
              {t(`partners.tabs.${tab}`)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function PartnerDetailPage() {
  const { t } = useTranslation();
  const { partnerId } = route.useParams();
  const { tab = 'data' } = route.useSearch();
  const partner = usePartner(partnerId);
  if (partner.data === undefined) {
    return (
      <section className="screen">
        <LoadingOrError error={partner.error} onRetry={() => void partner.refetch()} />
      </section>
    );
  }
  const data = partner.data;
  return (
    <section className="screen" aria-labelledby="screen-title">
      <p>
        <Link to="/partners">{t('partners.backToList')}</Link>
      </p>
      <h1 id="screen-title">{data.name}</h1>
      <p className="muted">
        {t(`partners.types.${data.type}`)}
        {data.partnerNumber === null
          ? ''
          : ` · ${t('partners.numberShort', { number: data.partnerNumber })}`}
      </p>
      <TabNav partnerId={partnerId} active={tab} />
      <div className="tab-panel">
        {tab === 'data' ? <PartnerForm key={data.id} partner={data} /> : null}
        {tab === 'invoices' ? <InvoicesTab partnerId={partnerId} /> : null}
        {tab === 'payments' ? <PaymentsTab partnerId={partnerId} /> : null}
        {tab === 'contracts' ? <ContractsTab partnerId={partnerId} /> : null}
        {tab === 'notes' ? (
          <>
            <NotesTab partnerId={partnerId} />
            <NoteForm partnerId={partnerId} />
          </>
        ) : null}
        {tab === 'sepa' ? <SepaTab partnerId={partnerId} partnerName={data.name} /> : null}
      </div>
    </section>
  );
}
