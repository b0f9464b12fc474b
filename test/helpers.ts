import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { settleAudit } from '../src/shared/audit.js';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { DB } from '../src/db/schema.js';
import { newAccountRow, insertAccount } from '../src/modules/account/account.repository.js';
import type { CompanyData } from '../src/modules/account/company.schemas.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { hashPassword } from '../src/modules/auth/passwords.js';
import { DEFAULT_PLAN, DEFAULT_PLANS } from '../src/modules/plans/plans.catalogue.js';
import { seedTaxRates } from '../src/modules/tax-rates/tax-rates.repository.js';
import { seedSystemTemplateRows } from '../src/modules/document-templates/system-templates.js';
import type { Clock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { newSecret } from '../src/shared/secrets.js';
import { checkAnswer } from './openapi-conformance.js';

export const PASSWORD = 'correct horse battery staple 42';
let passwordHash: Promise<string> | undefined;

/** Which database this run uses: `DATABASE_URL` (PostgreSQL in CI's second pass) or SQLite. */
export const dbKind = process.env.DATABASE_URL?.startsWith('postgres') ? 'postgres' : 'sqlite';

export interface TestApp {
  app: App;
  apiKey: string;
  dataDir: string;
  close(): Promise<void>;
  /** `app.inject` with the API key set; add `token` for a bearer. */
  request(
    opts: InjectOptions & { token?: string; key?: string | null },
  ): Promise<LightMyRequestResponse>;
}

/**
 * A log kept in memory: `stream` for an app's `logStream` (or a pino logger), `text()` for
 * everything written to it so far. Lines arrive in batches (src/shared/log-output.ts), so a
 * test reads the text, or its lines split at newlines.
 */
export function logSink(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** A real app on a real database: a fresh SQLite file, or the run's PostgreSQL database. */
export async function buildTestApp(
  opts: {
    clock?: Clock;
    env?: Record<string, string>;
    webDist?: string;
    /** Where the app's log goes (with `LOG_LEVEL` in `env`). */
    logStream?: Writable;
  } = {},
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-test-'));
  // Rate limits stay on in every test, with limits no test reaches by accident; the
  // rate-limit tests bring their own small plans.
  const plansFile = path.join(dataDir, 'plans.json');
  fs.writeFileSync(
    plansFile,
    JSON.stringify(
      DEFAULT_PLANS.map((p) => ({
        ...p,
        requestsPerMinute: 100_000,
        requestsPerMonth: 10_000_000,
      })),
    ),
  );
  const env: Record<string, string> = {
    PLANS_FILE: plansFile,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Background jobs run when a test drains the queue (`app.ctx.jobs.drain()`), not on a timer.
    JOB_POLL_INTERVAL_MS: '0',
    // Tests assert no timings: two workers on two cores slow a render many times over, so
    // the time budget is generous here; the limit itself is tested with a workload far past it.
    TEMPLATE_RENDER_LIMIT_MS: '10000',
    DATABASE_URL:
      dbKind === 'postgres'
        ? process.env.DATABASE_URL!
        : `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...opts.env,
  };
  const app = await buildApp(loadConfig(env), {
    clock: opts.clock,
    logStream: opts.logStream,
    // On PostgreSQL the test files of one worker share a pg-boss schema, and the other
    // worker's files another: a file's `drain()` runs its own worker's jobs, never those of a
    // file running beside it (whose app has another outbox, clock and data directory).
    jobsSchema: `pgboss_w${process.env.VITEST_POOL_ID ?? '1'}`,
    // The API alone unless a test brings a web build: whether `web/dist` was built must not
    // change what the API's tests see.
    webDist: opts.webDist ?? false,
  });
  checkAnswers(app);
  const { key: apiKey } = await createApiKey(app.ctx.db, 'test');
  return {
    app,
    apiKey,
    dataDir,
    async close() {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    async request({ token, key, headers, ...rest }) {
      const res = await app.inject({
        ...rest,
        headers: {
          ...(key === null ? {} : { 'x-api-key': key ?? apiKey }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      });
      // PostgreSQL chains audit events just after the answer; tests read the table directly.
      await settleAudit(app.ctx.db);
      return res;
    },
  };
}

/**
 * Every answer `app.inject` gives (through `request` or directly) is checked against the
 * OpenAPI document; one that the document does not describe fails the test
 * (test/openapi-conformance.ts).
 */
export function checkAnswers(app: App): void {
  const inject = app.inject.bind(app) as (opts: InjectOptions) => Promise<LightMyRequestResponse>;
  const routed = (method: string, template: string) =>
    app.hasRoute({ method, url: template.replace(/\{(\w+)\}/g, ':$1') });
  const checked = async (opts: InjectOptions) => {
    const res = await inject(opts);
    checkAnswer(res.raw.req.method ?? 'GET', res.raw.req.url ?? '/', res, routed);
    return res;
  };
  app.inject = checked as typeof app.inject;
}

export interface TestUser {
  accountId: string;
  userId: string;
  email: string;
  role: 'admin' | 'user';
  /** A personal API token of the user. */
  token: string;
  tokenId: string;
}

/**
 * Factory: an account with an active admin and a personal token, written straight to the
 * database (the HTTP sign-up path has its own tests). Pass `accountId` to add a user to it.
 */
export function createUser(
  t: TestApp,
  opts: { role?: 'admin' | 'user'; accountId?: string; email?: string } = {},
): Promise<TestUser> {
  return seedUser(t.app.ctx.db, opts);
}

/**
 * The seller master data of every factory account: a complete German GmbH, enough for a lawful
 * invoice and a valid XRechnung (the VAT id's check digit and the IBAN's checksum are right).
 */
export const TEST_COMPANY: CompanyData = {
  legalName: 'Test GmbH',
  address: { street: 'Musterstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
  vatId: 'DE123456788',
  taxNumber: '30/123/45678',
  registerCourt: 'Amtsgericht Charlottenburg',
  registerNumber: 'HRB 12345',
  managingDirectors: ['Erika Mustermann'],
  email: 'rechnung@test-gmbh.example',
  phone: '+49 30 1234567',
  website: null,
  electronicAddress: { scheme: 'EM', value: 'rechnung@test-gmbh.example' },
  bankAccounts: [
    {
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
      accountHolder: 'Test GmbH',
      bankName: 'Deutsche Kreditbank',
    },
  ],
  smallBusiness: false,
  creditorId: null,
  defaultPaymentTermDays: 14,
};

/** `createUser` on a bare database handle (also used by the bench). */
export async function seedUser(
  db: Kysely<DB>,
  opts: { role?: 'admin' | 'user'; accountId?: string; email?: string } = {},
): Promise<TestUser> {
  passwordHash ??= hashPassword(PASSWORD);
  const now = new Date().toISOString();
  const accountId = opts.accountId ?? newId('account');
  if (!opts.accountId) {
    const account = {
      ...newAccountRow(accountId, 'Test GmbH', DEFAULT_PLAN, now),
      company: JSON.stringify(TEST_COMPANY),
    };
    await insertAccount(db, account);
    await seedTaxRates(db, accountId, account.currency, now);
    await seedSystemTemplateRows(db, accountId, now);
  }
  const userId = newId('user');
  const email = opts.email ?? `${userId}@example.com`;
  await db
    .insertInto('users')
    .values({
      id: userId,
      account_id: accountId,
      email,
      name: 'Test User',
      role: opts.role ?? 'admin',
      status: 'ACTIVE',
      password_hash: await passwordHash,
      email_confirmed_at: now,
      last_login_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const secret = newSecret('kpat');
  const tokenId = newId('apiToken');
  await db
    .insertInto('auth_tokens')
    .values({
      id: tokenId,
      account_id: accountId,
      user_id: userId,
      kind: 'pat',
      session_id: null,
      name: 'factory',
      prefix: secret.display,
      token_hash: secret.hash,
      created_at: now,
      expires_at: null,
      last_used_at: null,
      used_at: null,
      revoked_at: null,
    })
    .execute();
  return { accountId, userId, email, role: opts.role ?? 'admin', token: secret.secret, tokenId };
}

export interface Mail {
  file: string;
  to: string;
  subject: string;
  raw: string;
}

/**
 * Mails in the outbox addressed to `to`, waiting up to `timeoutMs` for at least `count`. Mail
 * goes out after the answer, so a loaded machine may need a while; checks for "no mail" pass
 * a short timeout of their own.
 */
export async function mailsTo(
  t: TestApp,
  to: string,
  count = 1,
  timeoutMs = 10_000,
): Promise<Mail[]> {
  const dir = path.join(t.dataDir, 'outbox');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
      .filter((f) => f.endsWith('.eml'))
      .sort()
      .map((f) => {
        const raw = fs.readFileSync(path.join(dir, f), 'utf8');
        return {
          file: f,
          raw,
          to: /^To: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
          subject: /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '',
        };
      })
      .filter((m) => m.to.includes(to));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The 6-digit code of the newest mail to `to`. */
export async function codeFor(t: TestApp, to: string, nth = 1): Promise<string> {
  const mails = await mailsTo(t, to, nth);
  const mail = mails[nth - 1];
  const code = mail && /\b(\d{6})\b/.exec(mail.subject + '\n' + mail.raw)?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

export function json<T = Record<string, unknown>>(res: LightMyRequestResponse): T {
  return res.json<T>();
}

/** Unique email for a test. */
export function email(label = 'user'): string {
  return `${label}-${newId('user').slice(4)}@example.com`;
}

/** How many audit events the account has (of one record, if given). */
export async function auditCount(
  t: TestApp,
  accountId: string,
  resourceId?: string,
): Promise<number> {
  let q = t.app.ctx.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId);
  if (resourceId) q = q.where('resource_id', '=', resourceId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
