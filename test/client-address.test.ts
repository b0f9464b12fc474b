import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleAudit } from '../src/shared/audit.js';
import { PASSWORD, buildTestApp, createUser, email, type TestApp } from './helpers.js';

/**
 * Which address login throttling and the audit log see, through the real app: the right-most
 * `X-Forwarded-For` entry that no trusted proxy added (`TRUST_PROXY`), or the socket's peer
 * when no proxy is trusted. Addresses are random: with Redis the per-address failure counters
 * outlive the run.
 */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
/** Proxies live in the documentation ranges, so no client address above is one of them. */
const lbIp = () => `198.51.100.${randomInt(1, 255)}`;
const EDGE = '203.0.113.7';
const WRONG = 'not the password at all 1';

interface Via {
  /** The socket's peer: the nearest proxy, or the client itself. */
  peer: string;
  forwardedFor?: string;
}

function login(t: TestApp, address: string, password: string, via: Via) {
  return t.request({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: address, password },
    remoteAddress: via.peer,
    headers: via.forwardedFor === undefined ? {} : { 'x-forwarded-for': via.forwardedFor },
  });
}

/** The address the audit log recorded for the user's latest sign-in. */
async function signedInFrom(t: TestApp, userId: string): Promise<string | null> {
  await settleAudit(t.app.ctx.db);
  const row = await t.app.ctx.db
    .selectFrom('audit_events')
    .select('ip')
    .where('action', '=', 'session.created')
    .where('actor_id', '=', userId)
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow();
  return row.ip;
}

/**
 * 60 wrong passwords for a fresh user, the i-th through `guesser(i)`: the guesser's address
 * gets 5 answers of 401 and then only 429s. The owner, through `owner`, still signs in and is
 * audited under `ownerIp`.
 */
async function expectGuesserAlone(
  t: TestApp,
  guesser: (i: number) => Via,
  owner: Via,
  ownerIp: string,
): Promise<void> {
  const user = await createUser(t);
  const counts: Record<number, number> = {};
  for (let i = 0; i < 60; i++) {
    const res = await login(t, user.email, WRONG, guesser(i));
    counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1;
  }
  expect(counts).toEqual({ 401: 5, 429: 55 });
  const res = await login(t, user.email, PASSWORD, owner);
  expect(res.statusCode).toBe(200);
  expect(await signedInFrom(t, user.userId)).toBe(ownerIp);
}

describe('client address behind one trusted hop (TRUST_PROXY=1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => t.close());

  it('a guesser is throttled by its own address, whatever it writes left of it', async () => {
    const proxy = lbIp();
    const attacker = randomIp();
    const owner = randomIp();
    await expectGuesserAlone(
      t,
      () => ({ peer: proxy, forwardedFor: `${randomIp()}, ${attacker}` }),
      { peer: proxy, forwardedFor: owner },
      owner,
    );
  });

  it('naming the owner’s address in X-Forwarded-For does not block the owner', async () => {
    const proxy = lbIp();
    const attacker = randomIp();
    const owner = randomIp();
    await expectGuesserAlone(
      t,
      () => ({ peer: proxy, forwardedFor: `${owner}, ${attacker}` }),
      { peer: proxy, forwardedFor: owner },
      owner,
    );
  });

  it('spraying many emails from one client behind the proxy stops after 30 failures', async () => {
    const proxy = lbIp();
    const attacker = randomIp();
    let refused = 0;
    for (let i = 0; i < 31; i++) {
      const res = await login(t, email('spray'), WRONG, {
        peer: proxy,
        forwardedFor: `${randomIp()}, ${attacker}`,
      });
      if (res.statusCode === 429) refused++;
    }
    expect(refused).toBe(1);
  });
});

describe('client address behind trusted proxy addresses (TRUST_PROXY=CIDR list)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: `198.51.100.0/24, ${EDGE}, loopback` } });
  });
  afterAll(() => t.close());

  it('skips every trusted proxy of a chain and takes the address left of them', async () => {
    const attacker = randomIp();
    const owner = randomIp();
    // client → edge proxy (appends the client) → load balancer (appends the edge) → Kontor
    await expectGuesserAlone(
      t,
      () => ({ peer: lbIp(), forwardedFor: `${randomIp()}, ${attacker}, ${EDGE}` }),
      { peer: lbIp(), forwardedFor: `${owner}, ${EDGE}` },
      owner,
    );
  });

  it('a peer outside the list is the client itself; its header is ignored', async () => {
    const direct = randomIp();
    const owner = randomIp();
    await expectGuesserAlone(
      t,
      () => ({ peer: direct, forwardedFor: randomIp() }),
      { peer: owner, forwardedFor: direct },
      owner,
    );
  });

  it('over a real socket from a trusted loopback proxy', async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const user = await createUser(t);
    const client = randomIp();
    const res = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': t.apiKey,
        'x-forwarded-for': `${randomIp()}, ${client}`,
      },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    expect(await signedInFrom(t, user.userId)).toBe(client);
  });
});

describe('client address without TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-For: the socket’s peer is the client', async () => {
    const attacker = randomIp();
    const owner = randomIp();
    await expectGuesserAlone(
      t,
      (i) => ({ peer: attacker, forwardedFor: i % 2 === 0 ? randomIp() : owner }),
      { peer: owner, forwardedFor: attacker },
      owner,
    );
  });
});
