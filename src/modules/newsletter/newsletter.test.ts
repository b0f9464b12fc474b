import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  email as uniqueEmail,
  mailsTo,
  type Mail,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DAY, ManualClock } from '../../shared/clock.js';
import { sendNewsletter } from './newsletter.service.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t, { email: email('member') });
});
afterAll(async () => {
  // PostgreSQL keeps rows across runs: drop this run's, so later newsletters do not mail them.
  await t.app.ctx.db.deleteFrom('newsletter_subscriptions').where('email', 'in', created).execute();
  await t.close();
});

const created: string[] = [];
/** A unique address, remembered for the cleanup. */
function email(label: string): string {
  const address = uniqueEmail(label);
  created.push(address.toLowerCase());
  return address;
}

/** Counters may live in Redis across runs: every test signs up from its own address. */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const signup = (app: TestApp, payload: unknown, ip = randomIp(), key?: string | null) =>
  app.request({
    method: 'POST',
    url: '/v1/newsletter/signup',
    payload: payload as Record<string, unknown>,
    remoteAddress: ip,
    key,
  });

/** The mail body with quoted-printable soft line breaks unfolded and escapes decoded. */
function body(mail: Mail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The header block with folded lines joined. */
function headers(mail: Mail): string {
  const end = mail.raw.search(/\r?\n\r?\n/);
  return mail.raw.slice(0, end).replace(/\r?\n[ \t]+/g, ' ');
}

function linkIn(mail: Mail, purpose: 'confirm' | 'unsubscribe'): string {
  const m = new RegExp(
    `https?://[^\\s"<>]+/v1/newsletter/${purpose}\\?token=[A-Za-z0-9_.%-]+`,
  ).exec(body(mail));
  if (!m) throw new Error(`no ${purpose} link in mail to ${mail.to}`);
  return m[0];
}

/** The path and query of a mailed link, for inject. */
const pathOf = (link: string) => {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
};
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

const row = (app: TestApp, address: string) =>
  app.app.ctx.db
    .selectFrom('newsletter_subscriptions')
    .selectAll()
    .where('email', '=', address)
    .executeTakeFirst();

const follow = (app: TestApp, url: string, accept?: string, method: 'GET' | 'POST' = 'GET') =>
  app.request({
    method,
    url,
    key: null,
    headers: accept ? { accept } : {},
  });

async function confirmLink(app: TestApp, address: string, nth = 1): Promise<string> {
  const mails = await mailsTo(app, address, nth);
  const mail = mails[nth - 1];
  if (!mail) throw new Error(`no mail ${nth} to ${address}`);
  return linkIn(mail, 'confirm');
}

/** Subscribes `address` through signup and the confirm link. */
async function subscribed(app: TestApp, address: string): Promise<void> {
  expect((await signup(app, { email: address })).statusCode).toBe(202);
  const res = await follow(app, pathOf(await confirmLink(app, address)), 'application/json');
  expect(res.statusCode).toBe(200);
}

const settle = () => new Promise((r) => setTimeout(r, 300));

describe('newsletter: signup and confirmation', () => {
  it('answers 202 with the same body for new, pending and subscribed addresses', async () => {
    const fresh = email('fresh');
    const pending = email('pending');
    const already = email('already');
    expect((await signup(t, { email: pending })).statusCode).toBe(202);
    await mailsTo(t, pending, 1);
    await subscribed(t, already);

    const answers = await Promise.all(
      [fresh, pending, already].map((e) => signup(t, { email: e })),
    );
    for (const res of answers) expect(res.statusCode).toBe(202);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(answers[0]!.json()).toEqual({
      status: 'confirmation_sent',
      message: expect.any(String),
    });

    await mailsTo(t, fresh, 1);
    await mailsTo(t, pending, 2);
    await settle();
    // A subscribed address gets no further mail; the others get a confirm link.
    expect(await mailsTo(t, already, 2, 0)).toHaveLength(1);
    expect(await mailsTo(t, pending, 3, 0)).toHaveLength(2);
    expect((await row(t, fresh))?.status).toBe('PENDING');
    expect((await row(t, already))?.status).toBe('SUBSCRIBED');
  });

  it('confirms through the mailed link (JSON), and a second click answers the same', async () => {
    const address = email('confirm');
    // Addresses are compared lower-cased.
    await signup(t, { email: address.toUpperCase() });
    const link = await confirmLink(t, address);
    expect(link.startsWith(`${t.app.ctx.config.publicUrl}/v1/newsletter/confirm?token=`)).toBe(
      true,
    );
    expect((await row(t, address))?.status).toBe('PENDING');

    const res = await follow(t, pathOf(link), 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ status: 'subscribed' });
    const r = await row(t, address);
    expect(r).toMatchObject({ status: 'SUBSCRIBED', user_id: null });
    expect(r?.confirmed_at).toEqual(expect.any(String));

    const again = await follow(t, pathOf(link), 'application/json');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ status: 'subscribed' });
  });

  it('answers a self-contained HTML page to a browser', async () => {
    const address = email('html');
    await signup(t, { email: address });
    const link = await confirmLink(t, address);
    const res = await follow(
      t,
      pathOf(link),
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('<!doctype html>');
    expect(res.body).toContain('Subscription confirmed');
    expect(res.body).not.toMatch(/<(script|link|img)\b|src=|href=/i);
    expect((await row(t, address))?.status).toBe('SUBSCRIBED');
  });

  it('answers HTML without an Accept header and JSON when JSON is preferred', async () => {
    const a = email('noaccept');
    await signup(t, { email: a });
    const link = pathOf(await confirmLink(t, a));
    expect((await follow(t, link)).headers['content-type']).toMatch(/^text\/html/);
    const json = await follow(t, link, 'text/html;q=0.5, application/json');
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });

  it('mails a fresh link when a pending or unsubscribed address signs up again', async () => {
    const address = email('again');
    await subscribed(t, address);
    const { token } = await ownToken(address);
    await t.request({
      method: 'PATCH',
      url: '/v1/me/newsletter-subscription',
      token,
      payload: { subscribed: false },
    });
    expect((await row(t, address))?.status).toBe('UNSUBSCRIBED');
    await signup(t, { email: address });
    const link = await confirmLink(t, address, 2);
    expect((await row(t, address))?.status).toBe('PENDING');
    await follow(t, pathOf(link), 'application/json');
    expect((await row(t, address))?.status).toBe('SUBSCRIBED');
  });
});

