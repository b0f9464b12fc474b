import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';

/**
 * Dunning over HTTP (issue 14): settings, dry runs that propose the next level with fee and
 * interest, runs that make FINAL letters from the system templates and mail them, levels
 * recorded once however often a run repeats, and what is never dunned (paid, cancelled,
 * blocked invoices and partners).
 */

const TODAY = '2026-06-30';
let t: TestApp;
let user: TestUser;
let clock: ManualClock;

const billingEmail = 'buchhaltung@schuldner.example';

type Letter = Body & {
  invoiceId: string;
  level: number;
  kind: string;
  openAmount: number;
  fee: number;
  interest: number;
  flatFee: number;
  total: number;
  documentId: string | null;
};
type Run = { dryRun: boolean; date: string; letters: Letter[]; problems: Body[] };
type Doc = Body & {
  id: string;
  version: number;
  dunningLevel: number;
  lastDunnedAt: string | null;
  openAmount: number | null;
};

const run = (body: Body, u: TestUser = user) =>
  call<Run>(t, u, 'POST', '/v1/dunning/runs', body, 200);

async function partner(body: Body = {}): Promise<string> {
  return (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Schuldner GmbH',
      addresses: [billingAddress(billingEmail)],
      ...body,
    })
  ).id;
}

/** A FINAL invoice over EUR 1,190.00 (1,000 net + 19 % VAT), due on `dueDate`. */
const invoice = (partnerId: string, dueDate: string) =>
  finalInvoice<Doc>(t, user, partnerId, dueDate);

const letterFor = (r: Run, invoiceId: string) => r.letters.find((l) => l.invoiceId === invoiceId);

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({ clock });
  user = await createUser(t);
});
afterAll(async () => {
  // The letters' render and send jobs run here: on a shared PostgreSQL another test file's app
  // would otherwise run them and find their mails in its outbox.
  await t.app.ctx.jobs.drain();
  await t.close();
});

describe('dunning settings', () => {
  it('answers the defaults until saved, then saves conditionally (admins only)', async () => {
    const defaults = await call<Body & { levels: Body[] }>(t, user, 'GET', '/v1/dunning/settings');
    expect(defaults).toMatchObject({ enabled: false, flatFee: true, paymentDays: 10, version: 0 });
    expect(defaults.levels.map((l) => l.kind)).toEqual([
      'PAYMENT_REMINDER',
      'DUNNING',
      'DUNNING',
      'DUNNING',
    ]);
    const other = await createUser(t);
    const saved = await call<Body>(t, other, 'PUT', '/v1/dunning/settings', {
      version: 0,
      paymentDays: 7,
    });
    expect(saved).toMatchObject({ paymentDays: 7, version: 1, enabled: false });
    await call(t, other, 'PUT', '/v1/dunning/settings', { version: 0, paymentDays: 8 }, 409);
    const stale = await t.request({
      method: 'PUT',
      url: '/v1/dunning/settings',
      token: other.token,
      headers: { 'if-match': '"5"' },
      payload: { paymentDays: 8 },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ currentVersion: 1 });
    // A payment reminder can only come first.
    const bad = await call<Body>(
      t,
      other,
      'PUT',
      '/v1/dunning/settings',
      {
        levels: [
          { kind: 'DUNNING', daysAfter: 7, fee: 0, defaultInterest: true },
          { kind: 'PAYMENT_REMINDER', daysAfter: 7, fee: 0, defaultInterest: false },
        ],
      },
      400,
    );
    expect(JSON.stringify(bad)).toContain('/body/levels/1/kind');
    const member = await createUser(t, { role: 'user', accountId: other.accountId });
    await call(t, member, 'PUT', '/v1/dunning/settings', { paymentDays: 9 }, 403);
  });
});

