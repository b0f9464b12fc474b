/**
 * What is due soon, as the stats answer it: open reminders (the next five of the coming 30
 * days, and how many are overdue) and contracts whose cancellation deadline is within 60 days.
 * Each entry links to where it is kept: a partner's notes, the contracts.
 */
import { Link } from '@tanstack/react-router';
import type { components } from '@kontor/client';
import { useTranslation } from 'react-i18next';
import { useFormats } from '../../api/account';
import type { Formats } from '../../format';

type Stats = components['schemas']['DashboardStats'];
type Reminder = Stats['reminders']['next'][number];

function ReminderLink({ reminder, formats }: { reminder: Reminder; formats: Formats }) {
  const { t } = useTranslation();
  const text = t('cockpit.reminderItem', {
    title: reminder.title,
    date: formats.date(reminder.dueDate),
  });
  return reminder.parentType === 'PARTNER' ? (
    <Link
      to="/partners/$partnerId"
      params={{ partnerId: reminder.parentId }}
      search={{ tab: 'notes' }}
    >
      {text}
    </Link>
  ) : (
    <Link to="/contracts">{text}</Link>
  );
}

export function Deadlines({ stats }: { stats: Stats }) {
  const { t } = useTranslation();
  const formats = useFormats();
  const { reminders, cancellationDeadlines } = stats;
  return (
    <div className="cockpit-pair">
      <section className="cockpit-section" aria-labelledby="cockpit-reminders">
        <h2 id="cockpit-reminders">{t('cockpit.remindersTitle')}</h2>
        <div className="list-card">
          <p>
            {t('cockpit.remindersCount', { count: reminders.count })}
            {reminders.overdueCount > 0 ? (
              <span className="badge badge-danger">
                {t('cockpit.remindersOverdue', { count: reminders.overdueCount })}
              </span>
            ) : null}
          </p>
          {reminders.next.length > 0 ? (
            <ul>
              {reminders.next.map((reminder) => (
                <li key={reminder.noteId}>
                  <ReminderLink reminder={reminder} formats={formats} />
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </section>
      <section className="cockpit-section" aria-labelledby="cockpit-deadlines">
        <h2 id="cockpit-deadlines">{t('cockpit.deadlinesTitle')}</h2>
        <div className="list-card">
          <p>{t('cockpit.deadlinesCount', { count: cancellationDeadlines.count })}</p>
          {cancellationDeadlines.next.length > 0 ? (
            <ul>
              {cancellationDeadlines.next.map((contract) => (
                <li key={contract.contractId}>
                  <Link to="/contracts">
                    {t('cockpit.deadlineItem', {
                      name: contract.name,
                      partner: contract.partnerName,
                      date: formats.date(contract.cancellationDeadline),
                    })}
                  </Link>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </section>
    </div>
  );
}
