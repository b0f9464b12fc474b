import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  buildTestApp,
  codeFor,
  createUser,
  email,
  mailsTo,
  type TestApp,
} from '../../../test/helpers.js';
import {
  NEW_PASSWORD,
  authPoster,
  fakeIp,
  problem,
  withoutRequestId,
  type Body,
  type Opts,
  type Tokens,
} from './auth.test-support.js';
import { DAY, MINUTE, ManualClock } from '../../shared/clock.js';
import { AuthService } from './auth.service.js';
import { PasswordRecoveryService } from './password-recovery.service.js';

interface AuditEvent {
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { type: string; userId: string | null };
  changes: Record<string, unknown>;
}

const IP = fakeIp();

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const post = authPoster(() => t, IP);

const partners = (token: string, app = t) =>
  app.request({ method: 'GET', url: '/v1/partners', token });

async function register(address: string, app = t): Promise<LightMyRequestResponse> {
  const res = await post(
    'register',
    { email: address, password: PASSWORD, name: 'Ada Lovelace', companyName: 'Analytical GmbH' },
    // Each from its own client: the file registers more than a client's hourly mail cap.
    { app, ip: fakeIp() },
  );
  expect(res.statusCode).toBe(202);
  return res;
}

/** Registers and confirms a fresh account over HTTP; answers its email. */
async function signUp(app = t): Promise<string> {
  const address = email('auth');
  await register(address, app);
  const code = await codeFor(app, address);
  const res = await post('confirm', { email: address, code }, { app });
  expect(res.statusCode).toBe(200);
  return address;
}

async function login(address: string, opts: Opts & { password?: string } = {}): Promise<Tokens> {
  const res = await post('login', { email: address, password: opts.password ?? PASSWORD }, opts);
  expect(res.statusCode).toBe(200);
  return res.json<Tokens>();
}

