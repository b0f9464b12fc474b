import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleAudit } from '../../shared/audit.js';
import {
  PASSWORD,
  buildTestApp,
  codeFor,
  createUser,
  email,
  mailsTo,
  type Mail,
  type TestApp,
} from '../../../test/helpers.js';
import {
  NEW_PASSWORD,
  authPoster,
  fakeIp,
  problem,
  withoutRequestId,
  type Opts,
  type Tokens,
} from './auth.test-support.js';
import { MINUTE, ManualClock } from '../../shared/clock.js';
import { FailureThrottle } from './throttle.js';

const IP = fakeIp();
const redis = Boolean(process.env.REDIS_URL);

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const post = authPoster(() => t, IP);

const partners = (token: string) => t.request({ method: 'GET', url: '/v1/partners', token });
const login = (address: string, password = PASSWORD, opts: Opts = {}) =>
  post('login', { email: address, password }, opts);
/** Another 6-digit code than `code`. */
const otherCode = (code: string, n = 1) => String((Number(code) + n) % 1_000_000).padStart(6, '0');

/** The reset-code mails to `address`, waiting up to `timeoutMs` for at least `count`. */
async function resetMails(address: string, count = 1, timeoutMs = 3000): Promise<Mail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = (await mailsTo(t, address, 0, 0)).filter((m) =>
      m.subject.startsWith('Your Kontor password reset code'),
    );
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A 429 `rate_limited` problem with a Retry-After of at most an hour. */
function expectMailLimited(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(problem(res)).toMatchObject({ status: 429, code: 'rate_limited' });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3600);
}

const registration = (address: string) => ({
  email: address,
  password: PASSWORD,
  name: 'Flo Oder',
  companyName: 'Flood GmbH',
});

describe('auth: mail flooding', () => {
  it('3 registration mails per address and hour, from any client; then 429 with Retry-After', async () => {
    const address = email('flood');
    for (let i = 1; i <= 3; i++) {
      expect((await post('register', registration(address), { ip: fakeIp() })).statusCode).toBe(
        202,
      );
      // Registrations racing for one new address end in one; wait for each one's mail.
      expect(await mailsTo(t, address, i)).toHaveLength(i);
    }
    expectMailLimited(await post('register', registration(address), { ip: fakeIp() }));
    expect(await mailsTo(t, address, 4, 300)).toHaveLength(3);
    // A confirmed address is capped the same way: the 429 tells nothing about it.
    const known = await createUser(t);
    for (let i = 0; i < 3; i++)
      expect((await post('register', registration(known.email), { ip: fakeIp() })).statusCode).toBe(
        202,
      );
    expectMailLimited(await post('register', registration(known.email), { ip: fakeIp() }));
  });

  it('30 auth mails per client and hour; other clients are unaffected', async () => {
    const ip = fakeIp();
    for (let i = 0; i < 15; i++) {
      expect((await post('register', registration(email('spray')), { ip })).statusCode).toBe(202);
      expect((await post('forgot-password', { email: email('spray') }, { ip })).statusCode).toBe(
        202,
      );
    }
    expectMailLimited(await post('register', registration(email('spray')), { ip }));
    expectMailLimited(await post('forgot-password', { email: email('spray') }, { ip }));
    const elsewhere = await post('register', registration(email('fine')), { ip: fakeIp() });
    expect(elsewhere.statusCode).toBe(202);
  });
});

