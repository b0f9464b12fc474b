/**
 * `npm run bench:statements`: which SQLite statements are compiled again before every run.
 *
 * SQLite marks a statement to be prepared again when its planner looked at a parameter's value
 * (a bound LIMIT, `col = ?` in its row estimates, a LIKE pattern, a partial index's condition),
 * and better-sqlite3 clears the bindings after each run, which expires every such statement.
 * Nothing in better-sqlite3 tells, so this compiles a small C program against the SQLite that
 * better-sqlite3 itself builds (its amalgamation and its compile options, from node_modules)
 * and asks SQLite: each statement is prepared, then bound, run, reset and cleared three times
 * as better-sqlite3 does, and `sqlite3_stmt_status(SQLITE_STMTSTATUS_REPREPARE)` says how often
 * it was compiled again.
 *
 * The statements are every SQL text the app prepared while the verbs of `bench:verbs` ran in
 * process (partners, invoices, payments, contracts, the dashboard; SQLite only). The database is
 * opened read-only, so writes fail at their first step — after the re-preparation, which is
 * what is counted. Needs gcc (Debian: build-essential). Not a test.
 *   npm run bench:statements
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { billingAddress, inProcessApp, invoicingCustomer, say } from './in-process.js';
import { INVOICE_LINES, invoiceBody } from './seed-resources.js';

const CHECKER = String.raw`
#include "sqlite3.h"
#include <stdio.h>
#include <string.h>
/* argv[1]: database; argv[2]: statements, one per line. Prints "<repreparations>\t<sql>". */
int main(int argc, char **argv) {
  sqlite3 *db;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, 0) != SQLITE_OK) return 2;
  FILE *in = fopen(argv[2], "r");
  static char line[1 << 20];
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = 0;
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v3(db, line, -1, SQLITE_PREPARE_PERSISTENT, &stmt, 0) != SQLITE_OK) {
      printf("error\t%s\n", line);
      continue;
    }
    for (int run = 0; run < 3; run++) {
      for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); i++) sqlite3_bind_null(stmt, i);
      while (sqlite3_step(stmt) == SQLITE_ROW) {}
      sqlite3_reset(stmt);
      sqlite3_clear_bindings(stmt);
    }
    printf("%d\t%s\n", sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_REPREPARE, 0), line);
    sqlite3_finalize(stmt);
  }
  return 0;
}
`;

/** The checker, built once per better-sqlite3 version in the temp folder. */
function buildChecker(): string {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('better-sqlite3/package.json'));
  const version = (
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const dir = path.join(os.tmpdir(), `kontor-statements-${version}`);
  const binary = path.join(dir, 'checker');
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'checker.c'), CHECKER);
  // The compile options better-sqlite3 builds SQLite with (deps/defines.gypi).
  const defines = [
    ...fs
      .readFileSync(path.join(root, 'deps', 'defines.gypi'), 'utf8')
      .matchAll(/'([A-Z0-9_=-]+)'/g),
  ].map((m) => `-D${m[1]}`);
  const amalgamation = path.join(root, 'deps', 'sqlite3');
  say('building the checker against better-sqlite3’s SQLite (about 20 s) …');
  execFileSync('gcc', [
    '-O1',
    ...defines,
    `-I${amalgamation}`,
    '-o',
    binary,
    path.join(dir, 'checker.c'),
    path.join(amalgamation, 'sqlite3.c'),
    '-lpthread',
    '-ldl',
    '-lm',
  ]);
  return binary;
}

const checker = buildChecker();
const prepared = new Set<string>();
// Every SQL text the app prepares, recorded on its way to better-sqlite3.
const { prepare } = SQLite.prototype as {
  prepare: (this: SQLite.Database, source: string) => SQLite.Statement;
};
SQLite.prototype.prepare = function (this: SQLite.Database, source: string) {
  prepared.add(source.replace(/\s+/g, ' ').trim());
  return prepare.call(this, source);
} as typeof SQLite.prototype.prepare;

const b = await inProcessApp('statements');
try {
  const partner = await invoicingCustomer(b);
  const partnerId = partner.id;
  await b.call('GET', `/v1/partners/${partnerId}`);
  await b.call('GET', '/v1/partners?limit=25');
  await b.call('PUT', `/v1/partners/${partnerId}`, {
    version: partner.version,
    name: 'Kunde AG',
    type: 'CUSTOMER',
    addresses: [billingAddress()],
  });
  const draft = await b.callJson('POST', '/v1/documents', invoiceBody(partnerId, 1));
  const edited = await b.callJson('PUT', `/v1/documents/${draft.id as string}`, {
    version: draft.version,
    name: 'Rechnung',
    lineItems: INVOICE_LINES,
  });
  const final = await b.callJson('PUT', `/v1/documents/${draft.id as string}`, {
    version: edited.version,
    status: 'FINAL',
  });
  await b.call('GET', `/v1/documents/${final.id as string}`);
  await b.call('POST', '/v1/payments', {
    documentId: final.id,
    amount: 10,
    currency: 'EUR',
    paymentDate: '2026-11-02',
    direction: 'INCOMING',
    status: 'MARKED',
  });
  for (const url of [
    '/v1/documents?documentType=INVOICE&limit=25',
    '/v1/documents?open=true&limit=25',
    `/v1/documents?partnerId=${partnerId}&limit=25`,
    '/v1/payments?limit=25',
    '/v1/contracts?limit=25',
    '/v1/dashboard/stats',
    '/v1/dashboard/timeseries',
  ])
    await b.call('GET', url);
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(b.ctx.db);
  const list = path.join(b.dataDir, 'statements.sql');
  const statements = [...prepared].filter((s) => /^(select|insert|update|delete|with)\b/i.test(s));
  fs.writeFileSync(list, `${statements.join('\n')}\n`);
  const report = execFileSync(checker, [path.join(b.dataDir, 'kontor.sqlite'), list])
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.split('\t') as [string, string]);
  const again = report.filter(([count]) => count !== '0');
  say(
    `${statements.length} statements prepared by the verbs; compiled again on every run: ${again.length}`,
  );
  for (const [count, text] of again)
    say(`  ${count === 'error' ? 'error' : `${count}/3`}  ${text.slice(0, 220)}`);
} finally {
  (SQLite.prototype as { prepare: typeof prepare }).prepare = prepare;
  await b.close();
}