async function auditEvents(token: string, action: string): Promise<AuditEvent[]> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/audit-events?action=${action}`,
    token,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: AuditEvent[] }>().data;
}

describe('auth: sign-up and sign-in', () => {
  it('registers, mails a code, confirms, signs in, and the access token works', async () => {
    const address = email('happy');
    const reg = await register(address);
    expect(reg.json()).toEqual({
      status: 'confirmation_sent',
      message: expect.stringContaining('POST /v1/auth/confirm'),
    });
    expect(reg.headers['x-request-id']).toBeTruthy();

    const mails = await mailsTo(t, address);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^Your Kontor confirmation code: \d{6}$/);
    const code = await codeFor(t, address);

    const confirmed = await post('confirm', { email: address, code });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toEqual({ status: 'confirmed' });

    const before = Date.now();
    const res = await post('login', { email: address, password: PASSWORD });
    expect(res.statusCode).toBe(200);
    const tokens = res.json<Tokens>();
    expect(tokens).toEqual({
      accessToken: expect.stringMatching(/^kat_[0-9A-Za-z]{40}$/),
      refreshToken: expect.stringMatching(/^krt_[0-9A-Za-z]{40}$/),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshExpiresAt: expect.any(String),
      user: expect.objectContaining({
        email: address,
        name: 'Ada Lovelace',
        role: 'admin',
        status: 'ACTIVE',
      }),
      account: { id: expect.stringMatching(/^acc/), name: 'Analytical GmbH' },
    });
    const refreshExpires = Date.parse(tokens.refreshExpiresAt);
    expect(refreshExpires).toBeGreaterThanOrEqual(before + 30 * DAY - MINUTE);
    expect(refreshExpires).toBeLessThanOrEqual(Date.now() + 30 * DAY + MINUTE);
    expect(JSON.stringify(tokens)).not.toMatch(/argon2|password/i);

    const list = await partners(tokens.accessToken);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ data: [] });
  });

  it('answers a second registration of a confirmed email exactly like a new one', async () => {
    const address = await signUp();
    const fresh = await register(email('fresh'));
    const again = await post('register', {
      email: address,
      password: NEW_PASSWORD,
      name: 'Mallory',
      companyName: 'Takeover Ltd',
    });
    expect(again.statusCode).toBe(202);
    expect(again.body).toBe(fresh.body);
    expect(again.headers['content-type']).toBe(fresh.headers['content-type']);

    // The owner learns of it by mail; no code, and nothing about the account changes.
    const mails = await mailsTo(t, address, 2);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toBe('Someone tried to register with your email');
    expect(mails[1]!.raw).not.toMatch(/\b\d{6}\b/);
    const wrong = await post('login', { email: address, password: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(401);
    const tokens = await login(address);
    expect(tokens.account.name).toBe('Analytical GmbH');
    expect(tokens.user.name).toBe('Ada Lovelace');
  });

  it('a second registration of an unconfirmed email mails a fresh code and retires the old', async () => {
    const address = email('again');
    await register(address);
    const first = await codeFor(t, address, 1);
    await register(address);
    const second = await codeFor(t, address, 2);
    if (first !== second) {
      const old = await post('confirm', { email: address, code: first });
      expect(old.statusCode).toBe(400);
      expect(problem(old).code).toBe('code_invalid');
    }
    const res = await post('confirm', { email: address, code: second });
    expect(res.statusCode).toBe(200);
    // Spent: a confirmed address cannot be confirmed again.
    const twice = await post('confirm', { email: address, code: second });
    expect(twice.statusCode).toBe(400);
    expect(problem(twice).code).toBe('code_invalid');
  });

  it('before confirmation: 403 email_not_confirmed with the right password, 401 otherwise', async () => {
    const address = email('unconfirmed');
    await register(address);
    await codeFor(t, address); // the account exists once its code is mailed
    const right = await post('login', { email: address, password: PASSWORD });
    expect(right.statusCode).toBe(403);
    expect(problem(right)).toMatchObject({ status: 403, code: 'email_not_confirmed' });
    expect(right.headers['content-type']).toContain('application/problem+json');
    const wrong = await post('login', { email: address, password: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(401);
    expect(problem(wrong).code).toBe('invalid_credentials');
  });

  it('an unknown email and a wrong password get the same answer', async () => {
    const address = await signUp();
    const wrongPassword = await post('login', { email: address, password: NEW_PASSWORD });
    const unknownEmail = await post('login', { email: email('nobody'), password: PASSWORD });
    const tooShort = await post('login', { email: address, password: 'x' });
    for (const res of [wrongPassword, unknownEmail, tooShort]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toBe(wrongPassword.headers['content-type']);
      expect(withoutRequestId(problem(res))).toEqual(withoutRequestId(problem(wrongPassword)));
    }
    expect(problem(wrongPassword)).toMatchObject({
      code: 'invalid_credentials',
      detail: 'The email or password is wrong.',
    });
  });

  it('treats the email case-insensitively', async () => {
    const address = email('case');
    const shouting = address.toUpperCase();
    await register(shouting);
    const code = await codeFor(t, address);
    expect((await post('confirm', { email: shouting, code })).statusCode).toBe(200);
    const tokens = await login(`${address.slice(0, 3).toUpperCase()}${address.slice(3)}`);
    expect(tokens.user.email).toBe(address);
    // The same address in other letters is the same account: no second registration.
    const again = await post('register', {
      email: address,
      password: PASSWORD,
      name: 'Ada',
      companyName: 'Other GmbH',
    });
    expect(again.statusCode).toBe(202);
    expect((await mailsTo(t, address, 2)).at(-1)?.subject).toBe(
      'Someone tried to register with your email',
    );
  });

  it('audits registration, confirmation and sign-in, without secrets', async () => {
    const address = await signUp();
    const tokens = await login(address, { ip: '10.200.1.2' });
    const created = await auditEvents(tokens.accessToken, 'account.created');
    expect(created).toEqual([
      expect.objectContaining({
        resourceType: 'account',
        resourceId: tokens.account.id,
        changes: { name: 'Analytical GmbH' },
      }),
    ]);
    const registered = await auditEvents(tokens.accessToken, 'user.registered');
    expect(registered).toEqual([
      expect.objectContaining({
        resourceType: 'user',
        resourceId: tokens.user.id,
        actor: expect.objectContaining({ type: 'user', userId: tokens.user.id }),
        changes: expect.objectContaining({ email: address, status: 'UNCONFIRMED' }),
      }),
    ]);
    expect(JSON.stringify(registered)).not.toMatch(/argon2|password/i);
    expect(await auditEvents(tokens.accessToken, 'user.confirmed')).toHaveLength(1);
    const sessions = await auditEvents(tokens.accessToken, 'session.created');
    expect(sessions).toEqual([
      expect.objectContaining({
        resourceType: 'session',
        resourceId: expect.stringMatching(/^ses/),
        changes: { ip: '10.200.1.2' },
      }),
    ]);
  });
});

describe('auth: registration of an address someone else registered first', () => {
  it('a second registration never replaces the pending password, name or company', async () => {
    const victim = email('victim');
    const attackerPassword = 'attacker chosen passphrase 1';
    const first = await post('register', {
      email: victim,
      password: PASSWORD,
      name: 'Victor',
      companyName: 'Victor GmbH',
    });
    expect(first.statusCode).toBe(202);
    await codeFor(t, victim, 1);
    // Someone else registers the same, still unconfirmed, address with their own password.
    const second = await post('register', {
      email: victim,
      password: attackerPassword,
      name: 'Mallory',
      companyName: 'Evil Ltd',
    });
    expect(second.statusCode).toBe(202);
    expect(second.body).toBe(first.body);
    // The mailbox owner confirms with the newest code they received.
    const newest = await codeFor(t, victim, 2);
    expect((await post('confirm', { email: victim, code: newest })).statusCode).toBe(200);
    const tokens = await login(victim);
    expect(tokens.user.name).toBe('Victor');
    expect(tokens.account.name).toBe('Victor GmbH');
    const attacker = await post('login', { email: victim, password: attackerPassword });
    expect(attacker.statusCode).toBe(401);
  });

  it('the mailbox owner takes over a registration someone else started, by a password reset', async () => {
    const victim = email('victim');
    const attackerPassword = 'attacker chosen passphrase 1';
    await post('register', {
      email: victim,
      password: attackerPassword,
      name: 'Mallory',
      companyName: 'Evil Ltd',
    });
    await codeFor(t, victim, 1); // mailed to the victim; the attacker never sees it
    // The victim's own registration changes nothing but tells them how to proceed.
    await register(victim);
    const notice = (await mailsTo(t, victim, 2))[1]!;
    expect(notice.raw).toMatch(/forgot-password/);
    // A reset proves the mailbox too: it sets the owner's password and confirms the address.
    expect((await post('forgot-password', { email: victim })).statusCode).toBe(202);
    const resetCode = await codeFor(t, victim, 3);
    const reset = await post('reset-password', {
      email: victim,
      code: resetCode,
      newPassword: NEW_PASSWORD,
    });
    expect(reset.statusCode).toBe(200);
    expect((await post('login', { email: victim, password: attackerPassword })).statusCode).toBe(
      401,
    );
    expect((await login(victim, { password: NEW_PASSWORD })).user.status).toBe('ACTIVE');
  });
});

describe('auth: known and unknown emails take the same steps', () => {
  /** Services whose hash is counted and whose after-the-answer work waits to be run. */
  function instrumented() {
    const steps = { hashes: 0, deferred: [] as (() => Promise<void>)[] };
    const deps = {
      hashPassword: (password: string) => {
        steps.hashes += 1;
        return Promise.resolve(`counted:${password.length}`);
      },
      defer: (work: () => Promise<void>) => void steps.deferred.push(work),
    };
    const ctx = t.app.ctx;
    return {
      steps,
      auth: new AuthService(ctx, deps),
      recovery: new PasswordRecoveryService(ctx, deps),
    };
  }
  const meta = { ip: IP, requestId: 'req_same_steps', userAgent: null };
  const userByEmail = (address: string) =>
    t.app.ctx.db.selectFrom('users').select('id').where('email', '=', address).executeTakeFirst();

  it('register hashes once and answers before any lookup, for new, pending and confirmed emails', async () => {
    const confirmed = await createUser(t);
    const pending = email('pending');
    await register(pending);
    await codeFor(t, pending);
    const unknown = email('new');
    const { steps, auth } = instrumented();
    const body = { password: PASSWORD, name: 'Eve', companyName: 'Eve Ltd' };
    const answers = [];
    for (const address of [unknown, pending, confirmed.email]) {
      const before = { hashes: steps.hashes, deferred: steps.deferred.length };
      answers.push(await auth.register({ ...body, email: address }, meta));
      expect(steps.hashes - before.hashes).toBe(1);
      expect(steps.deferred.length - before.deferred).toBe(1);
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // Nothing was looked up or written before the answers: the new email has no user yet.
    expect(await userByEmail(unknown)).toBeUndefined();
    expect(await mailsTo(t, confirmed.email, 0, 0)).toHaveLength(0);
    for (const work of steps.deferred) await work();
    expect(await userByEmail(unknown)).toBeDefined();
    expect((await mailsTo(t, confirmed.email))[0]!.subject).toBe(
      'Someone tried to register with your email',
    );
    expect((await mailsTo(t, pending, 2))[1]!.subject).toMatch(/confirmation code/);
  });

  it('forgot-password defers all of its work and reset-password hashes either way', async () => {
    const known = await createUser(t);
    const unknown = email('ghost');
    const { steps, recovery } = instrumented();
    const a = await recovery.forgotPassword(known.email, meta);
    const b = await recovery.forgotPassword(unknown, meta);
    expect(b).toEqual(a);
    expect(steps.deferred).toHaveLength(2);
    for (const address of [known.email, unknown]) {
      const before = steps.hashes;
      await expect(
        recovery.resetPassword(
          { email: address, code: '000000', newPassword: NEW_PASSWORD },
          { ...meta, ip: fakeIp() },
        ),
      ).rejects.toMatchObject({ code: 'code_invalid' });
      expect(steps.hashes - before).toBe(1);
    }
  });

  it('confirm answers the same for known, pending and unknown emails', async () => {
    const known = await createUser(t);
    const pending = email('pending');
    await register(pending);
    await codeFor(t, pending);
    const answers = [];
    for (const address of [known.email, pending, email('ghost')])
      answers.push(await post('confirm', { email: address, code: '000000' }, { ip: fakeIp() }));
    for (const res of answers) {
      expect(res.statusCode).toBe(400);
      expect(withoutRequestId(problem(res))).toEqual(withoutRequestId(problem(answers[0]!)));
    }
  });
});

describe('auth: bad input', () => {
  const someone = 'someone@example.com';
  const valid: Record<string, Body> = {
    register: { email: someone, password: PASSWORD, name: 'X', companyName: 'X' },
    confirm: { email: someone, code: '123456' },
    login: { email: someone, password: PASSWORD },
    refresh: { refreshToken: `krt_${'a'.repeat(40)}` },
    'forgot-password': { email: someone },
    'reset-password': { email: someone, code: '123456', newPassword: PASSWORD },
  };
  const endpoints = Object.keys(valid);

  const cases: [string, string, Body, string, string][] = endpoints.flatMap((endpoint) => {
    const body = valid[endpoint]!;
    const [first] = Object.keys(body) as [string];
    const { [first]: _dropped, ...missing } = body;
    const out: [string, string, Body, string, string][] = [
      [endpoint, 'wrong type', { ...body, [first]: 42 }, `/body/${first}`, 'wrong_type'],
      [endpoint, 'missing required field', missing, `/body/${first}`, 'required'],
      [endpoint, 'unknown field', { ...body, admin: true }, '/body/admin', 'unknown_field'],
    ];
    if ('email' in body)
      out.push([
        endpoint,
        'bad email format',
        { ...body, email: 'not-an-email' },
        '/body/email',
        'invalid_format',
      ]);
    if ('code' in body)
      out.push([
        endpoint,
        'code not 6 digits',
        { ...body, code: '12a456' },
        '/body/code',
        'invalid_format',
      ]);
    return out;
  });
  cases.push(['refresh', 'too short', { refreshToken: 'krt_' }, '/body/refreshToken', 'too_short']);

  it.each(cases)(
    '%s: 400 on %s, naming the field',
    async (endpoint, _label, payload, path, code) => {
      const res = await post(endpoint, payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const body = problem(res);
      expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
    },
  );

  it.each(endpoints)(
    '%s: 400 malformed_json on broken JSON, 400 without a body',
    async (endpoint) => {
      const broken = await t.request({
        method: 'POST',
        url: `/v1/auth/${endpoint}`,
        headers: { 'content-type': 'application/json' },
        payload: '{"email": "a@example.com",',
        remoteAddress: IP,
      });
      expect(broken.statusCode).toBe(400);
      expect(broken.headers['content-type']).toContain('application/problem+json');
      expect(problem(broken)).toMatchObject({ status: 400, code: 'malformed_json' });

      const empty = await t.request({
        method: 'POST',
        url: `/v1/auth/${endpoint}`,
        remoteAddress: IP,
      });
      expect(empty.statusCode).toBe(400);
      expect(problem(empty).code).toBe('validation_failed');
    },
  );

  const long = Array.from({ length: 257 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(
    '',
  );
  it.each([
    ['register', 'password', 'too short', 'eleven char'],
    ['register', 'password', 'common', 'Password1234'],
    ['register', 'password', 'one repeated character', 'zzzzzzzzzzzzzzzz'],
    ['register', 'password', 'too long', long],
    ['reset-password', 'newPassword', 'too short', 'short'],
    ['reset-password', 'newPassword', 'common', 'qwertyuiop12'],
    ['reset-password', 'newPassword', 'a sequence', 'abcdefghijklmnop'],
  ])('%s: 400 password_rejected at /body/%s when %s', async (endpoint, field, _label, password) => {
    const address = email('weak');
    const res = await post(endpoint, {
      ...valid[endpoint],
      email: address,
      [field]: password,
    });
    expect(res.statusCode).toBe(400);
    expect(problem(res)).toMatchObject({
      status: 400,
      code: 'password_rejected',
      errors: [expect.objectContaining({ path: `/body/${field}`, code: 'password_rejected' })],
    });
    // Nothing registered, nothing mailed.
    expect(await mailsTo(t, address, 1, 200)).toHaveLength(0);
  });

  it('accepts 12 characters and long passphrases, never truncating them', async () => {
    const address = email('long');
    const passphrase = `${'my long passphrase '.repeat(14).slice(0, 255)}!`;
    expect([...passphrase]).toHaveLength(256);
    const res = await post('register', {
      email: address,
      password: passphrase,
      name: 'Long',
      companyName: 'Long GmbH',
    });
    expect(res.statusCode).toBe(202);
    const code = await codeFor(t, address);
    expect((await post('confirm', { email: address, code })).statusCode).toBe(200);
    await login(address, { password: passphrase });
    const truncated = await post('login', { email: address, password: passphrase.slice(0, 72) });
    expect(truncated.statusCode).toBe(401);

    const short = email('short');
    expect(
      (
        await post('register', {
          email: short,
          password: 'tw3lve chars',
          name: 'Short',
          companyName: 'Short GmbH',
        })
      ).statusCode,
    ).toBe(202);
  });
});

describe('auth: credentials on the auth endpoints', () => {
  const payloads: [string, Body | undefined][] = [
    ['register', { email: 'k@example.com', password: PASSWORD, name: 'K', companyName: 'K' }],
    ['confirm', { email: 'k@example.com', code: '123456' }],
    ['login', { email: 'k@example.com', password: PASSWORD }],
    ['refresh', { refreshToken: `krt_${'a'.repeat(40)}` }],
    ['logout', undefined],
    ['forgot-password', { email: 'k@example.com' }],
    ['reset-password', { email: 'k@example.com', code: '123456', newPassword: PASSWORD }],
  ];

  it.each(payloads)(
    '%s: 401 api_key_invalid without or with an unknown x-api-key',
    async (endpoint, payload) => {
      const user = await createUser(t);
      for (const key of [null, '', `kak_${'x'.repeat(40)}`, 'x'.repeat(201)]) {
        const res = await post(endpoint, payload, { key, token: user.token });
        expect(res.statusCode).toBe(401);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(problem(res)).toMatchObject({ status: 401, code: 'api_key_invalid' });
      }
    },
  );

  it('logout: 401 token_invalid without or with a bad bearer', async () => {
    for (const token of [undefined, 'kat_unknown000000000000000000']) {
      const res = await post('logout', undefined, { token });
      expect(res.statusCode).toBe(401);
      expect(problem(res).code).toBe('token_invalid');
      expect(res.headers['www-authenticate']).toContain('Bearer');
    }
    const malformed = await t.request({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(malformed.statusCode).toBe(401);
    expect(problem(malformed).code).toBe('token_invalid');
  });

  it('logout: 400 not_a_session with a personal API token, which keeps working', async () => {
    const user = await createUser(t);
    const res = await post('logout', undefined, { token: user.token });
    expect(res.statusCode).toBe(400);
    expect(problem(res).code).toBe('not_a_session');
    expect((await partners(user.token)).statusCode).toBe(200);
  });

  it('a refresh token is not a bearer', async () => {
    const tokens = await login(await signUp());
    const res = await partners(tokens.refreshToken);
    expect(res.statusCode).toBe(401);
    expect(problem(res).code).toBe('token_invalid');
  });
});

describe('auth: sessions', () => {
  it('refresh rotates the pair, and the new pair works', async () => {
    const address = await signUp();
    const a = await login(address);
    const res = await post('refresh', { refreshToken: a.refreshToken });
    expect(res.statusCode).toBe(200);
    const b = res.json<Tokens>();
    expect(b).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { email: address } });
    expect(b.accessToken).not.toBe(a.accessToken);
    expect(b.refreshToken).not.toBe(a.refreshToken);
    expect(b.account).toEqual(a.account);
    expect((await partners(b.accessToken)).statusCode).toBe(200);
    const c = await post('refresh', { refreshToken: b.refreshToken });
    expect(c.statusCode).toBe(200);
    expect((await partners(c.json<Tokens>().accessToken)).statusCode).toBe(200);
  });

  it('re-using a spent refresh token ends the whole session, and is audited', async () => {
    const address = await signUp();
    const other = await login(address);
    const a = await login(address);
    const b = (await post('refresh', { refreshToken: a.refreshToken })).json<Tokens>();
    const c = (await post('refresh', { refreshToken: b.refreshToken })).json<Tokens>();
    // Cached in the credential cache: the revocation must reach it.
    expect((await partners(b.accessToken)).statusCode).toBe(200);
    expect((await partners(c.accessToken)).statusCode).toBe(200);

    const reuse = await post('refresh', { refreshToken: a.refreshToken });
    expect(reuse.statusCode).toBe(401);
    expect(problem(reuse).code).toBe('token_invalid');
    expect(reuse.headers['www-authenticate']).toContain('Bearer');

    for (const token of [a.accessToken, b.accessToken, c.accessToken]) {
      const res = await partners(token);
      expect(res.statusCode).toBe(401);
      expect(problem(res).code).toBe('token_invalid');
    }
    const newest = await post('refresh', { refreshToken: c.refreshToken });
    expect(newest.statusCode).toBe(401);
    expect(problem(newest).code).toBe('token_invalid');

    // Another session of the same user is untouched.
    expect((await partners(other.accessToken)).statusCode).toBe(200);
    const revoked = await auditEvents(other.accessToken, 'session.revoked');
    expect(revoked).toEqual([
      expect.objectContaining({
        resourceType: 'session',
        actor: expect.objectContaining({ type: 'system' }),
        changes: { reason: 'refresh_token_reuse' },
      }),
    ]);
    const created = await auditEvents(other.accessToken, 'session.created');
    expect(created.map((e) => e.resourceId)).toContain(revoked[0]!.resourceId);
  });

  it('refresh: 401 token_invalid for unknown tokens and for access tokens', async () => {
    const tokens = await login(await signUp());
    for (const refreshToken of [`krt_${'z'.repeat(40)}`, tokens.accessToken]) {
      const res = await post('refresh', { refreshToken });
      expect(res.statusCode).toBe(401);
      expect(problem(res).code).toBe('token_invalid');
    }
    // Neither attempt spent the real refresh token.
    expect((await post('refresh', { refreshToken: tokens.refreshToken })).statusCode).toBe(200);
  });

  it('logout ends the session at once; other sessions stay', async () => {
    const address = await signUp();
    const a = await login(address);
    const b = await login(address);
    expect((await partners(a.accessToken)).statusCode).toBe(200);

    const res = await post('logout', undefined, { token: a.accessToken });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    const after = await partners(a.accessToken);
    expect(after.statusCode).toBe(401);
    expect(problem(after).code).toBe('token_invalid');
    const refresh = await post('refresh', { refreshToken: a.refreshToken });
    expect(refresh.statusCode).toBe(401);
    expect(problem(refresh).code).toBe('token_invalid');
    expect((await post('logout', undefined, { token: a.accessToken })).statusCode).toBe(401);

    expect((await partners(b.accessToken)).statusCode).toBe(200);
    expect(await auditEvents(b.accessToken, 'session.revoked')).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'user', userId: b.user.id }),
        changes: { reason: 'logout' },
      }),
    ]);
  });

  it('an access token expires after 15 minutes; the refresh token lasts 30 days', async () => {
    const clock = new ManualClock();
    const app = await buildTestApp({ clock });
    try {
      const address = await signUp(app);
      const used = await login(address, { app });
      const unused = await login(address, { app });
      expect((await partners(used.accessToken, app)).statusCode).toBe(200);

      clock.advance(14 * MINUTE);
      expect((await partners(used.accessToken, app)).statusCode).toBe(200);
      clock.advance(2 * MINUTE);
      // Both paths: the cached principal and the database lookup.
      for (const token of [used.accessToken, unused.accessToken]) {
        const res = await partners(token, app);
        expect(res.statusCode).toBe(401);
        expect(problem(res).code).toBe('token_invalid');
        expect(res.headers['www-authenticate']).toContain('Bearer');
      }

      const refreshed = await post('refresh', { refreshToken: used.refreshToken }, { app });
      expect(refreshed.statusCode).toBe(200);
      const next = refreshed.json<Tokens>();
      expect((await partners(next.accessToken, app)).statusCode).toBe(200);

      clock.advance(30 * DAY + MINUTE);
      const late = await post('refresh', { refreshToken: next.refreshToken }, { app });
      expect(late.statusCode).toBe(401);
      expect(problem(late).code).toBe('token_invalid');
      const lateUnused = await post('refresh', { refreshToken: unused.refreshToken }, { app });
      expect(lateUnused.statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });
});
