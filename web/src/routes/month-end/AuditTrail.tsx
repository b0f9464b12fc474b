/**
 * The audit trail (`GET /v1/audit-events`, admins): newest first, filtered by action,
 * resource type, user and date range — the filters live in the URL — and paged by cursor.
 */
import type { components } from '@kontor/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { validateMonthEndSearch, type MonthEndSearch } from '../../adminSearch';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ErrorAlert, Pager, unwrap, useCursorPages } from '../../components/AdminKit';
import { formatDateTime } from '../../format';

type User = components['schemas']['User'];

/** Common actions to pick from; any other action can be typed. */
const ACTIONS = [
  'document.finalized',
  'document.created',
  'document.sent',
  'document.cancelled',
  'payment.created',
  'partner.created',
  'partner.updated',
  'contract.created',
  'contract.invoiced',
  'user.invited',
  'user.deleted',
  'api_token.created',
  'api_token.deleted',
  'datev_settings.updated',
];

/** A day's start in the browser's time zone, as the date-time the API filters by. */
function startOfDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toISOString();
}

function queryOf(search: MonthEndSearch, cursor: string | undefined) {
  return {
    limit: 25,
    ...(search.action ? { action: search.action } : {}),
    ...(search.resourceType ? { resourceType: search.resourceType } : {}),
    ...(search.actorId ? { actorId: search.actorId } : {}),
    ...(search.from ? { from: startOfDay(search.from) } : {}),
    // "to" includes the chosen day: the API's `to` is exclusive.
    ...(search.to
      ? { to: new Date(new Date(startOfDay(search.to)).getTime() + 86_400_000).toISOString() }
      : {}),
    ...(cursor ? { cursor } : {}),
  };
}

function Filters({ search, users }: { search: MonthEndSearch; users: User[] }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Keyed by the search (below): a changed URL (a link, back, clear) starts the fields anew.
  const [draft, setDraft] = useState<MonthEndSearch>(search);
  const set = (name: keyof MonthEndSearch) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [name]: e.target.value }));
  return (
    <form
      className="admin-grid"
      role="search"
      aria-label={t('monthEnd.auditFilters')}
      onSubmit={(event) => {
        event.preventDefault();
        void navigate({ to: '/month-end', search: validateMonthEndSearch({ ...draft }) });
      }}
    >
      <div className="field">
        <label htmlFor="audit-action">{t('monthEnd.action')}</label>
        <input
          id="audit-action"
          list="audit-actions"
          value={draft.action ?? ''}
          onChange={set('action')}
        />
        <datalist id="audit-actions">
          {ACTIONS.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
      </div>
      <div className="field">
        <label htmlFor="audit-resource">{t('monthEnd.resourceType')}</label>
        <input
          id="audit-resource"
          value={draft.resourceType ?? ''}
          onChange={set('resourceType')}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-user">{t('monthEnd.user')}</label>
        <select id="audit-user" value={draft.actorId ?? ''} onChange={set('actorId')}>
          <option value="">{t('monthEnd.anyUser')}</option>
          {users.map((user) => (
            <option key={user.id} value={user.id}>
              {user.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-from">{t('monthEnd.from')}</label>
        <input id="audit-from" type="date" value={draft.from ?? ''} onChange={set('from')} />
      </div>
      <div className="field">
        <label htmlFor="audit-to">{t('monthEnd.to')}</label>
        <input id="audit-to" type="date" value={draft.to ?? ''} onChange={set('to')} />
      </div>
      <div className="admin-actions">
        <button type="submit" className="button">
          {t('monthEnd.applyFilters')}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void navigate({ to: '/month-end', search: {} })}
        >
          {t('monthEnd.clearFilters')}
        </button>
      </div>
    </form>
  );
}

export function AuditTrailPanel({ search }: { search: MonthEndSearch }) {
  const { t } = useTranslation();
  const pages = useCursorPages();
  const { reset } = pages;
  const searchKey = JSON.stringify(search);
  // Another filter starts at the first page.
  useEffect(() => reset(), [searchKey, reset]);
  const users = useQuery({
    queryKey: keys.users.list({ limit: 100 }),
    queryFn: async () => unwrap(await api.GET('/v1/users', { params: { query: { limit: 100 } } })),
  });
  const events = useQuery({
    queryKey: keys.auditEvents.list({ ...search, cursor: pages.cursor }),
    placeholderData: keepPreviousData,
    queryFn: async () =>
      unwrap(
        await api.GET('/v1/audit-events', { params: { query: queryOf(search, pages.cursor) } }),
      ),
  });
  const nameOf = (id: string | null, type: string) =>
    type === 'system'
      ? t('monthEnd.system')
      : (users.data?.data.find((u) => u.id === id)?.name ?? id ?? '–');

  return (
    <section className="admin-panel" aria-labelledby="audit-title">
      <h2 id="audit-title">{t('monthEnd.auditTitle')}</h2>
      <Filters key={searchKey} search={search} users={users.data?.data ?? []} />
      <ErrorAlert error={events.error} />
      {events.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {events.data?.data.length === 0 ? <p>{t('monthEnd.noEvents')}</p> : null}
      {events.data && events.data.data.length > 0 ? (
        <table className="admin-table">
          <caption>{t('monthEnd.auditCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('monthEnd.time')}</th>
              <th scope="col">{t('monthEnd.action')}</th>
              <th scope="col">{t('monthEnd.resource')}</th>
              <th scope="col">{t('monthEnd.user')}</th>
            </tr>
          </thead>
          <tbody>
            {events.data.data.map((event) => (
              <tr key={event.id}>
                <td>{formatDateTime(event.occurredAt)}</td>
                <td>{event.action}</td>
                <td>
                  {event.resourceType} <span className="muted">{event.resourceId}</span>
                </td>
                <td>{nameOf(event.actor.userId, event.actor.type)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager
        hasPrevious={pages.hasPrevious}
        nextCursor={events.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </section>
  );
}
