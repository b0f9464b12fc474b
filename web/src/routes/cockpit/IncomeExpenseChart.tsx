/**
 * Income against expenses per month over the last 12 months, as the API buckets them
 * (`GET /v1/dashboard/timeseries?interval=month`): a hand-made SVG bar chart (no chart
 * library: the bundle budget) that screen readers meet as one image with a summary, and a
 * visually hidden table with every month's figures in the account's money format.
 */
import { useQuery } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { useDeferredValue } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { LoadingOrError } from '../../components/LoadingOrError';
import { useFormats } from '../../api/account';
import { dates, type Formats } from '../../format';

type Bucket = components['schemas']['DashboardTimeseries']['buckets'][number];

const WIDTH = 720;
const HEIGHT = 220;
const PLOT = { left: 72, right: 8, top: 12, bottom: 44 };

function useMonthlySeries() {
  return useQuery({
    queryKey: keys.dashboard.list({ interval: 'month' }),
    queryFn: async () => {
      // The API's default range: 12 calendar months ending today.
      const { data, error } = await api.GET('/v1/dashboard/timeseries', {
        params: { query: { interval: 'month' } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

/** A round top for the scale (1, 2 or 5 times a power of ten) so grid lines read well. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

function Bars({ buckets, formats }: { buckets: Bucket[]; formats: Formats }) {
  const { i18n } = useTranslation();
  // Month names alone fit under the bars; the table below has the full month and year.
  const monthName = dates(i18n.language, { month: 'short', timeZone: 'UTC' });
  const top = niceMax(Math.max(...buckets.map((b) => Math.max(b.income, b.expense)), 0));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(buckets.length, 1);
  const bar = Math.min(18, slot / 3);
  const y = (amount: number) => PLOT.top + plotHeight - (amount / top) * plotHeight;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => share * top);
  return (
    <>
      {ticks.map((tick) => (
        <g key={tick} className="chart-grid">
          <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(tick)} y2={y(tick)} />
          <text x={PLOT.left - 6} y={y(tick) + 4} textAnchor="end">
            {formats.money(tick)}
          </text>
        </g>
      ))}
      {buckets.map((bucket, index) => {
        const x = PLOT.left + index * slot + slot / 2;
        return (
          <g key={bucket.start}>
            <rect
              className="chart-income"
              x={x - bar - 1}
              y={y(bucket.income)}
              width={bar}
              height={y(0) - y(bucket.income)}
            />
            <rect
              className="chart-expense"
              x={x + 1}
              y={y(bucket.expense)}
              width={bar}
              height={y(0) - y(bucket.expense)}
            />
            <text className="chart-label" x={x} y={HEIGHT - PLOT.bottom + 18} textAnchor="middle">
              {monthName.format(new Date(`${bucket.start}T12:00:00Z`))}
            </text>
            {/* The year under the first month and under each January. */}
            {index === 0 || bucket.start.slice(5, 7) === '01' ? (
              <text className="chart-label" x={x} y={HEIGHT - PLOT.bottom + 34} textAnchor="middle">
                {bucket.start.slice(0, 4)}
              </text>
            ) : null}
          </g>
        );
      })}
    </>
  );
}

function DataTable({ buckets, formats }: { buckets: Bucket[]; formats: Formats }) {
  const { t } = useTranslation();
  return (
    <table className="visually-hidden">
      <caption>{t('cockpit.chartTable')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('cockpit.month')}</th>
          <th scope="col">{t('cockpit.income')}</th>
          <th scope="col">{t('cockpit.expense')}</th>
          <th scope="col">{t('cockpit.net')}</th>
        </tr>
      </thead>
      <tbody>
        {buckets.map((bucket) => (
          <tr key={bucket.start}>
            <th scope="row">{formats.month(bucket.start)}</th>
            <td>{formats.money(bucket.income)}</td>
            <td>{formats.money(bucket.expense)}</td>
            <td>{formats.money(bucket.net)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function IncomeExpenseChart() {
  const { t } = useTranslation();
  const formats = useFormats();
  const series = useMonthlySeries();
  // Drawn in a transition: the chart's render yields to the browser instead of blocking it.
  const data = useDeferredValue(series.data);
  const buckets = data?.buckets ?? [];
  return (
    <section className="cockpit-section" aria-labelledby="cockpit-chart">
      <h2 id="cockpit-chart">{t('cockpit.chartTitle')}</h2>
      {data === undefined ? (
        <LoadingOrError error={series.error} onRetry={() => void series.refetch()} />
      ) : (
        <div className="chart-card">
          <ul className="chart-legend" aria-hidden="true">
            <li className="legend-income">{t('cockpit.income')}</li>
            <li className="legend-expense">{t('cockpit.expense')}</li>
          </ul>
          <svg
            className="chart"
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            role="img"
            aria-label={t('cockpit.chartSummary', {
              from: formats.month(data.from),
              to: formats.month(data.to),
            })}
          >
            <Bars buckets={buckets} formats={formats} />
          </svg>
          <DataTable buckets={buckets} formats={formats} />
        </div>
      )}
    </section>
  );
}
