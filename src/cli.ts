/* eslint-disable no-console -- a command-line tool talks to its operator on the console */
import { Redis } from 'ioredis';
import { ConfigError, loadConfig, type Config } from './config.js';
import { migrate, openDatabase, type Database } from './db/database.js';
import { findBadDates } from './db/date-check.js';
import { migrations } from './db/migrations/index.js';
import { writeSnapshot } from './db/backup.js';
import { createApiKey, listApiKeys, revokeApiKey } from './modules/api-keys/index.js';
import { createSetupLink } from './modules/auth/index.js';
import { verifyAuditChain } from './shared/audit.js';

const USAGE = `Usage: npx kontor <command>   (in the Kontor folder; or: npm run kontor -- <command>)

  api-keys create [--name NAME]   create a client API key (printed once)
  api-keys list                   list client API keys
  api-keys revoke <keyId>         revoke a client API key, effective immediately
  migrate                         apply pending database migrations
  backup <file>                   write a consistent, checked snapshot while the service runs
                                  (SQLite: online backup API; PostgreSQL: pg_dump custom format)
  setup-link                      print a new one-time link that creates the first account in
                                  the browser (only while the installation has no user)
  audit verify                    check every account's audit hash chain
  doctor [--account ID]           list stored dates the API refuses (impossible, out of
                                  range, a credit note before its invoice); exit 1 if any

Configuration comes from the same environment as the service (DATABASE_URL, DATA_DIR, …).`;

async function withDb<T>(
  config: Config,
  fn: (database: Database) => Promise<T>,
  { migrateFirst = true } = {},
): Promise<T> {
  const database = openDatabase(config);
  try {
    if (migrateFirst) await migrate(database.db);
    return await fn(database);
  } finally {
    await database.close();
  }
}

/** Tells every running replica to drop cached credentials (embedded mode notices by itself). */
async function broadcastRevocation(config: Config, id: string): Promise<void> {
  if (!config.redisUrl) return;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
  try {
    await redis.publish('kontor:revocations', JSON.stringify({ type: 'apiKey', id }));
  } finally {
    redis.disconnect();
  }
}

/** `kontor backup <file>`: the same checked snapshot the schedule writes (db/backup.ts). */
async function backup(config: Config, file: string): Promise<void> {
  // Migrated first, like every command: a backup restores to the schema this release runs.
  await withDb(config, () => Promise.resolve());
  const snapshot = await writeSnapshot(config.database, file);
  console.log(
    config.database.kind === 'sqlite'
      ? `SQLite snapshot (${snapshot.documents} documents, integrity checked) written to ${snapshot.file}`
      : `PostgreSQL dump (custom format, restore with pg_restore) written to ${snapshot.file}`,
  );
}

/** `kontor setup-link`: a new one-time setup link, while no user exists (docs/web.md). */
async function setupLink(config: Config): Promise<number> {
  const token = await withDb(config, ({ db }) =>
    createSetupLink({ db, clock: { now: () => new Date() } }),
  );
  if (token === undefined) {
    console.error(
      'This installation has users already: sign in, and invite further users in the settings.',
    );
    return 1;
  }
  console.log(
    `Create the owner account in your browser (the link works once):\n\n  ${config.publicUrl}/setup#token=${token}\n`,
  );
  return 0;
}

/** `kontor doctor`: every stored date the API refuses, one line each; 1 when there is any. */
async function doctor(config: Config, accountId: string | undefined): Promise<number> {
  const bad = await withDb(config, ({ db }) => findBadDates(db, new Date(), accountId));
  for (const b of bad)
    console.log(
      `${b.table}\t${b.id}\taccount ${b.accountId}\t${b.column}\t${b.value}\t${b.reason}`,
    );
  console.log(
    bad.length === 0
      ? 'Every stored date is a calendar date in its range.'
      : `${bad.length} stored date(s) need correcting (docs/operations.md, "Dates").`,
  );
  return bad.length === 0 ? 0 : 1;
}

async function run(args: string[]): Promise<number> {
  const config = loadConfig();
  const [command, sub, ...rest] = args;
  switch (`${command ?? ''} ${sub ?? ''}`.trim()) {
    case 'api-keys create': {
      const nameIndex = rest.indexOf('--name');
      const name = nameIndex >= 0 ? (rest[nameIndex + 1] ?? 'cli') : 'cli';
      const key = await withDb(config, ({ db }) => createApiKey(db, name));
      console.log(`Created ${key.id} (${name}). The key is shown only now:\n\n  ${key.key}\n`);
      return 0;
    }
    case 'api-keys list': {
      const keys = await withDb(config, ({ db }) => listApiKeys(db));
      for (const k of keys)
        console.log(
          `${k.id}  ${k.prefix}…  ${k.name}  created ${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`,
        );
      if (keys.length === 0) console.log('No API keys.');
      return 0;
    }
    case 'api-keys revoke': {
      if (!rest[0]) break;
      const id = rest[0];
      const ok = await withDb(config, ({ db }) => revokeApiKey(db, id));
      if (!ok) {
        console.error(`No active API key ${id}.`);
        return 1;
      }
      await broadcastRevocation(config, id);
      console.log(`Revoked ${id}.`);
      return 0;
    }
    case 'audit verify': {
      const report = await withDb(config, ({ db }) => verifyAuditChain(db));
      console.log(
        `Checked ${plural(report.events, 'event')} in ${plural(report.accounts, 'account')}.`,
      );
      for (const b of report.broken)
        console.log(`BROKEN account ${b.accountId} seq ${b.seq} (${b.eventId}): ${b.reason}`);
      if (report.broken.length === 0) console.log('Every chain is intact.');
      return report.broken.length === 0 ? 0 : 1;
    }
    default:
      if (command === 'migrate') {
        // Without withDb's own migration first, which would leave this one nothing to report.
        const { applied, bad } = await withDb(
          config,
          async ({ db }) => ({
            applied: await migrate(db),
            bad: await findBadDates(db, new Date()),
          }),
          { migrateFirst: false },
        );
        const known = Object.keys(migrations).length;
        console.log(
          applied.length === 0
            ? `Database is up to date (${known} migrations).`
            : [
                `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}:`,
                ...applied.map((name) => `  ${name}`),
                `Database is now up to date (${known} migrations).`,
              ].join('\n'),
        );
        if (bad.length > 0)
          console.warn(
            `WARNING: ${bad.length} stored date(s) are impossible or out of range; run \`npx kontor doctor\` to list them.`,
          );
        return 0;
      }
      if (command === 'setup-link') return setupLink(config);
      if (command === 'doctor') return doctor(config, sub === '--account' ? rest[0] : undefined);
      if (command === 'backup' && sub) {
        await backup(config, sub);
        return 0;
      }
  }
  console.error(USAGE);
  return 64;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ConfigError || err instanceof Error ? err.message : err);
    process.exit(1);
  },
);

/** `1 account`, `2 accounts`: the CLI's counts read as sentences. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
