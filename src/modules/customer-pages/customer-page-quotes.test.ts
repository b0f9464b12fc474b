import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  TEST_COMPANY,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DAY, ManualClock } from '../../shared/clock.js';
import { billingAddress, call, type Body } from '../documents/documents.test-support.js';

/**
 * A quote answered on the customer's page (docs/customer-page.md, "Quotes"): accepted or
 * declined through the form, recorded by the documents module with the customer's name and the
 * link in the audit trail, announced by webhook, mailed to the seller after the commit; a second
 * answer and an answer to an expired quote refused with a page; the views on the document.
 */

const TODAY = '2026-06-01';
let t: TestApp;
let clock: ManualClock;

type Doc = Body & {
  id: string;
  documentNumber: string;
  quoteStatus: string | null;
  quoteDecidedBy: string | null;
  customerViews?: { firstViewedAt: string | null; lastViewedAt: string | null; viewCount: number };
};
type Link = Body & { id: string; url: string };

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({
    clock,
    env: {
      PUBLIC_URL: 'https://kontor.example',
      CUSTOMER_PAGE_REQUESTS_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
});
afterAll(async () => {
  await t?.close();
});

async function seller(): Promise<{ user: TestUser; partnerId: string }> {
  const user = await createUser(t);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Kunde GmbH',
    addresses: [billingAddress('einkauf@kunde.example')],
  });
  await call(t, user, 'POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['quote.accepted', 'quote.declined'],
  });
  return { user, partnerId: partner.id };
}

const quote = (user: TestUser, partnerId: string, extra: Body = {}) =>
  call<Doc>(t, user, 'POST', '/v1/documents', {
    documentType: 'QUOTE',
    name: 'Website',
    partnerId,
    creationDate: TODAY,
    status: 'FINAL',
    lineItems: [{ description: 'Konzept', quantity: 1, unitPrice: 500 }],
    ...extra,
  });

const pathOf = (link: Link) => new URL(link.url).pathname;
const csrfOf = (html: string) => /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];

/** Opens the page and answers it through its form. */
async function answer(link: Link, decision: string, name: string, csrf?: string) {
  csrf ??= csrfOf((await t.app.inject({ method: 'GET', url: pathOf(link) })).body);
  return t.app.inject({
    method: 'POST',
    url: `${pathOf(link)}/decision`,
    remoteAddress: '203.0.113.7',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: csrf ?? '', decision, name }).toString(),
  });
}

const events = async (user: TestUser, type: string) =>
  (
    await t.app.ctx.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('account_id', '=', user.accountId)
      .where('event_type', '=', type)
      .execute()
  ).map((r) => (JSON.parse(r.payload) as { data: { id: string; quoteStatus: string } }).data);

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');

