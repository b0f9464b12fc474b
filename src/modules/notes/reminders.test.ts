import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  email,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DAY, ManualClock, MINUTE } from '../../shared/clock.js';
import { isoDate } from '../../shared/dates.js';
import { addDays } from '../contracts/contract-terms.js';
import { newContract, newPartner } from '../contracts/contracts.test-support.js';
import { runReminders, startReminderScheduler } from './reminders.job.js';

let clock: ManualClock;
let t: TestApp;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-03-10T09:00:00Z'));
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

type Body = Record<string, unknown>;
const today = () => isoDate(clock.now());

/** Exactly the mails to `to` in the outbox (waits briefly for one more, which must not come). */
async function mailCount(app: TestApp, to: string, expected: number): Promise<number> {
  return (await mailsTo(app, to, expected + 1, 150)).length;
}

async function patchSettings(owner: TestUser, changes: Body): Promise<void> {
  const settings = (
    await t.request({ method: 'GET', url: '/v1/account/addresses', token: owner.token })
  ).json<{ version: number }>();
  const res = await t.request({
    method: 'PATCH',
    url: '/v1/account/addresses',
    token: owner.token,
    payload: { version: settings.version, ...changes },
  });
  if (res.statusCode !== 200) throw new Error(`settings not saved: ${res.body}`);
}

/** A new account with its own reminder address (or none) and a partner. */
async function setup(
  settings: Body = {},
): Promise<{ owner: TestUser; partnerId: string; inbox: string }> {
  const owner = await createUser(t);
  const inbox = email('reminders');
  await patchSettings(owner, { reminderEmail: inbox, ...settings });
  const partnerId = (await newPartner(t, owner, { name: 'Stadtwerke' })).id;
  return { owner, partnerId, inbox };
}

async function newReminder(
  owner: TestUser,
  partnerId: string,
  extra: Body,
): Promise<{ id: string; version: number }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/notes',
    token: owner.token,
    payload: {
      parentType: 'PARTNER',
      parentId: partnerId,
      type: 'REMINDER',
      title: 'Renew insurance',
      content: 'Compare offers first.',
      ...extra,
    },
  });
  if (res.statusCode !== 201) throw new Error(`note not created: ${res.body}`);
  return res.json();
}

/** An ACTIVE contract whose cancellation deadline is `deadlineInDays` from today. */
function activeContract(
  owner: TestUser,
  partnerId: string,
  deadlineInDays: number,
  advanced: Body = {},
) {
  return newContract(t, owner, partnerId, {
    name: `Contract ${deadlineInDays}`,
    status: 'ACTIVE',
    startDate: '2025-01-01',
    endDate: addDays(today(), deadlineInDays + 30),
    advanced: { noticePeriodDays: 30, ...advanced },
  });
}

