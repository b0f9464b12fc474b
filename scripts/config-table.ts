/**
 * Writes the configuration table generated from `src/config.ts` into README.md between
 * `<!-- config:start -->` and `<!-- config:end -->` (`npm run docs:config`), or with `--check`
 * fails when the README's table differs from the code (`npm run docs:config:check`, run in CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { configTableMarkdown } from '../src/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = path.join(root, 'README.md');
const START = '<!-- config:start -->';
const END = '<!-- config:end -->';

/** The table as Prettier lays it out, so `npm run format` and this script agree on the bytes. */
async function formattedTable(): Promise<string> {
  const options = (await prettier.resolveConfig(readme)) ?? {};
  const table = await prettier.format(configTableMarkdown(), {
    ...options,
    parser: 'markdown',
  });
  return table.trimEnd();
}

/** `text` with the region between the markers replaced by `table`; undefined without markers. */
function withTable(text: string, table: string): string | undefined {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end === -1 || end < start) return undefined;
  // Blank lines around the table: Prettier puts them there, so `npm run format` keeps the bytes.
  return `${text.slice(0, start + START.length)}\n\n${table}\n\n${text.slice(end)}`;
}

async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  if (!fs.existsSync(readme)) {
    if (check) {
      process.stderr.write('README.md is missing: run npm run docs:config\n');
      return 1;
    }
    // The lead writes the prose around the markers; the placeholder only holds the table.
    fs.writeFileSync(readme, `# Kontor\n\n${START}\n\n${END}\n`);
  }
  const current = fs.readFileSync(readme, 'utf8');
  const next = withTable(current, await formattedTable());
  if (next === undefined) {
    process.stderr.write(`README.md needs the markers ${START} and ${END}, in that order\n`);
    return 1;
  }
  if (check) {
    if (next !== current) {
      process.stderr.write(
        'README.md configuration table is out of date: run npm run docs:config\n',
      );
      return 1;
    }
    process.stdout.write('README.md configuration table is up to date\n');
    return 0;
  }
  if (next !== current) fs.writeFileSync(readme, next);
  process.stdout.write(
    `README.md configuration table ${next === current ? 'unchanged' : 'updated'}\n`,
  );
  return 0;
}

process.exitCode = await main();