/** A user whose email is `address`, for the PATCH tests. */
async function ownToken(address: string): Promise<TestUser> {
  return createUser(t, { email: address });
}

describe('newsletter: invalid links change nothing', () => {
  const tamper = (token: string, part: 0 | 1) => {
    const parts = token.split('.');
    const s = parts[part]!;
    const i = Math.floor(s.length / 2);
    parts[part] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    return parts.join('.');
  };

  async function pending(app: TestApp) {
    const address = email('bad');
    await signup(app, { email: address });
    const token = tokenOf(await confirmLink(app, address));
    return { address, token, before: await row(app, address) };
  }

  async function refused(app: TestApp, url: string, address: string, before: unknown) {
    const res = await follow(app, url, 'application/json');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 400, code: 'link_invalid' });
    const html = await follow(app, url, 'text/html');
    expect(html.statusCode).toBe(400);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain('Invalid or expired link');
    expect(await row(app, address)).toEqual(before);
  }

  it('refuses a token with a changed payload or signature', async () => {
    const { address, token, before } = await pending(t);
    for (const bad of [tamper(token, 0), tamper(token, 1), `${token}x`, token.split('.')[0]!])
      await refused(t, `/v1/newsletter/confirm?token=${encodeURIComponent(bad)}`, address, before);
  });

  it('does not act on a HEAD request (link checkers)', async () => {
    const { address, token, before } = await pending(t);
    const res = await t.request({
      method: 'HEAD',
      url: `/v1/newsletter/confirm?token=${token}`,
      key: null,
    });
    expect(res.statusCode).toBe(405);
    expect(await row(t, address)).toEqual(before);
  });

  it('refuses a missing or garbled token, as a page too', async () => {
    const { address, before } = await pending(t);
    await refused(t, '/v1/newsletter/confirm', address, before);
    await refused(t, '/v1/newsletter/confirm?token=%3Cscript%3E', address, before);
    await refused(t, '/v1/newsletter/unsubscribe?token=a.b', address, before);
  });

  it('refuses an unsubscribe token on the confirm link and the other way round', async () => {
    const address = email('purpose');
    await subscribed(t, address);
    await t.request({
      method: 'PATCH',
      url: '/v1/me/newsletter-subscription',
      token: (await ownToken(address)).token,
      payload: { subscribed: false },
    });
    await signup(t, { email: address });
    const confirm = tokenOf(await confirmLink(t, address, 2));
    expect((await row(t, address))?.status).toBe('PENDING');
    // An unsubscribe token for the same subscription, as a newsletter would carry it.
    await t.app.ctx.db
      .updateTable('newsletter_subscriptions')
      .set({ status: 'SUBSCRIBED' })
      .where('email', '=', address)
      .execute();
    await sendNewsletter(t.app.ctx, { subject: `Issue for ${address}`, text: 'Hello' });
    const issue = (await mailsTo(t, address, 3)).find((m) => m.subject.startsWith('Issue'))!;
    const unsubscribe = tokenOf(linkIn(issue, 'unsubscribe'));
    const before = await row(t, address);
    await refused(t, `/v1/newsletter/confirm?token=${unsubscribe}`, address, before);
    await refused(t, `/v1/newsletter/unsubscribe?token=${confirm}`, address, before);
  });

  it('refuses an expired confirm link', async () => {
    const clock = new ManualClock();
    const app = await buildTestApp({ clock });
    try {
      const { address, token, before } = await pending(app);
      clock.advance(8 * DAY);
      await refused(app, `/v1/newsletter/confirm?token=${token}`, address, before);
      expect(before?.status).toBe('PENDING');
    } finally {
      await app.close();
    }
  });

  it('refuses a genuine link whose subscription no longer exists', async () => {
    const { address, token, before } = await pending(t);
    expect(before).toBeDefined();
    await t.app.ctx.db
      .deleteFrom('newsletter_subscriptions')
      .where('email', '=', address)
      .execute();
    const res = await follow(t, `/v1/newsletter/confirm?token=${token}`, 'application/json');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('link_invalid');
    expect(await row(t, address)).toBeUndefined();
  });
});