describe('reminders: notes', () => {
  it('mails a due REMINDER once, not before it is due, and not when done', async () => {
    const { owner, partnerId, inbox } = await setup();
    await newReminder(owner, partnerId, { title: 'Later', dueDate: addDays(today(), 2) });
    const done = await newReminder(owner, partnerId, { title: 'Done one', dueDate: today() });
    const put = await t.request({
      method: 'PUT',
      url: `/v1/notes/${done.id}`,
      token: owner.token,
      payload: { version: done.version, done: true },
    });
    expect(put.statusCode).toBe(200);
    // A plain NOTE with a date is not a reminder.
    const plain = await t.request({
      method: 'POST',
      url: '/v1/notes',
      token: owner.token,
      payload: {
        parentType: 'PARTNER',
        parentId: partnerId,
        title: 'Plain',
        content: '',
        dueDate: today(),
      },
    });
    expect(plain.statusCode).toBe(201);

    await runReminders(t.app.ctx);
    expect(await mailCount(t, inbox, 0)).toBe(0);

    clock.advance(2 * DAY);
    const due = today();
    const result = await runReminders(t.app.ctx);
    expect(result.sent).toBeGreaterThanOrEqual(1);
    const mails = await mailsTo(t, inbox, 1);
    expect(mails).toHaveLength(1);
    const [y, m, d] = due.split('-');
    expect(mails[0]!.subject).toBe(`Reminder: Later (due ${d}.${m}.${y})`);
    expect(mails[0]!.raw).toContain('Compare offers first.');

    await runReminders(t.app.ctx);
    clock.advance(DAY);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, inbox, 1)).toBe(1);
  });

  it('mails again when the due date moves, and every active admin without a reminderEmail, in the account’s date format', async () => {
    const owner = await createUser(t);
    const admin2 = await createUser(t, { accountId: owner.accountId });
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    await patchSettings(owner, { dateFormat: 'DD/MM/YYYY' });
    const partnerId = (await newPartner(t, owner)).id;
    const n = await newReminder(owner, partnerId, { title: 'Admins', dueDate: today() });

    await runReminders(t.app.ctx);
    const mails = await mailsTo(t, owner.email, 1);
    expect(mails).toHaveLength(1);
    // One mail addressed to both admins (the To header may fold onto a second line).
    expect(mails[0]!.raw.split('\n\n')[0]).toContain(admin2.email);
    const [y, m, d] = today().split('-');
    expect(mails[0]!.subject).toContain(`${d}/${m}/${y}`);
    expect(await mailCount(t, member.email, 0)).toBe(0);

    const moved = addDays(today(), 1);
    const put = await t.request({
      method: 'PUT',
      url: `/v1/notes/${n.id}`,
      token: owner.token,
      payload: { version: n.version, dueDate: moved },
    });
    expect(put.statusCode).toBe(200);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, owner.email, 1)).toBe(1);
    clock.advance(DAY);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, owner.email, 2)).toBe(2);
  });

  it('takes over a claim older than 10 minutes that was never sent, but not a fresh one', async () => {
    const { owner, partnerId, inbox } = await setup();
    const stale = await newReminder(owner, partnerId, { title: 'Stale claim', dueDate: today() });
    const fresh = await newReminder(owner, partnerId, { title: 'Fresh claim', dueDate: today() });
    const claim = (id: string, agoMs: number) => ({
      kind: 'NOTE',
      subject_id: id,
      due_key: today(),
      account_id: owner.accountId,
      recipient: inbox,
      claimed_at: new Date(clock.now().getTime() - agoMs).toISOString(),
      sent_at: null,
    });
    await t.app.ctx.db
      .insertInto('reminder_deliveries')
      .values([claim(stale.id, 11 * MINUTE), claim(fresh.id, MINUTE)])
      .execute();

    await runReminders(t.app.ctx);
    const mails = await mailsTo(t, inbox, 1);
    expect(mails.map((m) => m.subject)).toEqual([expect.stringContaining('Stale claim')]);
    const rows = await t.app.ctx.db
      .selectFrom('reminder_deliveries')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .orderBy('claimed_at')
      .execute();
    expect(rows.find((r) => r.subject_id === stale.id)?.sent_at).not.toBeNull();
    expect(rows.find((r) => r.subject_id === fresh.id)?.sent_at).toBeNull();

    clock.advance(10 * MINUTE);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, inbox, 2)).toBe(2);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, inbox, 2)).toBe(2);
  });
});