describe('a quote answered on its page', () => {
  it('accepts: recorded with name and link, announced, the seller mailed; a second answer is refused', async () => {
    const { user, partnerId } = await seller();
    const q = await quote(user, partnerId);
    const link = await call<Link>(t, user, 'POST', `/v1/documents/${q.id}/customer-links`, {});
    const name = `Erika Kundin ${user.userId}`;
    const csrf = csrfOf((await t.app.inject({ method: 'GET', url: pathOf(link) })).body);
    const res = await answer(link, 'ACCEPTED', name, csrf);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${pathOf(link)}?decided=1`);
    const after = await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`);
    expect(after).toMatchObject({ quoteStatus: 'ACCEPTED', quoteDecidedBy: name });
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['changes', 'actor_type'])
      .where('account_id', '=', user.accountId)
      .where('resource_id', '=', q.id)
      .where('action', '=', 'document.quote_accepted')
      .executeTakeFirstOrThrow();
    const changes = JSON.parse(audit.changes) as Record<string, unknown>;
    expect(changes).toMatchObject({
      via: 'customer',
      source: { customerLinkId: link.id, ip: '203.0.113.7' },
    });
    expect(JSON.stringify(changes)).toContain(name);
    expect((await events(user, 'quote.accepted')).map((d) => d.id)).toEqual([q.id]);
    // The seller's mail, to the company's address, by the job after the commit.
    await t.app.ctx.jobs.drain();
    const mails = (await mailsTo(t, TEST_COMPANY.email!, 1, 10_000)).filter((m) =>
      unfold(m.raw).includes(name),
    );
    expect(mails).toHaveLength(1);
    const raw = unfold(mails[0]!.raw);
    expect(raw).toContain(`Quote ${q.documentNumber} accepted`);
    expect(raw).toContain(`Angebot ${q.documentNumber}`);
    expect(raw).toContain(`${TODAY}T08:00:00.000Z`);
    // The page now says so instead of offering the forms; a second answer is a page, 409.
    const page = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(page.body).toContain('Dieses Angebot wurde angenommen.');
    expect(page.body).not.toContain('/decision"');
    // The same form sent again (a second tab, a double click): refused with a page.
    const again = await answer(link, 'DECLINED', 'Someone Else', csrf);
    expect(again.statusCode).toBe(409);
    expect(again.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(again.body).toContain('Angebot bereits beantwortet');
    expect(again.body).toContain(`href="${pathOf(link)}"`);
    expect((await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).quoteStatus).toBe('ACCEPTED');
    expect(await events(user, 'quote.declined')).toEqual([]);
  });

  it('declines: quote.declined, the seller mailed; a form without the page token does nothing', async () => {
    const { user, partnerId } = await seller();
    const q = await quote(user, partnerId);
    const link = await call<Link>(t, user, 'POST', `/v1/documents/${q.id}/customer-links`, {});
    const forged = await t.app.inject({
      method: 'POST',
      url: `${pathOf(link)}/decision`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf: 'ab', decision: 'DECLINED', name: 'X' }).toString(),
    });
    expect(forged.statusCode).toBe(400);
    const name = `Max Kunde ${user.userId}`;
    expect((await answer(link, 'DECLINED', name)).statusCode).toBe(303);
    expect(await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).toMatchObject({
      quoteStatus: 'DECLINED',
      quoteDecidedBy: name,
    });
    await t.app.ctx.jobs.drain();
    expect((await events(user, 'quote.declined')).map((d) => d.quoteStatus)).toEqual(['DECLINED']);
    const mails = (await mailsTo(t, TEST_COMPANY.email!, 1, 10_000)).filter((m) =>
      unfold(m.raw).includes(name),
    );
    expect(mails).toHaveLength(1);
    expect(unfold(mails[0]!.raw)).toContain(`Quote ${q.documentNumber} declined`);
  });

  it('counts the views on the document read (not on lists, not without a link)', async () => {
    const { user, partnerId } = await seller();
    const q = await quote(user, partnerId);
    expect(await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).not.toHaveProperty(
      'customerViews',
    );
    const link = await call<Link>(t, user, 'POST', `/v1/documents/${q.id}/customer-links`, {});
    expect((await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).customerViews).toEqual({
      firstViewedAt: null,
      lastViewedAt: null,
      viewCount: 0,
    });
    const at = clock.now().toISOString();
    await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect((await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).customerViews).toEqual({
      firstViewedAt: at,
      lastViewedAt: at,
      viewCount: 1,
    });
    const list = await call<{ data: Doc[] }>(t, user, 'GET', '/v1/documents?documentType=QUOTE');
    expect(list.data.find((d) => d.id === q.id)).not.toHaveProperty('customerViews');
  });

  it('refuses an answer to an expired quote with a page and records nothing', async () => {
    const { user, partnerId } = await seller();
    const q = await quote(user, partnerId, { validUntil: '2026-06-02' });
    const link = await call<Link>(t, user, 'POST', `/v1/documents/${q.id}/customer-links`, {});
    // The form as the customer loaded it while the quote was open, sent after it expired.
    const csrf = csrfOf((await t.app.inject({ method: 'GET', url: pathOf(link) })).body);
    expect(csrf).toBeDefined();
    clock.advance(2 * DAY);
    const page = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(page.body).toContain('Dieses Angebot ist abgelaufen');
    expect(page.body).not.toContain('/decision"');
    const res = await answer(link, 'ACCEPTED', 'Zu Spät', csrf);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Angebot bereits beantwortet');
    expect((await call<Doc>(t, user, 'GET', `/v1/documents/${q.id}`)).quoteStatus).not.toBe(
      'ACCEPTED',
    );
    expect(await events(user, 'quote.accepted')).toEqual([]);
  });
});