describe('newsletter: unsubscribe links', () => {
  async function issueTo(address: string): Promise<string> {
    await subscribed(t, address);
    await sendNewsletter(t.app.ctx, { subject: 'Kontor news', text: 'What is new.' });
    const mails = await mailsTo(t, address, 2);
    return linkIn(
      mails.find((m) => m.subject === 'Kontor news')!,
      'unsubscribe',
    );
  }

  it('unsubscribes by GET, idempotently', async () => {
    const address = email('unsub');
    const link = await issueTo(address);
    const res = await follow(t, pathOf(link), 'application/json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'unsubscribed' });
    const r = await row(t, address);
    expect(r?.status).toBe('UNSUBSCRIBED');
    expect(r?.unsubscribed_at).toEqual(expect.any(String));

    const html = await follow(t, pathOf(link));
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('Unsubscribed');
    expect((await row(t, address))?.version).toBe(r?.version);
  });

  it('unsubscribes by the RFC 8058 one-click POST', async () => {
    const address = email('oneclick');
    const link = await issueTo(address);
    const res = await t.request({
      method: 'POST',
      url: pathOf(link),
      key: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    expect((await row(t, address))?.status).toBe('UNSUBSCRIBED');
  });

  it('keeps the form parser inside the newsletter scope', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/newsletter/signup',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${email('form')}`,
      remoteAddress: randomIp(),
    });
    expect(res.statusCode).toBe(415);
  });
});

