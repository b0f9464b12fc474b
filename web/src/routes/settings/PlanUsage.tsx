/** The plan and its use: the plans (`GET /v1/plans`, the current one marked) and usage vs limits as bars. */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ErrorAlert, UsageBar, unwrap } from '../../components/AdminKit';
import { formatBytes, formatDate, formatMoney, formatMonth, formatNumber } from '../../format';

export function PlanUsageTab() {
  const { t } = useTranslation();
  const plans = useQuery({
    queryKey: keys.plans.all,
    queryFn: async () => unwrap(await api.GET('/v1/plans')),
  });
  const usage = useQuery({
    queryKey: keys.usage.all,
    queryFn: async () => unwrap(await api.GET('/v1/usage')),
  });
  const of = (used: number, limit: number) =>
    t('settingsAdmin.plan.ofLimit', { used: formatNumber(used), limit: formatNumber(limit) });
  const u = usage.data;
  return (
    <section className="admin-panel" aria-labelledby="plan-title">
      <h2 id="plan-title">{t('settingsAdmin.plan.title')}</h2>
      <ErrorAlert error={plans.error ?? usage.error} />
      {u ? (
        <section aria-labelledby="usage-title">
          <h3 id="usage-title">
            {t('settingsAdmin.plan.usage', { month: formatMonth(u.period.month) })}
          </h3>
          <p className="muted">
            {t('settingsAdmin.plan.resets', { date: formatDate(u.period.resetsAt) })}
          </p>
          <UsageBar
            label={t('settingsAdmin.plan.requestsMonth')}
            used={u.requests.thisMonth.used}
            limit={u.requests.thisMonth.limit}
            text={of(u.requests.thisMonth.used, u.requests.thisMonth.limit)}
          />
          <UsageBar
            label={t('settingsAdmin.plan.requestsMinute')}
            used={u.requests.thisMinute.used}
            limit={u.requests.thisMinute.limit}
            text={of(u.requests.thisMinute.used, u.requests.thisMinute.limit)}
          />
          <UsageBar
            label={t('settingsAdmin.plan.storage')}
            used={u.storage.usedBytes}
            limit={u.storage.limitBytes}
            text={t('settingsAdmin.plan.ofLimit', {
              used: formatBytes(u.storage.usedBytes),
              limit: formatBytes(u.storage.limitBytes),
            })}
          />
          <UsageBar
            label={t('settingsAdmin.plan.seats')}
            used={u.seats.used}
            limit={u.seats.included}
            text={of(u.seats.used, u.seats.included)}
          />
          <UsageBar
            label={t('settingsAdmin.plan.mails')}
            used={u.mailsToday.used}
            limit={u.mailsToday.limit}
            text={of(u.mailsToday.used, u.mailsToday.limit)}
          />
          <p>{t('settingsAdmin.plan.documents', { count: u.documents.count })}</p>
          {u.rateLimits === 'off' ? (
            <p className="muted">{t('settingsAdmin.plan.rateLimitsOff')}</p>
          ) : null}
        </section>
      ) : null}
      {plans.data ? (
        <table className="admin-table">
          <caption>{t('settingsAdmin.plan.plans')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('settingsAdmin.plan.name')}</th>
              <th scope="col" className="num">
                {t('settingsAdmin.plan.price')}
              </th>
              <th scope="col" className="num">
                {t('settingsAdmin.plan.seats')}
              </th>
              <th scope="col" className="num">
                {t('settingsAdmin.plan.requestsMonth')}
              </th>
              <th scope="col" className="num">
                {t('settingsAdmin.plan.storage')}
              </th>
              <th scope="col" className="num">
                {t('settingsAdmin.plan.webhookEndpoints')}
              </th>
            </tr>
          </thead>
          <tbody>
            {plans.data.data.map((plan) => (
              <tr key={plan.id}>
                <th scope="row">
                  {plan.name}{' '}
                  {plan.id === plans.data.currentPlanId ? (
                    <span className="admin-badge">{t('settingsAdmin.plan.current')}</span>
                  ) : null}
                </th>
                <td className="num">{formatMoney(plan.monthlyPrice, plan.currency)}</td>
                <td className="num">{formatNumber(plan.seats)}</td>
                <td className="num">{formatNumber(plan.requestsPerMonth)}</td>
                <td className="num">{formatBytes(plan.storageBytes)}</td>
                <td className="num">{formatNumber(plan.webhookEndpoints)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