describe('auth: password recovery', () => {
  it('forgot-password answers byte-identically; only a known email gets a code', async () => {
    const user = await createUser(t);
    const unknown = email('ghost');
    const known = await post('forgot-password', { email: user.email });
    const ghost = await post('forgot-password', { email: unknown });
    expect(known.statusCode).toBe(202);
    expect(ghost.statusCode).toBe(202);
    expect(ghost.body).toBe(known.body);
    expect(ghost.headers['content-type']).toBe(known.headers['content-type']);
    expect(known.json()).toEqual({
      status: 'reset_code_sent',
      message: expect.stringContaining('POST /v1/auth/reset-password'),
    });

    const mails = await resetMails(user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^Your Kontor password reset code: \d{6}$/);
    expect(await mailsTo(t, unknown, 1, 300)).toHaveLength(0);
  });

  it('records the issued reset code in the audit trail, without the code', async () => {
    const user = await createUser(t);
    await post('forgot-password', { email: user.email });
    expect(await resetMails(user.email)).toHaveLength(1);
    // The code is issued in the background; PostgreSQL chains its event just after.
    await settleAudit(t.app.ctx.db);
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .where('action', '=', 'user.password_reset_requested')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor_type: 'system',
      resource_id: user.userId,
      ip: IP,
      changes: '{}',
    });
  });

  it('reset-password sets the password, ends every session, and the code works once', async () => {
    const user = await createUser(t);
    const session = (await login(user.email)).json<Tokens>();
    expect((await partners(session.accessToken)).statusCode).toBe(200);

    expect((await post('forgot-password', { email: user.email })).statusCode).toBe(202);
    const code = await codeFor(t, user.email);
    const res = await post('reset-password', {
      email: user.email,
      code,
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'password_reset' });

    const old = await login(user.email);
    expect(old.statusCode).toBe(401);
    expect(problem(old).code).toBe('invalid_credentials');
    const fresh = await login(user.email, NEW_PASSWORD);
    expect(fresh.statusCode).toBe(200);

    // The session from before the reset is gone, at once (it was cached).
    const stale = await partners(session.accessToken);
    expect(stale.statusCode).toBe(401);
    expect(problem(stale).code).toBe('token_invalid');
    const staleRefresh = await post('refresh', { refreshToken: session.refreshToken });
    expect(staleRefresh.statusCode).toBe(401);

    const again = await post('reset-password', {
      email: user.email,
      code,
      newPassword: 'yet another passphrase 99',
    });
    expect(again.statusCode).toBe(400);
    expect(problem(again).code).toBe('code_invalid');
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(200);

    const events = await t.request({
      method: 'GET',
      url: '/v1/audit-events?action=user.password_reset',
      token: fresh.json<Tokens>().accessToken,
    });
    expect(events.json<{ data: unknown[] }>().data).toHaveLength(1);
  });

  it('a reset revokes the personal API tokens too, unless asked to keep them', async () => {
    const user = await createUser(t);
    const other = await createUser(t, { accountId: user.accountId, role: 'user' });
    expect((await partners(user.token)).statusCode).toBe(200);
    // Cached before the reset, so the revocation must reach the cache as well.
    await post('forgot-password', { email: user.email }, { ip: fakeIp() });
    const res = await post('reset-password', {
      email: user.email,
      code: await codeFor(t, user.email),
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(200);
    const stale = await partners(user.token);
    expect(stale.statusCode).toBe(401);
    expect(problem(stale).code).toBe('token_invalid');
    expect((await partners(other.token)).statusCode).toBe(200);
    const session = (await login(user.email, NEW_PASSWORD)).json<Tokens>();
    const events = await t.request({
      method: 'GET',
      url: `/v1/audit-events?action=api_token.deleted`,
      token: session.accessToken,
    });
    expect(events.json<{ data: { resourceId: string; changes: unknown }[] }>().data).toEqual([
      expect.objectContaining({
        resourceId: user.tokenId,
        changes: expect.objectContaining({ reason: 'password_reset' }),
      }),
    ]);

    // `revokeApiTokens: false` keeps them; the sessions still end.
    await post('forgot-password', { email: other.email }, { ip: fakeIp() });
    const keep = await post('reset-password', {
      email: other.email,
      code: await codeFor(t, other.email),
      newPassword: NEW_PASSWORD,
      revokeApiTokens: false,
    });
    expect(keep.statusCode).toBe(200);
    expect((await partners(other.token)).statusCode).toBe(200);
  });

  it('a wrong code and an unknown email get the same 400 code_invalid', async () => {
    const user = await createUser(t);
    await post('forgot-password', { email: user.email });
    const code = await codeFor(t, user.email);
    const wrong = await post('reset-password', {
      email: user.email,
      code: otherCode(code),
      newPassword: NEW_PASSWORD,
    });
    const unknown = await post('reset-password', {
      email: email('ghost'),
      code,
      newPassword: NEW_PASSWORD,
    });
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(400);
      expect(problem(res).code).toBe('code_invalid');
      expect(withoutRequestId(problem(res))).toEqual(withoutRequestId(problem(wrong)));
    }
    // One wrong guess does not spend the code; the password is unchanged meanwhile.
    expect((await login(user.email)).statusCode).toBe(200);
    const ok = await post('reset-password', {
      email: user.email,
      code,
      newPassword: NEW_PASSWORD,
    });
    expect(ok.statusCode).toBe(200);
  });

  it('only the newest reset code works', async () => {
    const user = await createUser(t);
    await post('forgot-password', { email: user.email });
    const first = await codeFor(t, user.email, 1);
    await post('forgot-password', { email: user.email });
    const second = await codeFor(t, user.email, 2);
    if (first !== second) {
      const old = await post('reset-password', {
        email: user.email,
        code: first,
        newPassword: NEW_PASSWORD,
      });
      expect(problem(old).code).toBe('code_invalid');
    }
    const res = await post('reset-password', {
      email: user.email,
      code: second,
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(200);
  });

  it('mails at most 3 reset codes per address and hour; the 4th asks to wait, known or not', async () => {
    const user = await createUser(t);
    const ghost = email('ghost');
    for (const address of [user.email, ghost]) {
      const bodies = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const res = await post('forgot-password', { email: address }, { ip: fakeIp() });
        expect(res.statusCode).toBe(202);
        bodies.add(res.body);
      }
      expect(bodies.size).toBe(1);
      expectMailLimited(await post('forgot-password', { email: address }, { ip: fakeIp() }));
    }
    expect(await resetMails(user.email, 3)).toHaveLength(3);
    expect(await resetMails(user.email, 4, 300)).toHaveLength(3);
  });

  it('an invitation code sets the invitee’s first password through reset-password', async () => {
    const admin = await createUser(t);
    const invitee = email('invitee');
    const invited = await t.request({
      method: 'POST',
      url: '/v1/users',
      token: admin.token,
      payload: { email: invitee, name: 'Bob' },
    });
    expect(invited.statusCode).toBe(201);
    const mail = (await mailsTo(t, invitee))[0]!;
    const code = /invitation code is (\d{6})/.exec(mail.raw)?.[1];
    expect(code).toBeDefined();

    expect((await login(invitee)).statusCode).toBe(401);
    const res = await post('reset-password', {
      email: invitee,
      code: code!,
      newPassword: NEW_PASSWORD,
    });
    expect(res.statusCode).toBe(200);
    const tokens = (await login(invitee, NEW_PASSWORD)).json<Tokens>();
    expect(tokens.user).toMatchObject({ email: invitee, role: 'user', status: 'ACTIVE' });
  });
});