describe('newsletter: PATCH /v1/me/newsletter-subscription', () => {
  const patch = (payload: unknown, token: string | undefined = user.token) =>
    t.request({
      method: 'PATCH',
      url: '/v1/me/newsletter-subscription',
      token,
      payload: payload as Record<string, unknown>,
    });

  it('subscribes the caller at once and unsubscribes again, with audit events', async () => {
    const audits = await auditCount(t, user.accountId);
    const on = await patch({ subscribed: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toEqual({ email: user.email, subscribed: true, status: 'SUBSCRIBED' });
    expect(await row(t, user.email)).toMatchObject({ status: 'SUBSCRIBED', user_id: user.userId });
    expect(await mailsTo(t, user.email, 1, 0)).toHaveLength(0);

    const off = await patch({ subscribed: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ email: user.email, subscribed: false, status: 'UNSUBSCRIBED' });
    expect((await row(t, user.email))?.status).toBe('UNSUBSCRIBED');

    expect(await auditCount(t, user.accountId)).toBe(audits + 2);
    const actions = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_id'])
      .where('account_id', '=', user.accountId)
      .where('resource_type', '=', 'newsletter_subscription')
      .orderBy('seq')
      .execute();
    expect(actions).toEqual([
      { action: 'newsletter.subscribed', actor_id: user.userId },
      { action: 'newsletter.unsubscribed', actor_id: user.userId },
    ]);
  });

  it('takes over a pending signup of the same address and links the user', async () => {
    const address = email('takeover');
    await signup(t, { email: address });
    await mailsTo(t, address, 1);
    const owner = await ownToken(address);
    const res = await patch({ subscribed: true }, owner.token);
    expect(res.json()).toMatchObject({ subscribed: true, status: 'SUBSCRIBED' });
    expect(await row(t, address)).toMatchObject({ status: 'SUBSCRIBED', user_id: owner.userId });
  });

  it('answers 401 without a token and 400 on a wrong type or unknown field', async () => {
    const anon = await t.request({
      method: 'PATCH',
      url: '/v1/me/newsletter-subscription',
      payload: { subscribed: true },
    });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().code).toBe('token_invalid');

    const wrong = await patch({ subscribed: 'yes' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/subscribed', code: 'wrong_type' }),
    );
    const unknown = await patch({ subscribed: true, email: 'x@example.com' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/email', code: 'unknown_field' }),
    );
    const missing = await patch({});
    expect(missing.statusCode).toBe(400);
  });
});

describe('newsletter: signup validation and throttling', () => {
  it('answers 400 on a bad email or an unknown field and 401 without an api key', async () => {
    const bad = await signup(t, { email: 'not-an-email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/email', code: 'invalid_format' }),
    );
    const unknown = await signup(t, { email: email('x'), name: 'X' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/name', code: 'unknown_field' }),
    );
    const anon = await signup(t, { email: email('x') }, randomIp(), null);
    expect(anon.statusCode).toBe(401);
    expect(anon.json().code).toBe('api_key_invalid');
  });

  it('mails an address at most 3 times an hour, silently', async () => {
    const address = email('throttle');
    const answers = [];
    for (let i = 0; i < 4; i++) {
      answers.push(await signup(t, { email: address }));
      await mailsTo(t, address, Math.min(i + 1, 3));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([202, 202, 202, 202]);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    await settle();
    expect(await mailsTo(t, address, 4, 0)).toHaveLength(3);
  });

  it('answers 429 with Retry-After past 20 signups an hour from one IP', async () => {
    const ip = randomIp();
    for (let i = 0; i < 20; i++)
      expect((await signup(t, { email: email('ip') }, ip)).statusCode).toBe(202);
    const address = email('ip-refused');
    const res = await signup(t, { email: address }, ip);
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).not.toContain(address);
    // Another IP is unaffected.
    expect((await signup(t, { email: address })).statusCode).toBe(202);
  });
});

describe('sendNewsletter', () => {
  it('mails only SUBSCRIBED addresses, each with one-click List-Unsubscribe headers', async () => {
    const app = await buildTestApp();
    try {
      const yes = email('yes');
      const pendingAddress = email('pend');
      const gone = email('gone');
      await subscribed(app, yes);
      await subscribed(app, gone);
      await signup(app, { email: pendingAddress });
      await mailsTo(app, pendingAddress, 1);
      await app.app.ctx.db
        .updateTable('newsletter_subscriptions')
        .set({ status: 'UNSUBSCRIBED' })
        .where('email', '=', gone)
        .execute();

      const before = await app.app.ctx.db
        .selectFrom('newsletter_subscriptions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'SUBSCRIBED')
        .executeTakeFirstOrThrow();
      const { sent } = await sendNewsletter(app.app.ctx, {
        subject: 'Kontor monthly',
        text: 'Dear reader,\nthis is the news.',
      });
      // PostgreSQL keeps other runs' subscribers; SQLite starts empty.
      expect(sent).toBe(Number(before.n));
      expect(sent).toBeGreaterThanOrEqual(1);

      const issues = (addr: string) =>
        mailsTo(app, addr, 1, 0).then((ms) => ms.filter((m) => m.subject === 'Kontor monthly'));
      expect(await issues(pendingAddress)).toHaveLength(0);
      expect(await issues(gone)).toHaveLength(0);
      const [issue] = await issues(yes);
      expect(issue).toBeDefined();
      const head = headers(issue!);
      const link = linkIn(issue!, 'unsubscribe');
      expect(head).toContain(`List-Unsubscribe: <${link}>`);
      expect(head).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      expect(body(issue!)).toContain('this is the news.');

      const res = await follow(app, pathOf(link), 'application/json');
      expect(res.json()).toEqual({ status: 'unsubscribed' });
      expect((await row(app, yes))?.status).toBe('UNSUBSCRIBED');
    } finally {
      await app.close();
    }
  });
});
