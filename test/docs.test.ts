import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/shared/errors.js';
import { buildTestApp, type TestApp } from './helpers.js';

const readDoc = (name: string) =>
  fs.readFileSync(path.resolve(import.meta.dirname, '../docs', name), 'utf8');

/** What a cell of the role table says: ✓ (maybe with a qualifier), – or a partial right. */
const verdict = (cell: string) => (cell === '–' ? 'no' : cell.startsWith('✓') ? 'yes' : 'partly');

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** README.md and every page of docs/, with their paths relative to the repository. */
function productDocs(): Array<[string, string]> {
  const root = path.resolve(import.meta.dirname, '..');
  const pages = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...pages].map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]);
}

describe('docs', () => {
  it('README.md and docs/ stand alone: no files outside the repository, no tracker issues', () => {
    const docs = productDocs();
    expect(docs.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const [file, text] of docs)
      text.split('\n').forEach((line, i) => {
        // "issue date" and "issued" are invoice words; "issue 12" / "issues #3" are a tracker's.
        const patterns = [/\.\.\/shared\b/, /\bissues?\s+#?\d+/i, /\/work\//];
        if (patterns.some((p) => p.test(line))) outside.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    expect(outside).toEqual([]);
  });

  it('docs/api-conventions.md lists every error code the API answers', () => {
    const doc = readDoc('api-conventions.md');
    for (const code of Object.keys(ERROR_CODES)) expect(doc, code).toContain(`\`${code}\``);
  });

  it('docs/auth.md has every route in one row of its role table, with the route’s level', () => {
    const rows = readDoc('auth.md')
      .split('\n')
      .filter((l) => l.startsWith('| ') && l.includes('`'))
      .map((l) => l.split('|').map((c) => c.trim()));
    const documented = new Map<string, string[]>();
    for (const [, , routes, ...roles] of rows) {
      for (const [, route] of routes!.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)) {
        expect(documented.has(route!), `${route} in two rows`).toBe(false);
        documented.set(route!, roles.slice(0, 4).map(verdict));
      }
    }
    const expected = {
      public: ['yes', 'yes', 'yes', 'yes'],
      apiKey: ['no', 'yes', 'yes', 'yes'],
      user: ['no', 'no', 'yes', 'yes'],
      admin: ['no', 'no', 'no', 'yes'],
    };
    const routes = new Set<string>();
    for (const r of t.app.routeTable) {
      if (r.method === 'HEAD') continue;
      const url = r.url.startsWith('/docs') ? '/docs/*' : r.url.replace(/:(\w+)/g, '{$1}');
      const route = `${r.method} ${url}`;
      routes.add(route);
      const want = r.adminWhen ? ['no', 'no', 'partly', 'yes'] : expected[r.access];
      expect(documented.get(route), route).toEqual(want);
    }
    expect([...documented.keys()].filter((r) => !routes.has(r))).toEqual([]);
  });
});
