/**
 * The preamble of the in-process benches (`bench:recurring`, `bench:datev`, `bench:dunning`):
 * an app on a temp DATA_DIR (embedded SQLite, or the PostgreSQL of DATABASE_URL), rate limits
 * off, one seeded admin, and `call` through `inject` that throws on anything but 2xx.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seedUser } from '../test/helpers.js';
import { COMPANY } from './seed-resources.js';

/**
 * Starts V8's CPU profiler on this process; the function it answers stops it and writes the
 * profile to `file` (read with `node bench/profile-summary.mjs`).
 */
export async function startCpuProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** The BILLING address of a bench partner (Hamburg), with an e-mail when given. */
export const billingAddress = (email?: string) => ({
  type: 'BILLING',
  street: 'Rathausmarkt 1',
  postalCode: '20095',
  city: 'Hamburg',
  country: 'DE',
  ...(email ? { email } : {}),
});

export const say = (line: string) => process.stdout.write(`${line}\n`);

export async function inProcessApp(name: string, env: Record<string, string> = {}) {
  const apiKey = `bench-${name}-key-0123456789abcdef`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `kontor-bench-${name}-`));
  const app = await buildApp(
    loadConfig({
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      API_KEYS: apiKey,
      ...env,
    }),
  );
  const close = async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const user = await seedUser(app.ctx.db);
    const headers = { authorization: `Bearer ${user.token}`, 'x-api-key': apiKey };
    const call = async (
      method: 'POST' | 'PUT' | 'GET',
      url: string,
      payload?: object,
    ): Promise<LightMyRequestResponse> => {
      const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res;
    };
    /** `call`, answering the JSON body. */
    const callJson = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      (await call(method, url, payload)).json<Record<string, unknown>>();
    const database = app.ctx.config.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite';
    return { app, ctx: app.ctx, user, headers, call, callJson, database, dataDir, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The account made ready to invoice (the seller's data of `COMPANY`) and a customer with a
 * billing address to invoice: the customer's id.
 */
export async function invoicingCustomer(b: Awaited<ReturnType<typeof inProcessApp>>) {
  const { version } = await b.callJson('GET', '/v1/account/company');
  await b.call('PUT', '/v1/account/company', { version, ...COMPANY });
  const partner = await b.callJson('POST', '/v1/partners', {
    name: 'Kunde GmbH',
    type: 'CUSTOMER',
    addresses: [billingAddress()],
  });
  return { id: partner.id as string, version: partner.version as number };
}
