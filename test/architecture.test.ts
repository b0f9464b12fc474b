/**
 * Two walls dependency-cruiser cannot see, because they are about calls rather than imports
 * (docs/architecture.md, "Boundaries"): SQL lives in repositories, and every table has one
 * writer. Both read the source text, so a new query in a service or a second writer of a
 * table fails here with the file and line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', 'src');

/** Source files that ship (tests and migrations aside). */
function sources(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(full);
    return /\.ts$/.test(entry.name) && !/\.test(-support)?\.ts$/.test(entry.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

/**
 * Outside the modules, the few files that are the store of their own tables or the database
 * layer itself. Each is named with why; anything else with SQL fails.
 */
const INFRASTRUCTURE: Record<string, string> = {
  'db/records.ts': 'the generic record queries every repository builds on',
  'db/database.ts': 'opening, migrating and checkpointing the database',
  'db/dialect.ts': 'dialect helpers (text search, unique violations)',
  'db/date-check.ts': 'the read-only check of every date column (`kontor doctor`, start warning)',
  'db/json-object.ts': "records' JSON answers the database keeps (migrations) and reads them",
  'shared/audit.ts': 'the audit trail: the one writer of audit_events and its chain heads',
  'shared/jobs.ts': 'the embedded job queue: the one writer of jobs',
  'shared/references.ts': 'which records still reference a record (a generic read)',
  'http/idempotency.ts': 'stored answers: the one writer of idempotency_keys',
  'db/backup.ts': 'backups: the advisory lock that keeps a second replica from writing one',
};

const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(<[^>]*>)?`/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

describe('architecture', () => {
  it('keeps SQL in repositories (and the named infrastructure files)', () => {
    const outside: string[] = [];
    let inRepositories = 0;
    for (const file of sources()) {
      const name = rel(file);
      const text = fs.readFileSync(file, 'utf8');
      const queries = [...text.matchAll(QUERY)];
      if (name.startsWith('modules/') && /\.repository\.ts$/.test(name))
        inRepositories += queries.length;
      else if (!(name in INFRASTRUCTURE))
        for (const m of queries) outside.push(`${name}:${lineOf(text, m.index)}`);
    }
    expect(outside).toEqual([]);
    // The pattern finds queries where they belong (a broken pattern would pass vacuously).
    expect(inRepositories).toBeGreaterThan(100);
  });

  it('gives every table one writer', () => {
    const writers = new Map<string, Set<string>>();
    const WRITE =
      /\.(?:insertInto|updateTable|deleteFrom)\(\s*'([a-z_]+)|recordQueries\(\s*'([a-z_]+)'|\b(?:insert\s+into|delete\s+from)\s+"?([a-z_]+)"?|\bupdate\s+"?([a-z_]+)"?\s+set\b/gi;
    for (const file of sources()) {
      const name = rel(file);
      // A module is one writer, whichever of its repositories writes; elsewhere the file is.
      const owner = name.startsWith('modules/') ? name.split('/').slice(0, 2).join('/') : name;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(WRITE)) {
        const table = (m[1] ?? m[2] ?? m[3] ?? m[4])!.toLowerCase();
        writers.set(table, (writers.get(table) ?? new Set()).add(owner));
      }
    }
    const shared = [...writers]
      .filter(([, owners]) => owners.size > 1)
      .map(([table, owners]) => `${table}: ${[...owners].sort().join(', ')}`);
    expect(shared).toEqual([]);
    // The check sees the tables it is about (a broken pattern would pass vacuously).
    expect([...writers.keys()]).toEqual(
      expect.arrayContaining(['payments', 'users', 'auth_tokens', 'accounts', 'audit_events']),
    );
  });
});
