/**
 * Writes the OpenAPI document of the app to `openapi/openapi.json` (`npm run openapi`), or with
 * `--check` fails when the committed file differs from what the code produces
 * (`npm run openapi:check`, run in CI), so the published contract cannot drift from the routes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'openapi', 'openapi.json');
const relativeTarget = path.relative(root, target);

/** The document as the app serves it, pretty-printed with a trailing newline. */
async function generate(): Promise<string> {
  // A throwaway SQLite file, not `sqlite::memory:`: loadConfig resolves the path after `sqlite:`,
  // which would turn `:memory:` into a file named `:memory:` in the working directory.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-openapi-'));
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
      LOG_LEVEL: 'silent',
    });
    const app = await buildApp(config);
    try {
      await app.ready();
      return `${JSON.stringify(app.swagger(), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  const document = await generate();
  if (check) {
    const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
    if (committed !== document) {
      process.stderr.write(
        committed === undefined
          ? `${relativeTarget} is missing: run npm run openapi\n`
          : `${relativeTarget} is out of date: run npm run openapi\n`,
      );
      return 1;
    }
    process.stdout.write(`${relativeTarget} is up to date\n`);
    return 0;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, document);
  process.stdout.write(`wrote ${relativeTarget}\n`);
  return 0;
}

process.exitCode = await main();
