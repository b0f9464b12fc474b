/**
 * End to end through the typed client (`clients/typescript`, `@kontor/client`): starts the built
 * server (`node dist/server.js`) as an operator would, on a fresh data directory and a free
 * port, registers and confirms a user from the mail in the outbox, signs in, creates a personal
 * API token, and then works with partners only through the generated types.
 *
 * It runs `dist/`, which the suite's global setup brings up to date with the sources before any
 * test starts (`test/global-setup.ts`, `ensureBuilt`). The server always runs on
 * its embedded SQLite database here, also in CI's PostgreSQL pass: the subject is the client
 * against a real process, not the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKontorClient,
  isProblem,
  KontorProblemError,
  unwrap,
  type KontorClient,
  type Problem,
} from '@kontor/client';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverJs = path.join(root, 'dist', 'server.js');
const apiKey = `kak_e2e_${randomBytes(16).toString('hex')}`;
const password = 'correct horse battery staple 42';

let dataDir: string;
let child: ChildProcess | undefined;
let exited: Promise<number | null>;
let output = '';
let baseUrl: string;

/** Starts `node dist/server.js` and resolves with its URL once it logs that it listens. */
function startServer(): Promise<string> {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-client-e2e-'));
  const proc = spawn(process.execPath, [serverJs], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: '',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      API_KEYS: apiKey,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) {
        clearInterval(timer);
        resolve(url);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}

/** The 6-digit code of the confirmation mail the server wrote to `DATA_DIR/outbox`. */
async function confirmationCode(email: string): Promise<string> {
  const outbox = path.join(dataDir, 'outbox');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox) : [];
    for (const file of files.filter((f) => f.endsWith('.eml'))) {
      const mail = fs.readFileSync(path.join(outbox, file), 'utf8');
      const code = /confirmation code: (\d{6})/.exec(mail)?.[1];
      if (code && mail.includes(email)) return code;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no confirmation mail for ${email} in ${outbox}`);
}

beforeAll(async () => {
  baseUrl = await startServer();
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await exited;
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('typed client against a started server', () => {
  let kontor: KontorClient;

  it('registers, confirms from the outbox, signs in and creates a personal API token', async () => {
    const anonymous = createKontorClient({ baseUrl, apiKey });
    const email = `e2e-${randomBytes(4).toString('hex')}@example.com`;

    const registered = await anonymous.POST('/v1/auth/register', {
      body: { email, password, name: 'Erika Muster', companyName: 'Muster GmbH' },
    });
    expect(registered.response.status).toBe(202);

    const confirmed = await anonymous.POST('/v1/auth/confirm', {
      body: { email, code: await confirmationCode(email) },
    });
    expect(confirmed.error).toBeUndefined();

    const session = unwrap(await anonymous.POST('/v1/auth/login', { body: { email, password } }));
    expect(session.tokenType).toBe('Bearer');
    expect(session.user.email).toBe(email);

    const signedIn = createKontorClient({ baseUrl, apiKey, token: session.accessToken });
    const personal = unwrap(await signedIn.POST('/v1/api-tokens', { body: { name: 'e2e' } }));
    expect(personal.id).toMatch(/^tok_/);
    expect(personal.token.startsWith(personal.prefix)).toBe(true);

    kontor = createKontorClient({ baseUrl, apiKey, token: personal.token });
  });

  it('creates, reads, finds, updates, refuses a stale version with a typed 409 and deletes a partner', async () => {
    expect(kontor, 'the sign-in test ran first').toBeDefined();

    // Without a token, a user route answers a typed 401 problem.
    const noToken = await createKontorClient({ baseUrl, apiKey }).GET('/v1/partners');
    expect(noToken.response.status).toBe(401);
    expect(noToken.error?.status).toBe(401);

    const created = await kontor.POST('/v1/partners', {
      body: { name: 'Zweiradhandel Müller KG', type: 'VENDOR', tags: ['e2e'] },
    });
    expect(created.response.status).toBe(201);
    const partner = created.data!;
    expect(partner.id).toMatch(/^ptr_/);
    expect(partner.version).toBe(1);
    expect(partner.type).toBe('VENDOR');
    expect(partner.tags).toEqual(['e2e']);
    await kontor.POST('/v1/partners', { body: { name: 'Andere AG' } });

    const read = unwrap(
      await kontor.GET('/v1/partners/{partnerId}', { params: { path: { partnerId: partner.id } } }),
    );
    expect(read).toMatchObject({ id: partner.id, name: 'Zweiradhandel Müller KG', version: 1 });

    // `q` is case- and accent-insensitive; the other partner is not in the answer.
    const found = unwrap(
      await kontor.GET('/v1/partners', { params: { query: { q: 'muller', limit: 10 } } }),
    );
    expect(found.data.map((p) => p.id)).toEqual([partner.id]);
    expect(found.nextCursor).toBeNull();

    const updated = unwrap(
      await kontor.PUT('/v1/partners/{partnerId}', {
        params: { path: { partnerId: partner.id } },
        body: { version: read.version, website: 'https://mueller.example' },
      }),
    );
    expect(updated.version).toBe(2);
    expect(updated.website).toBe('https://mueller.example');
    expect(updated.name).toBe('Zweiradhandel Müller KG');

    // The same write from the old copy: a 409 problem, typed down to its code.
    const stale = await kontor.PUT('/v1/partners/{partnerId}', {
      params: { path: { partnerId: partner.id } },
      body: { version: read.version, description: 'from an old copy' },
    });
    expect(stale.data).toBeUndefined();
    expect(stale.response.status).toBe(409);
    expect(stale.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem: Problem | undefined = stale.error;
    expect(isProblem(problem)).toBe(true);
    expect(problem).toMatchObject({ status: 409, code: 'version_conflict', currentVersion: 2 });
    expect(problem?.requestId).toMatch(/^req_/);

    // unwrap throws the same problem as a KontorProblemError.
    const thrown = await kontor
      .PUT('/v1/partners/{partnerId}', {
        params: { path: { partnerId: partner.id } },
        body: { version: 1, name: 'Stale KG' },
      })
      .then(unwrap)
      .catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(KontorProblemError);
    expect((thrown as KontorProblemError).code).toBe('version_conflict');
    expect((thrown as KontorProblemError).status).toBe(409);

    const removed = await kontor.DELETE('/v1/partners/{partnerId}', {
      params: { path: { partnerId: partner.id } },
    });
    expect(removed.response.status).toBe(204);
    expect(removed.error).toBeUndefined();

    const gone = await kontor.GET('/v1/partners/{partnerId}', {
      params: { path: { partnerId: partner.id } },
    });
    expect(gone.response.status).toBe(404);
    expect(gone.error?.code).toBe('not_found');
  });
});