describe('auth: codes', () => {
  async function registerUnconfirmed(): Promise<{ address: string; code: string }> {
    const address = email('code');
    const res = await post('register', {
      email: address,
      password: PASSWORD,
      name: 'Cody',
      companyName: 'Code GmbH',
    });
    expect(res.statusCode).toBe(202);
    return { address, code: await codeFor(t, address) };
  }

  it('a confirmation code survives 4 wrong guesses', async () => {
    const { address, code } = await registerUnconfirmed();
    for (let i = 1; i <= 4; i++) {
      const res = await post('confirm', { email: address, code: otherCode(code, i) });
      expect(res.statusCode).toBe(400);
      expect(problem(res).code).toBe('code_invalid');
    }
    expect((await post('confirm', { email: address, code })).statusCode).toBe(200);
  });

  it('a confirmation code allows 5 wrong guesses, then it is spent', async () => {
    const ip = fakeIp();
    const { address, code } = await registerUnconfirmed();
    for (let i = 1; i <= 5; i++) {
      const res = await post('confirm', { email: address, code: otherCode(code, i) }, { ip });
      expect(res.statusCode).toBe(400);
      expect(problem(res).code).toBe('code_invalid');
    }
    // The email is throttled now (5 failures) ...
    const throttled = await post('confirm', { email: address, code }, { ip });
    expect(throttled.statusCode).toBe(429);
    expect(problem(throttled).code).toBe('rate_limited');
    // ... and once that window is over, the code itself is still spent.
    await new FailureThrottle(t.app.ctx.counters, 'code').succeed(address, ip);
    const spent = await post('confirm', { email: address, code }, { ip });
    expect(spent.statusCode).toBe(400);
    expect(problem(spent).code).toBe('code_invalid');

    // Registering again mails a fresh code, which works.
    await post('register', {
      email: address,
      password: PASSWORD,
      name: 'Cody',
      companyName: 'Code GmbH',
    });
    const fresh = await codeFor(t, address, 2);
    expect((await post('confirm', { email: address, code: fresh })).statusCode).toBe(200);
  });

  it('a reset code is spent after 5 wrong guesses too', async () => {
    const ip = fakeIp();
    const user = await createUser(t);
    await post('forgot-password', { email: user.email });
    const code = await codeFor(t, user.email);
    for (let i = 1; i <= 5; i++) {
      const res = await post(
        'reset-password',
        {
          email: user.email,
          code: otherCode(code, i),
          newPassword: NEW_PASSWORD,
        },
        { ip },
      );
      expect(problem(res).code).toBe('code_invalid');
    }
    await new FailureThrottle(t.app.ctx.counters, 'code').succeed(user.email, ip);
    const spent = await post(
      'reset-password',
      { email: user.email, code, newPassword: NEW_PASSWORD },
      { ip },
    );
    expect(spent.statusCode).toBe(400);
    expect(problem(spent).code).toBe('code_invalid');
    expect((await login(user.email)).statusCode).toBe(200);
  });
});