describe('dunning runs', () => {
  let debtor: string;
  let overdue: Doc;
  let notYet: Doc;

  beforeAll(async () => {
    debtor = await partner();
    overdue = await invoice(debtor, '2026-06-01');
    notYet = await invoice(debtor, '2026-06-28');
  });

  it('proposes a payment reminder for an invoice 7 days past due and writes nothing', async () => {
    const before = await auditCount(t, user.accountId);
    const proposed = await run({ dryRun: true });
    expect(proposed).toMatchObject({ dryRun: true, date: TODAY, problems: [] });
    expect(letterFor(proposed, overdue.id)).toMatchObject({
      level: 1,
      kind: 'PAYMENT_REMINDER',
      openAmount: 1190,
      fee: 0,
      interest: 0,
      flatFee: 0,
      total: 1190,
      payBy: '2026-07-10',
      daysOverdue: 29,
      documentId: null,
    });
    expect(letterFor(proposed, notYet.id)).toBeUndefined();
    expect(await auditCount(t, user.accountId)).toBe(before);
  });

  it('makes letters only as of today; other days are for dry runs', async () => {
    for (const date of ['2026-07-01', '2026-06-29']) {
      const refused = await call<Body>(t, user, 'POST', '/v1/dunning/runs', { date }, 422);
      expect(JSON.stringify(refused)).toContain('/body/date');
    }
    const ahead = await run({ dryRun: true, date: '2026-07-10' });
    expect(letterFor(ahead, notYet.id)).toMatchObject({ level: 1 });
  });

  it('makes the letter as a FINAL document, records the level once and mails it', async () => {
    const made = await run({});
    const letter = letterFor(made, overdue.id)!;
    expect(letter).toMatchObject({ level: 1, sendQueued: true });
    expect(letter.documentId).toMatch(/^doc_/);
    const doc = await call<Doc>(t, user, 'GET', `/v1/documents/${letter.documentId}`);
    expect(doc).toMatchObject({
      documentType: 'DUNNING',
      status: 'FINAL',
      source: 'GENERATED',
      partnerId: debtor,
      creationDate: TODAY,
    });
    expect(doc.name).toContain('Zahlungserinnerung');
    const inv = await call<Doc>(t, user, 'GET', `/v1/documents/${overdue.id}`);
    expect(inv).toMatchObject({ dunningLevel: 1, lastDunnedAt: TODAY });
    // A repeated run the same day sends nothing twice.
    expect(letterFor(await run({}), overdue.id)).toBeUndefined();
    await t.app.ctx.jobs.drain();
    const mails = await mailsTo(t, billingEmail, 1);
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.at(-1)!.raw).toContain('application/pdf');
    const sent = await call<Doc>(t, user, 'GET', `/v1/documents/${letter.documentId}`);
    expect(sent.sentAt).not.toBeNull();
    expect(sent.fileId).toMatch(/^fil_/);
    expect(sent.pageCount).toBe(1);
    expect(sent.pdfSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('moves to the first dunning letter 14 days later, with default interest for a consumer', async () => {
    // Day 14 after the reminder: the debtor is in default since the reminder's receipt.
    const proposed = await run({ dryRun: true, date: '2026-07-14' });
    const next = letterFor(proposed, overdue.id)!;
    expect(next).toMatchObject({ level: 2, kind: 'DUNNING', fee: 2.5, flatFee: 0 });
    // 1,190.00 × (1.27 + 5) % × 14 days (1 July to 14 July) / 365 = 2.86.
    expect(next.interest).toBe(2.86);
    expect(next.interestRate).toBe(6.27);
    expect(next.total).toBe(1190 + 2.5 + 2.86);
  });

  it('claims 9 points and the EUR 40 flat fee (topping up the fees) from a business', async () => {
    const business = await partner({ name: 'Firma AG', consumer: false });
    const inv = await invoice(business, '2026-05-01');
    // 60 days past due: first a reminder.
    await run({});
    const proposed = await run({ dryRun: true, date: '2026-07-14' });
    const next = letterFor(proposed, inv.id)!;
    expect(next).toMatchObject({ level: 2, kind: 'DUNNING', fee: 2.5, flatFee: 37.5 });
    // In default from 1 June (30 days after the due date, §286 (3) BGB) to 14 July:
    // 1,190.00 × ((1.27 + 9) % × 44 days) / 365 = 14.73.
    expect(next.interest).toBe(14.73);
    expect(next.interestRate).toBe(10.27);
  });

  it('counts partial payments and never duns paid, cancelled or blocked invoices', async () => {
    const p = await partner({ name: 'Teilzahler KG' });
    const partly = await invoice(p, '2026-06-01');
    const paid = await invoice(p, '2026-06-01');
    const cancelled = await invoice(p, '2026-06-01');
    const blocked = await invoice(p, '2026-06-01');
    // Recorded by hand, without a status: settled, so it counts against the claim.
    const pay = (documentId: string, amount: number) =>
      call(t, user, 'POST', '/v1/payments', {
        direction: 'INCOMING',
        documentId,
        amount,
        currency: 'EUR',
        paymentDate: '2026-06-10',
      });
    await pay(partly.id, 190);
    await pay(paid.id, 1190);
    await call(t, user, 'POST', `/v1/documents/${cancelled.id}/cancel`, {});
    const b = await call<Doc>(t, user, 'PUT', `/v1/documents/${blocked.id}/dunning-block`, {
      blocked: true,
    });
    expect(b).toMatchObject({ dunningBlocked: true, version: blocked.version + 1 });
    const proposed = await run({ dryRun: true });
    expect(letterFor(proposed, partly.id)).toMatchObject({ openAmount: 1000, total: 1000 });
    for (const id of [paid.id, cancelled.id, blocked.id])
      expect(letterFor(proposed, id)).toBeUndefined();
    // The invoices' own answers say the same open amounts.
    for (const [id, open] of [
      [partly.id, 1000],
      [paid.id, 0],
      [cancelled.id, 0],
      [blocked.id, 1190],
    ] as const)
      expect((await call<Doc>(t, user, 'GET', `/v1/documents/${id}`)).openAmount, id).toBe(open);
    // Lifting the block makes it due again.
    await call(t, user, 'PUT', `/v1/documents/${blocked.id}/dunning-block`, { blocked: false });
    expect(letterFor(await run({ dryRun: true }), blocked.id)).toMatchObject({ level: 1 });
  });

  it('claims what is left after a partial credit note, and nothing once it is credited in full', async () => {
    const p = await partner({ name: 'Gutschrift GmbH' });
    const partly = await invoice(p, '2026-06-01');
    await call(t, user, 'POST', `/v1/documents/${partly.id}/credit-notes`, {
      lineItems: [{ description: 'Beratung', quantity: 2, unitPrice: 100 }],
    });
    // 1,190.00 less the credit note's 238.00.
    expect(letterFor(await run({ dryRun: true }), partly.id)).toMatchObject({
      openAmount: 952,
      total: 952,
    });
    const listed = await call<{ data: Doc[] }>(t, user, 'GET', `/v1/documents?partnerId=${p}`);
    expect(listed.data.find((d) => d.id === partly.id)?.openAmount).toBe(952);
    // The credit note itself owes nothing: it has no open amount.
    expect(listed.data.find((d) => d.id !== partly.id)?.openAmount).toBeNull();
    await call(t, user, 'POST', `/v1/documents/${partly.id}/credit-notes`, {
      lineItems: [{ description: 'Beratung', quantity: 8, unitPrice: 100 }],
    });
    expect(letterFor(await run({ dryRun: true }), partly.id)).toBeUndefined();
  });

  it('skips every invoice of a partner blocked from dunning', async () => {
    const p = await partner({ name: 'Gesperrt GmbH', dunningBlocked: true });
    const inv = await invoice(p, '2026-06-01');
    expect(letterFor(await run({ dryRun: true }), inv.id)).toBeUndefined();
    const got = await call<Body>(t, user, 'GET', `/v1/partners/${p}`);
    expect(got).toMatchObject({ dunningBlocked: true, consumer: null });
  });

  it('blocks only the caller’s own invoices, conditionally on the version read', async () => {
    const inv = await invoice(await partner({ name: 'Mandant GmbH' }), '2026-06-01');
    const stranger = await createUser(t);
    await call(t, stranger, 'PUT', `/v1/documents/${inv.id}/dunning-block`, { blocked: true }, 404);
    const stale = await t.request({
      method: 'PUT',
      url: `/v1/documents/${inv.id}/dunning-block`,
      token: user.token,
      headers: { 'if-match': `"${inv.version + 5}"` },
      payload: { blocked: true },
    });
    expect(stale.statusCode).toBe(412);
    await call(
      t,
      user,
      'PUT',
      `/v1/documents/${inv.id}/dunning-block`,
      { blocked: true, wrong: 1 },
      400,
    );
    const unchanged = await call<Doc>(t, user, 'GET', `/v1/documents/${inv.id}`);
    expect(unchanged).toMatchObject({ dunningBlocked: false, version: inv.version });
  });

  it('refuses to block anything but an invoice', async () => {
    const letters = await call<{ data: Doc[] }>(
      t,
      user,
      'GET',
      '/v1/documents?documentType=DUNNING',
    );
    expect(letters.data.length).toBeGreaterThan(0);
    const refused = await call<Body>(
      t,
      user,
      'PUT',
      `/v1/documents/${letters.data[0]!.id}/dunning-block`,
      { blocked: true },
      422,
    );
    expect(refused).toMatchObject({ code: 'business_rule_violated' });
  });

  it('sends only the chosen letters when a run names its invoices', async () => {
    const p = await partner({ name: 'Auswahl GmbH' });
    const chosen = await invoice(p, '2026-06-01');
    const left = await invoice(p, '2026-06-01');
    const notDue = await invoice(p, '2026-06-28');
    const stranger = await createUser(t);
    const strangers = await finalInvoice<Doc>(
      t,
      stranger,
      (
        await call<{ id: string }>(t, stranger, 'POST', '/v1/partners', {
          name: 'Fremd GmbH',
          addresses: [billingAddress('fremd@schuldner.example')],
        })
      ).id,
      '2026-06-01',
    );
    const ids = [chosen.id, notDue.id, strangers.id, 'doc_unknown'];
    // The dry run proposes the chosen invoice only; what is not due is simply not there.
    const proposed = await run({ dryRun: true, invoiceIds: ids });
    expect(proposed.letters.map((l) => l.invoiceId)).toEqual([chosen.id]);
    expect(proposed.problems).toEqual([]);
    const made = await run({ invoiceIds: ids });
    expect(made.letters.map((l) => l.invoiceId)).toEqual([chosen.id]);
    expect(made.letters[0]).toMatchObject({ level: 1, sendQueued: true });
    const level = async (u: TestUser, id: string) =>
      (await call<Doc>(t, u, 'GET', `/v1/documents/${id}`)).dunningLevel;
    expect(await level(user, chosen.id)).toBe(1);
    expect(await level(user, left.id)).toBe(0);
    expect(await level(user, notDue.id)).toBe(0);
    // Another account's invoice is never touched, though it is due in its own account.
    expect(await level(stranger, strangers.id)).toBe(0);
    // The left-out invoice stays due for the next run.
    expect(letterFor(await run({ dryRun: true }), left.id)).toMatchObject({ level: 1 });
  });

  it('refuses a malformed list of invoices', async () => {
    for (const [invoiceIds, code] of [
      [[], 'too_few'],
      [['doc_a', 'doc_a'], 'duplicate_items'],
      [['x'.repeat(65)], 'too_long'],
      [Array.from({ length: 1001 }, (_, i) => `doc_${i}`), 'too_many'],
    ] as const) {
      const refused = await call<Body>(
        t,
        user,
        'POST',
        '/v1/dunning/runs',
        { dryRun: true, invoiceIds },
        400,
      );
      expect(JSON.stringify(refused), code).toContain(code);
      expect(JSON.stringify(refused)).toContain('/body/invoiceIds');
    }
  });

  it('makes one letter per level when two runs race', async () => {
    const p = await partner({ name: 'Parallel GmbH' });
    const inv = await invoice(p, '2026-06-01');
    const [a, b] = await Promise.all([run({}), run({})]);
    const letters = [a, b].map((r) => letterFor(r, inv.id)).filter(Boolean);
    expect(letters).toHaveLength(1);
    const got = await call<Doc>(t, user, 'GET', `/v1/documents/${inv.id}`);
    expect(got.dunningLevel).toBe(1);
  });

  it('fits the longest letter on one page: a last notice with interest, fees and flat fee', async () => {
    const other = await createUser(t);
    await call(t, other, 'PUT', '/v1/dunning/settings', {
      levels: [{ kind: 'DUNNING', daysAfter: 7, fee: 2.5, defaultInterest: true }],
    });
    const p = (
      await call<{ id: string }>(t, other, 'POST', '/v1/partners', {
        name: 'Langer Firmenname Handels- und Beteiligungsgesellschaft mbH & Co. KG',
        consumer: false,
        addresses: [billingAddress('lang@schuldner.example')],
      })
    ).id;
    const inv = await finalInvoice<Doc>(t, other, p, '2026-04-01');
    await call(t, other, 'POST', '/v1/payments', {
      direction: 'INCOMING',
      documentId: inv.id,
      amount: 190,
      currency: 'EUR',
      paymentDate: '2026-04-10',
      status: 'MARKED',
    });
    const letter = letterFor(await run({}, other), inv.id)!;
    expect(letter).toMatchObject({ kind: 'DUNNING', openAmount: 1000, flatFee: 37.5 });
    expect(letter.interest).toBeGreaterThan(0);
    await t.app.ctx.jobs.drain();
    const doc = await call<Doc>(t, other, 'GET', `/v1/documents/${letter.documentId}`);
    expect(doc).toMatchObject({ name: 'Letzte Mahnung zur Rechnung 2026-0001', pageCount: 1 });
  });

  it('skips a letter whose invoice is paid or blocked between the run’s read and the letter', async () => {
    const p = await partner({ name: 'Zwischendurch GmbH' });
    const paidMeanwhile = await invoice(p, '2026-06-01');
    const blockedMeanwhile = await invoice(p, '2026-06-01');
    const { DunningRuns } = await import('./dunning.service.js');
    const runs = new DunningRuns(t.app.ctx);
    // After the run read its page and computed the letters, before it makes them:
    const hooked = runs as unknown as { claims: (...args: unknown[]) => Promise<unknown> };
    const claims = hooked.claims.bind(runs);
    hooked.claims = async (...args) => {
      const out = await claims(...args);
      await call(t, user, 'POST', '/v1/payments', {
        direction: 'INCOMING',
        documentId: paidMeanwhile.id,
        amount: 1190,
        currency: 'EUR',
        paymentDate: TODAY,
        status: 'MARKED',
      });
      await call(t, user, 'PUT', `/v1/documents/${blockedMeanwhile.id}/dunning-block`, {
        blocked: true,
      });
      hooked.claims = claims;
      return out;
    };
    const result = await runs.runFor(
      {
        accountId: user.accountId,
        userId: user.userId,
        tokenId: null,
        type: 'user',
        requestId: null,
        ip: null,
      },
      {},
    );
    for (const id of [paidMeanwhile.id, blockedMeanwhile.id]) {
      expect(letterFor(result, id)).toBeUndefined();
      expect((await call<Doc>(t, user, 'GET', `/v1/documents/${id}`)).dunningLevel).toBe(0);
    }
  });

  it('writes a run in chunks, each re-checked under lock: one paid meanwhile is skipped', async () => {
    const other = await createUser(t);
    const p = (
      await call<{ id: string }>(t, other, 'POST', '/v1/partners', {
        name: 'Stückweise GmbH',
        addresses: [billingAddress('stueck@schuldner.example')],
      })
    ).id;
    const invoices: Doc[] = [];
    for (let i = 0; i < 5; i++) invoices.push(await finalInvoice<Doc>(t, other, p, '2026-06-01'));
    const { DunningRuns } = await import('./dunning.service.js');
    const chunks: string[][] = [];
    let paid: string | undefined;
    // Chunks of 2: three transactions. In the second, after its invoices were read and their
    // letters computed, one of them is paid in full before the chunk's transaction.
    const runs = new DunningRuns(t.app.ctx, {
      chunk: 2,
      beforeWrite: async (ids) => {
        chunks.push(ids);
        if (chunks.length !== 2) return;
        paid = ids[1]!;
        await call(t, other, 'POST', '/v1/payments', {
          direction: 'INCOMING',
          documentId: paid,
          amount: 1190,
          currency: 'EUR',
          paymentDate: TODAY,
          status: 'MARKED',
        });
      },
    });
    const actor = {
      accountId: other.accountId,
      userId: other.userId,
      tokenId: null,
      type: 'user' as const,
      requestId: null,
      ip: null,
    };
    const result = await runs.runFor(actor, {});
    expect(chunks.map((c) => c.length)).toEqual([2, 2, 1]);
    expect(chunks.flat().sort()).toEqual(invoices.map((i) => i.id).sort());
    expect(result.problems).toEqual([]);
    expect(result.letters.map((l) => l.invoiceId).sort()).toEqual(
      invoices
        .map((i) => i.id)
        .filter((id) => id !== paid)
        .sort(),
    );
    for (const inv of invoices) {
      const doc = await call<Doc>(t, other, 'GET', `/v1/documents/${inv.id}`);
      expect(doc.dunningLevel).toBe(inv.id === paid ? 0 : 1);
    }
    for (const letter of result.letters) {
      const made = await call<Doc & { status: string; documentType: string }>(
        t,
        other,
        'GET',
        `/v1/documents/${letter.documentId}`,
      );
      expect([made.status, made.documentType]).toEqual(['FINAL', 'DUNNING']);
    }
    // Run again the same day, chunked the same way: every level is taken, nothing is made.
    const again = await runs.runFor(actor, {});
    expect(again.letters).toEqual([]);
  });

  it('runs by itself once a day when the account enables it', async () => {
    const other = await createUser(t);
    const p = (
      await call<{ id: string }>(t, other, 'POST', '/v1/partners', {
        name: 'Automatik GmbH',
        addresses: [billingAddress('auto@schuldner.example')],
      })
    ).id;
    const inv = await finalInvoice<Doc>(t, other, p, '2026-06-01');
    const { DunningRuns } = await import('./dunning.service.js');
    const runs = new DunningRuns(t.app.ctx);
    expect((await runs.runScheduled()).letters).toBe(0);
    await call(t, other, 'PUT', '/v1/dunning/settings', { enabled: true });
    const first = await runs.runScheduled();
    expect(first.accounts).toBeGreaterThanOrEqual(1);
    expect((await call<Doc>(t, other, 'GET', `/v1/documents/${inv.id}`)).dunningLevel).toBe(1);
    // Once a day: the second tick that day claims no account.
    expect((await runs.runScheduled()).accounts).toBe(0);
  });
});
