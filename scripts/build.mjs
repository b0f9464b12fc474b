/**
 * Builds `dist/` with tsc and records what it was built from, so `npm start` can start from
 * the build made at install (`prepare`) and rebuild only when the sources changed.
 * `node scripts/build.mjs` always builds; `--if-changed` builds only when the sources differ
 * from the recorded ones.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = path.join(root, 'dist', '.build-stamp');

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

/** A hash of everything the build reads: sources, TypeScript configuration, the lock file. */
export function sourceHash() {
  const hash = createHash('sha256');
  const inputs = [
    ...files(path.join(root, 'src')).filter((f) => f.endsWith('.ts')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => path.join(root, f)),
  ].sort();
  for (const file of inputs) {
    hash.update(path.relative(root, file));
    hash.update('\0');
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Whether dist/ was built from the sources as they are now. */
export function isBuilt(hash = sourceHash()) {
  try {
    return (
      fs.readFileSync(stampFile, 'utf8').trim() === hash &&
      fs.existsSync(path.join(root, 'dist', 'server.js'))
    );
  } catch {
    return false;
  }
}

/** Runs tsc (incremental) and records the sources it built; throws when tsc fails. */
export function build(hash = sourceHash()) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`tsc failed (exit ${result.status ?? result.signal})`);
  fs.writeFileSync(stampFile, `${hash}\n`);
}

/** Builds when the sources changed since the last build; answers whether it built. */
export function ensureBuilt() {
  const hash = sourceHash();
  if (isBuilt(hash)) return false;
  build(hash);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-changed')) ensureBuilt();
    else build();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
