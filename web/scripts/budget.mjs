/**
 * The web app's JS budget, per route, from the build manifest (`npm run budget -w @kontor/web`
 * after a build): the gzip size of every JS chunk a route needs — the entry, the route's own
 * chunk and everything both import statically (and, for a signed-in screen, the shell). Sign-in
 * ≤ 120 kB, any other screen ≤ 250 kB
 * (kB = 1000 bytes; gzip level 9, as a server would send it). Exits 1 when over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));

/** The pages a signed-out visitor sees: they load without the signed-in shell. */
const PUBLIC_PAGES = new Set([
  'src/routes/ForgotPassword.tsx',
  'src/routes/ResetPassword.tsx',
  'src/routes/Setup.tsx',
]);
const SHELL = 'src/components/Shell.tsx';

/**
 * Every page chunk the router loads lazily (a dynamic entry under src/routes/), each with what
 * it needs besides itself: the entry, and for a signed-in screen the shell around it. Sign-in
 * is part of the entry chunk (src/router.tsx), so the entry alone is its JS.
 */
const budgets = [
  { route: '/sign-in', module: null, limit: 120_000 },
  ...Object.keys(manifest)
    .filter((key) => manifest[key].isDynamicEntry && key.startsWith('src/routes/'))
    .sort()
    .map((key) => ({
      route: key.replace(/^src\/routes\//, '').replace(/\.tsx?$/, ''),
      module: key,
      limit: 250_000,
      with: PUBLIC_PAGES.has(key) ? [] : [SHELL],
    })),
];

/** The manifest keys a chunk pulls in statically, itself included. */
function closure(key, seen = new Set()) {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const next of manifest[key]?.imports ?? []) closure(next, seen);
  return seen;
}

const gzipped = (file) => gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;
const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
let over = false;
for (const { route, module, limit, with: extra = [] } of budgets) {
  if (module !== null && !manifest[module]) throw new Error(`${module} is not in the manifest`);
  const keys = new Set();
  for (const key of [entry, ...(module === null ? [] : [module]), ...extra])
    for (const k of closure(key)) keys.add(k);
  const files = [...keys].map((key) => manifest[key].file).filter((file) => file.endsWith('.js'));
  const bytes = files.reduce((sum, file) => sum + gzipped(file), 0);
  const verdict = bytes <= limit ? 'ok' : 'OVER';
  if (bytes > limit) over = true;
  console.log(
    `${route.padEnd(22)} ${(bytes / 1000).toFixed(1).padStart(6)} kB gzip of ${limit / 1000} kB  ${verdict}  (${files.length} chunks)`,
  );
}
process.exit(over ? 1 : 0);