describe('reminders: contract cancellation deadlines', () => {
  it('mails ACTIVE contracts within reminderDaysBefore (default 14) of their deadline, once', async () => {
    const { owner, partnerId, inbox } = await setup();
    await activeContract(owner, partnerId, 10); // in the default 14-day window
    await activeContract(owner, partnerId, 20); // not yet
    await activeContract(owner, partnerId, 25, { reminderDaysBefore: 30 }); // its own window
    await activeContract(owner, partnerId, -1, { reminderDaysBefore: 30 }); // deadline passed
    await newContract(t, owner, partnerId, {
      name: 'Draft',
      endDate: addDays(today(), 35),
      advanced: { noticePeriodDays: 30 },
    }); // DRAFT: not reminded

    await runReminders(t.app.ctx);
    await runReminders(t.app.ctx);
    const mails = await mailsTo(t, inbox, 2);
    expect(mails).toHaveLength(2);
    expect(mails.map((m) => m.subject)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Contract 10'),
        expect.stringContaining('Contract 25'),
      ]),
    );
    const deadline = addDays(today(), 10).split('-');
    expect(mails.find((m) => m.subject.includes('Contract 10'))!.subject).toBe(
      `Cancellation deadline ${deadline[2]}.${deadline[1]}.${deadline[0]}: Contract 10`,
    );
    expect(await mailCount(t, inbox, 2)).toBe(2);

    clock.advance(6 * DAY); // Contract 20 is now 14 days away
    await runReminders(t.app.ctx);
    await runReminders(t.app.ctx);
    expect(await mailCount(t, inbox, 3)).toBe(3);
    expect((await mailsTo(t, inbox, 3)).map((m) => m.subject)).toContainEqual(
      expect.stringContaining('Contract 20'),
    );
  });

  it('honours the contract’s reminderEmail only while the account allows the override', async () => {
    const { owner, partnerId, inbox } = await setup({ allowContractReminderOverride: true });
    const ops = email('ops');
    const ops2 = email('ops2');
    await activeContract(owner, partnerId, 5, { reminderEmail: ops });
    await runReminders(t.app.ctx);
    expect(await mailCount(t, ops, 1)).toBe(1);
    expect(await mailCount(t, inbox, 0)).toBe(0);

    // Created while allowed; the account then withdraws the override: the account address wins.
    await activeContract(owner, partnerId, 6, { reminderEmail: ops2 });
    await patchSettings(owner, { allowContractReminderOverride: false });
    await runReminders(t.app.ctx);
    expect(await mailCount(t, ops2, 0)).toBe(0);
    const mails = await mailsTo(t, inbox, 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('Contract 6');
  });
});

describe('reminders: many schedulers', () => {
  it('two schedulers on one database send each reminder exactly once in total', async () => {
    // A second process on the same database, writing to the same outbox: on PostgreSQL both
    // use the run's DATABASE_URL, on SQLite the second opens the first one's file.
    const db = t.app.ctx.config.database;
    const b = await buildTestApp({
      clock,
      env: {
        DATA_DIR: t.dataDir,
        ...(db.kind === 'sqlite' ? { DATABASE_URL: `sqlite:${db.file}` } : {}),
      },
    });
    try {
      const { owner, partnerId, inbox } = await setup();
      for (let i = 0; i < 6; i++)
        await newReminder(owner, partnerId, { title: `Race ${i}`, dueDate: today() });
      for (let i = 1; i <= 4; i++) await activeContract(owner, partnerId, i);

      let sent = 0;
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all([runReminders(t.app.ctx), runReminders(b.app.ctx)]);
        sent += results.reduce((n, r) => n + r.sent, 0);
      }
      const mails = await mailsTo(t, inbox, 10);
      expect(mails).toHaveLength(10);
      expect(new Set(mails.map((m) => m.subject)).size).toBe(10);
      expect(await mailCount(t, inbox, 10)).toBe(10);
      expect(sent).toBeGreaterThanOrEqual(10);
      const rows = await t.app.ctx.db
        .selectFrom('reminder_deliveries')
        .select(['sent_at'])
        .where('account_id', '=', owner.accountId)
        .execute();
      expect(rows).toHaveLength(10);
      expect(rows.every((r) => r.sent_at !== null)).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('the in-process scheduler runs on its interval and stops cleanly', async () => {
    const { owner, partnerId, inbox } = await setup();
    await newReminder(owner, partnerId, { title: 'Scheduled', dueDate: today() });
    const stop = startReminderScheduler(t.app.ctx, 20);
    try {
      expect(await mailsTo(t, inbox, 1, 5000)).toHaveLength(1);
    } finally {
      await stop();
    }
    expect(await mailCount(t, inbox, 1)).toBe(1);
  });
});
