import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where `vite build` puts the web app: `web/dist` beside `src/` and `dist/`. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * The web app's Content-Security-Policy: its own origin only, no inline script or style, never
 * framed. `blob:` frames show a PDF the page fetched; `data:` images are the app's own icons.
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Paths the API keeps for itself (`/c/` is the customer's page): an unknown one there is a
 * problem, never the app.
 */
const API_PREFIXES = ['/v1/', '/docs', '/assets/', '/health', '/ready', '/openapi.json', '/c/'];

const SHELL_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // The shell names the hashed assets of the build that is running: never kept, so a new
  // version is picked up on the next load.
  'cache-control': 'no-store',
  'content-security-policy': APP_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Answers an app route with the shell; false when the request is not for the app. */
export type AppShell = (req: FastifyRequest, reply: FastifyReply) => boolean;

/**
 * The web app's files, served by the API process: hashed `/assets/*` cached for a year (a new
 * build has new names), and `index.html` for every app route (`/`, `/invoices`, `/partners/…`)
 * so links can be shared, while `/v1/*`, `/docs` and `/health` keep their answers. Answers
 * undefined when the app is not built (the API works alone; the log says so).
 */
export async function registerWebApp(
  app: FastifyInstance,
  dist: string = WEB_DIST,
): Promise<AppShell | undefined> {
  const indexFile = path.join(dist, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ dist }, 'web app not built (npm run build): serving the API only');
    return undefined;
  }
  const html = fs.readFileSync(indexFile);
  const assets = path.join(dist, 'assets');
  if (fs.existsSync(assets))
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      // Built with content hashes in their names: what a name serves never changes.
      immutable: true,
      maxAge: '365d',
      // `.br` and `.gz` files written beside each asset by the build, chosen by Accept-Encoding.
      preCompressed: true,
      setHeaders: (res) => {
        res.header('x-content-type-options', 'nosniff');
      },
    });
  return (req, reply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url.split('?')[0] ?? '/';
    if (API_PREFIXES.some((p) => url === p.replace(/\/$/, '') || url.startsWith(p))) return false;
    // A file name the build does not have (`/favicon.ico`) is a 404, not the app.
    if (/\.[A-Za-z0-9]+$/.test(url)) return false;
    void reply.code(200).headers(SHELL_HEADERS).send(html);
    return true;
  };
}
