/**
 * `npm start`: starts the server from `dist/` (built at install by `prepare`), rebuilding
 * first only when the sources changed since that build. The server runs in this process, so
 * SIGTERM and SIGINT reach its graceful shutdown directly (`npm start` execs this script).
 */
import { ensureBuilt, ensureWebBuilt } from './build.mjs';

try {
  if (ensureBuilt()) console.error('kontor: sources changed since the last build; rebuilt dist/');
  if (ensureWebBuilt()) console.error('kontor: web sources changed; rebuilt web/dist/');
} catch (err) {
  console.error(`kontor: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
await import('../dist/server.js');
