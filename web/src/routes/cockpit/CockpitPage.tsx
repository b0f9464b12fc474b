/**
 * The cockpit: today's figures as the API computes them (`GET /v1/dashboard/stats`), income
 * against expenses over 12 months (`GET /v1/dashboard/timeseries?interval=month`) and the
 * budgets. Every figure is a link to the list behind it; nothing is summed here.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { components } from '@kontor/client';
import { useDeferredValue } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { LoadingOrError } from '../../components/LoadingOrError';
import { useFormats } from '../../api/account';
import type { Formats } from '../../format';
import { BudgetTable } from './BudgetTable';
import { Deadlines } from './Deadlines';
import { IncomeExpenseChart } from './IncomeExpenseChart';
import { SetupChecklist } from '../../components/SetupChecklist';
import '../../styles/screens.css';
import '../../styles/records.css';
import '../../styles/cockpit.css';

type Stats = components['schemas']['DashboardStats'];
type Tally = Stats['receivables'];

function useStats() {
  return useQuery({
    queryKey: keys.dashboard.detail('stats'),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/dashboard/stats');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

function CashFigure({ stats, formats }: { stats: Stats; formats: Formats }) {
  const { t } = useTranslation();
  const anchor = stats.cashAnchor;
  return (
    <Link to="/bank" className="figure">
      <span className="figure-label">{t('cockpit.cash')}</span>
      <span className="figure-value">
        {stats.balance === null ? t('cockpit.cashUnknown') : formats.money(stats.balance)}
      </span>
      <span className="figure-meta">
        {anchor === null
          ? t('cockpit.cashNoAnchor')
          : t('cockpit.cashAnchor', {
              amount: formats.money(anchor.openingBalance, anchor.currency),
              date: formats.date(anchor.effectiveDate),
            })}
      </span>
    </Link>
  );
}

type InvoiceStatus = 'open' | 'overdue';

/** One open-items figure: the amount and how many invoices, linked to the invoice list. */
function OpenItemsFigure({
  label,
  tally,
  status,
  received,
  formats,
  warn,
}: {
  label: string;
  tally: Tally;
  status: InvoiceStatus;
  received: boolean;
  formats: Formats;
  warn?: boolean;
}) {
  const { t } = useTranslation();
  const search = received ? { status, source: 'UPLOADED' as const } : { status };
  return (
    <Link
      to="/invoices"
      search={search}
      className={warn && tally.count > 0 ? 'figure figure-warn' : 'figure'}
    >
      <span className="figure-label">{label}</span>
      <span className="figure-value">{formats.money(tally.amount)}</span>
      <span className="figure-meta">{t('cockpit.invoiceCount', { count: tally.count })}</span>
    </Link>
  );
}

function MonthFigure({ stats, formats }: { stats: Stats; formats: Formats }) {
  const { t } = useTranslation();
  const month = stats.thisMonth;
  return (
    <Link to="/bank" className="figure">
      <span className="figure-label">
        {t('cockpit.thisMonth', { month: formats.month(`${month.month}-01`) })}
      </span>
      <span className="figure-value">{formats.money(month.net)}</span>
      <span className="figure-meta">
        {t('cockpit.incomeExpense', {
          income: formats.money(month.income),
          expense: formats.money(month.expense),
        })}
      </span>
    </Link>
  );
}

function ContractsFigure({ stats, formats }: { stats: Stats; formats: Formats }) {
  const { t } = useTranslation();
  return (
    <Link to="/contracts" className="figure">
      <span className="figure-label">{t('cockpit.contracts')}</span>
      <span className="figure-value">{formats.money(stats.contracts.monthlyValue)}</span>
      <span className="figure-meta">
        {t('cockpit.contractsMeta', { count: stats.contracts.activeCount })}
      </span>
    </Link>
  );
}

function Figures({ stats }: { stats: Stats }) {
  const { t } = useTranslation();
  const formats = useFormats();
  return (
    <>
      <section className="cockpit-section" aria-labelledby="cockpit-money">
        <h2 id="cockpit-money">{t('cockpit.moneyTitle')}</h2>
        <div className="figure-grid">
          <CashFigure stats={stats} formats={formats} />
          <MonthFigure stats={stats} formats={formats} />
          <ContractsFigure stats={stats} formats={formats} />
        </div>
      </section>
      <div className="cockpit-pair">
        <section className="cockpit-section" aria-labelledby="cockpit-receivables">
          <h2 id="cockpit-receivables">{t('cockpit.receivablesTitle')}</h2>
          <div className="figure-grid">
            <OpenItemsFigure
              label={t('cockpit.receivables')}
              tally={stats.receivables}
              status="open"
              received={false}
              formats={formats}
            />
            <OpenItemsFigure
              label={t('cockpit.overdueReceivables')}
              tally={stats.overdueReceivables}
              status="overdue"
              received={false}
              formats={formats}
              warn
            />
          </div>
        </section>
        <section className="cockpit-section" aria-labelledby="cockpit-payables">
          <h2 id="cockpit-payables">{t('cockpit.payablesTitle')}</h2>
          <div className="figure-grid">
            <OpenItemsFigure
              label={t('cockpit.payables')}
              tally={stats.payables}
              status="open"
              received
              formats={formats}
            />
            <OpenItemsFigure
              label={t('cockpit.overduePayables')}
              tally={stats.overduePayables}
              status="overdue"
              received
              formats={formats}
              warn
            />
          </div>
        </section>
      </div>
    </>
  );
}

export function CockpitPage() {
  const { t } = useTranslation();
  const stats = useStats();
  // The figures are drawn in a transition: a render that yields to the browser between
  // components, so the page stays responsive while they appear.
  const data = useDeferredValue(stats.data);
  return (
    <section className="screen cockpit" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('nav.cockpit')}</h1>
      {/* Above every figure, until invoices can become FINAL. */}
      <SetupChecklist hideWhenReady />
      {data === undefined ? (
        <LoadingOrError error={stats.error} onRetry={() => void stats.refetch()} />
      ) : (
        <>
          <Figures stats={data} />
          <IncomeExpenseChart />
          <BudgetTable budgets={data.budgets} />
          <Deadlines stats={data} />
        </>
      )}
    </section>
  );
}
