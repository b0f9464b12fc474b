import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp } from '../../test/helpers.js';
import { DEFAULT_PLANS } from '../modules/plans/plans.catalogue.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** An app whose every plan has these limits. */
function appWith(limits: { requestsPerMinute: number; seats?: number }): Promise<TestApp> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-rl-'));
  dirs.push(dir);
  const file = path.join(dir, 'plans.json');
  fs.writeFileSync(file, JSON.stringify(DEFAULT_PLANS.map((p) => ({ ...p, ...limits }))));
  return buildTestApp({ env: { PLANS_FILE: file } });
}

const partners = (app: TestApp, token: string) =>
  app.request({ method: 'GET', url: '/v1/partners', token });

async function newToken(app: TestApp, token: string, name: string): Promise<string> {
  const res = await app.request({
    method: 'POST',
    url: '/v1/api-tokens',
    token,
    payload: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ token: string }>().token;
}

describe('rate limits: per user and account, not per token', () => {
  it('a fresh token of the same user gets no fresh minute', async () => {
    const app = await appWith({ requestsPerMinute: 4 });
    try {
      const user = await createUser(app);
      const fresh = await newToken(app, user.token, 'second'); // request 1
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push((await partners(app, user.token)).statusCode);
      expect(codes).toEqual([200, 200, 200]);
      const other = await partners(app, fresh);
      expect(other.statusCode).toBe(429);
      expect(other.json()).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(other.headers['retry-after'])).toBeGreaterThan(0);
      expect(other.headers['ratelimit-remaining']).toBe('0');
    } finally {
      await app.close();
    }
  });

  it('users of an account share the account’s minute: the plan rate times its seats', async () => {
    const app = await appWith({ requestsPerMinute: 2, seats: 2 });
    try {
      const owner = await createUser(app);
      const team = [];
      for (let i = 0; i < 2; i++)
        team.push(await createUser(app, { role: 'user', accountId: owner.accountId }));
      for (const member of [owner, team[0]!]) {
        const res = await partners(app, member.token);
        expect(res.headers['ratelimit-limit']).toBe('2');
        expect((await partners(app, member.token)).statusCode).toBe(200);
      }
      // Four requests: the account's 2 × 2 are spent, though the third user made none.
      const third = await partners(app, team[1]!.token);
      expect(third.statusCode).toBe(429);
      expect(third.headers['ratelimit-limit']).toBe('4');
      // Another account is unaffected.
      const stranger = await createUser(app);
      expect((await partners(app, stranger.token)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
