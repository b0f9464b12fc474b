/**
 * The web app's two locales carry the same keys, and every key the sources use exists: a
 * text missing in one language would show its key to the user. Keys in use are found by
 * reading the sources for `t('…')` calls (dynamic keys are not used, so the grep is complete).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const web = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'web', 'src');

type Tree = { [key: string]: string | Tree };

function keysOf(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keysOf(value, `${prefix}${key}.`),
  );
}

function locale(name: string): Tree {
  return JSON.parse(fs.readFileSync(path.join(web, 'locales', `${name}.json`), 'utf8')) as Tree;
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Keys used as `t('a.b')` / `t("a.b", …)` / `i18nKey="a.b"` anywhere in web/src. */
function usedKeys(): Map<string, string> {
  const used = new Map<string, string>();
  const pattern = /(?:\bt\(\s*|i18nKey=)(['"`])([A-Za-z0-9_.-]+)\1/g;
  for (const file of sources(web)) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(pattern)) {
      used.set(match[2]!, path.relative(web, file));
    }
  }
  return used;
}

describe('web locales', () => {
  const de = keysOf(locale('de')).sort();
  const en = keysOf(locale('en')).sort();

  it('de.json and en.json have the same keys', () => {
    expect(
      en.filter((key) => !de.includes(key)),
      'in en.json only',
    ).toEqual([]);
    expect(
      de.filter((key) => !en.includes(key)),
      'in de.json only',
    ).toEqual([]);
  });

  it('every key the sources use exists in both locales', () => {
    const used = usedKeys();
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter(([key]) => !de.includes(key) || !en.includes(key));
    expect(missing.map(([key, file]) => `${key} (${file})`)).toEqual([]);
  });

  it('no locale text is empty', () => {
    for (const name of ['de', 'en']) {
      const flat = keysOf(locale(name));
      const tree = locale(name);
      const empty = flat.filter((key) => {
        const value = key
          .split('.')
          .reduce<Tree | string>((node, part) => (node as Tree)[part]!, tree);
        return typeof value !== 'string' || value.trim() === '';
      });
      expect(empty, name).toEqual([]);
    }
  });
});