describe('auth: throttling', () => {
  function expectThrottled(res: LightMyRequestResponse): number {
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(problem(res)).toMatchObject({ status: 429, code: 'rate_limited' });
    const retryAfter = String(res.headers['retry-after']);
    expect(retryAfter).toMatch(/^[1-9]\d*$/);
    expect(Number(retryAfter)).toBeLessThanOrEqual(24 * 60 * 60);
    return Number(retryAfter);
  }

  it('5 failed logins block that client for the email, even with the right password', async () => {
    const ip = fakeIp();
    const user = await createUser(t);
    const bystander = await createUser(t);
    for (let i = 0; i < 5; i++) {
      const res = await login(user.email, NEW_PASSWORD, { ip });
      expect(res.statusCode).toBe(401);
    }
    expectThrottled(await login(user.email, PASSWORD, { ip }));
    // Other accounts, from the same client, sign in as usual.
    expect((await login(bystander.email, PASSWORD, { ip })).statusCode).toBe(200);
  });

  it('an attacker cannot lock the owner out: the owner signs in from another client', async () => {
    const attacker = fakeIp();
    const owner = fakeIp();
    const user = await createUser(t);
    for (let i = 0; i < 5; i++)
      expect((await login(user.email, NEW_PASSWORD, { ip: attacker })).statusCode).toBe(401);
    expectThrottled(await login(user.email, NEW_PASSWORD, { ip: attacker }));
    expect((await login(user.email, PASSWORD, { ip: owner })).statusCode).toBe(200);
    // The owner's success does not lift the attacker's block.
    expectThrottled(await login(user.email, PASSWORD, { ip: attacker }));
  });

  it('unknown emails are throttled the same way, revealing nothing', async () => {
    const ip = fakeIp();
    const ghost = email('ghost');
    for (let i = 0; i < 5; i++) expect((await login(ghost, PASSWORD, { ip })).statusCode).toBe(401);
    expectThrottled(await login(ghost, PASSWORD, { ip }));
  });

  it('a successful login clears the email’s failures', async () => {
    const ip = fakeIp();
    const user = await createUser(t);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++)
        expect((await login(user.email, NEW_PASSWORD, { ip })).statusCode).toBe(401);
      expect((await login(user.email, PASSWORD, { ip })).statusCode).toBe(200);
    }
  });

  it('30 failed logins from one address block it for every email; other addresses are fine', async () => {
    const ip = fakeIp();
    for (let i = 0; i < 30; i++) {
      const res = await login(email('spray'), PASSWORD, { ip });
      expect(res.statusCode).toBe(401);
    }
    const user = await createUser(t);
    expectThrottled(await login(user.email, PASSWORD, { ip }));
    expect((await login(user.email, PASSWORD, { ip: fakeIp() })).statusCode).toBe(200);
  });

  it('30 failed code checks from one address block it', async () => {
    const ip = fakeIp();
    for (let i = 0; i < 30; i++) {
      const res = await post('confirm', { email: email('spray'), code: '000000' }, { ip });
      expect(res.statusCode).toBe(400);
    }
    expectThrottled(await post('confirm', { email: email('spray'), code: '000000' }, { ip }));
    const reset = await post(
      'reset-password',
      { email: email('spray'), code: '000000', newPassword: NEW_PASSWORD },
      { ip },
    );
    expectThrottled(reset);
  });

  // Redis counts in real time; only the in-memory store follows the injected clock.
  it.skipIf(redis)('the window ends after 15 minutes (in-memory counters)', async () => {
    const clock = new ManualClock();
    const app = await buildTestApp({ clock });
    try {
      const ip = fakeIp();
      const user = await createUser(app);
      for (let i = 0; i < 5; i++)
        expect((await login(user.email, NEW_PASSWORD, { app, ip })).statusCode).toBe(401);
      expect(expectThrottled(await login(user.email, PASSWORD, { app, ip }))).toBe(900);
      clock.advance(10 * MINUTE);
      expect(expectThrottled(await login(user.email, PASSWORD, { app, ip }))).toBe(300);
      clock.advance(6 * MINUTE);
      expect((await login(user.email, PASSWORD, { app, ip })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it.skipIf(redis)('each further block of a client for an email lasts twice as long', async () => {
    const clock = new ManualClock();
    const app = await buildTestApp({ clock });
    try {
      const ip = fakeIp();
      const user = await createUser(app);
      const blockFor = async () => {
        for (let i = 0; i < 5; i++)
          expect((await login(user.email, NEW_PASSWORD, { app, ip })).statusCode).toBe(401);
        return expectThrottled(await login(user.email, PASSWORD, { app, ip }));
      };
      expect(await blockFor()).toBe(15 * 60);
      clock.advance(15 * MINUTE + 1000);
      expect(await blockFor()).toBe(30 * 60);
      clock.advance(30 * MINUTE + 1000);
      expect(await blockFor()).toBe(60 * 60);
      clock.advance(60 * MINUTE + 1000);
      // A success ends the backoff for that client.
      expect((await login(user.email, PASSWORD, { app, ip })).statusCode).toBe(200);
      expect(await blockFor()).toBe(15 * 60);
    } finally {
      await app.close();
    }
  });
});
