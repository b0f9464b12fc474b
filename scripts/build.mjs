/**
 * Builds `dist/` and records what it was built from, so `npm start` can start from the build
 * made at install (`prepare`) and rebuild only when the sources changed. The build transpiles
 * each source file on its own with esbuild (~1 s; tsc took ~12 s, 38 s in CI beside the other
 * gates): the code the tests run through vitest and tsx is transpiled the same way, and
 * `tsconfig.json` has `isolatedModules` and `verbatimModuleSyntax`, so every file can be.
 * Types are checked by `npm run typecheck` (in `npm run check` and CI), not by the build.
 * `node scripts/build.mjs` always builds; `--if-changed` builds only when the sources differ
 * from the recorded ones.
 *
 * The web app (`web/`, served by the API from `web/dist`) is built by Vite in a child process
 * (`vite build`, ~2 s) whenever its own sources changed, with its own stamp in `web/dist`: a
 * change under `src/` alone does not rebuild it, and one under `web/` alone does not rebuild
 * `dist/`. A checkout without `web/` (or without Vite installed) skips it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp');

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

function hashFiles(inputs) {
  const hash = createHash('sha256');
  for (const file of [...inputs].sort()) {
    hash.update(path.relative(root, file));
    hash.update('\0');
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** A hash of everything the build reads: sources, TypeScript configuration, the lock file. */
export function sourceHash() {
  return hashFiles([
    ...files(path.join(root, 'src')).filter((f) => f.endsWith('.ts')),
    ...['tsconfig.json', 'package-lock.json', 'scripts/build.mjs'].map((f) => path.join(root, f)),
  ]);
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

/** The files the service runs: every source but tests, test support and declarations. */
function entryPoints() {
  return files(path.join(root, 'src')).filter(
    (f) =>
      f.endsWith('.ts') &&
      !f.endsWith('.d.ts') &&
      !f.endsWith('.test.ts') &&
      !f.endsWith('.test-support.ts'),
  );
}

/**
 * Transpiles `src/` into a fresh folder and puts it in place of `dist/` (a file deleted from
 * `src/` leaves nothing behind), then records the sources it built; throws when esbuild fails.
 */
export function build(hash = sourceHash()) {
  const next = `${dist}.next-${process.pid}`;
  const old = `${dist}.old-${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  try {
    buildSync({
      entryPoints: entryPoints(),
      outdir: next,
      outbase: path.join(root, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      logLevel: 'warning',
    });
  } catch (err) {
    fs.rmSync(next, { recursive: true, force: true });
    throw err;
  }
  fs.writeFileSync(path.join(next, '.build-stamp'), `${hash}\n`);
  if (fs.existsSync(dist)) fs.renameSync(dist, old);
  fs.renameSync(next, dist);
  fs.rmSync(old, { recursive: true, force: true });
}

/** Builds when the sources changed since the last build; answers whether it built. */
export function ensureBuilt() {
  const hash = sourceHash();
  if (isBuilt(hash)) return false;
  build(hash);
  return true;
}

const web = path.join(root, 'web');
const webDist = path.join(web, 'dist');
const webStampFile = path.join(webDist, '.build-stamp');

/** Whether this checkout has the web app's sources (the container build may leave them out). */
export function hasWeb() {
  return fs.existsSync(path.join(web, 'index.html')) && fs.existsSync(path.join(web, 'src'));
}

/** A hash of what `vite build` reads: the app's sources, its config, the lock file. */
export function webSourceHash() {
  return hashFiles([
    ...files(path.join(web, 'src')).filter((f) => !f.endsWith('.test.ts')),
    ...['index.html', 'vite.config.ts', 'package.json'].map((f) => path.join(web, f)),
    ...['package-lock.json', 'scripts/build.mjs'].map((f) => path.join(root, f)),
  ]);
}

/** Whether web/dist was built from the web sources as they are now. */
export function isWebBuilt(hash = webSourceHash()) {
  try {
    return (
      fs.readFileSync(webStampFile, 'utf8').trim() === hash &&
      fs.existsSync(path.join(webDist, 'index.html'))
    );
  } catch {
    return false;
  }
}

/** Vite's command line, or null when dev dependencies were left out (`npm ci --omit=dev`). */
function viteBin() {
  try {
    const manifest = createRequire(path.join(web, 'package.json')).resolve('vite/package.json');
    return path.join(path.dirname(manifest), 'bin', 'vite.js');
  } catch {
    return null;
  }
}

/** Runs `vite build` for web/ and stamps the result; throws when Vite fails. */
export function buildWeb(hash = webSourceHash()) {
  const vite = viteBin();
  if (vite === null) {
    console.error('kontor: Vite is not installed; web/dist not built');
    return;
  }
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: web,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status})`);
  fs.writeFileSync(webStampFile, `${hash}\n`);
}

/** Builds web/dist when the web sources changed; answers whether it built. */
export function ensureWebBuilt() {
  if (!hasWeb()) return false;
  const hash = webSourceHash();
  if (isWebBuilt(hash)) return false;
  buildWeb(hash);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--if-changed')) ensureBuilt();
    else build();
    ensureWebBuilt();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
