import net from 'node:net';
import path from 'node:path';

/** For tests that start Kontor as a process: a free port and the build `npm start` uses. */

export const root = path.resolve(import.meta.dirname, '..');

/** A TCP port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `scripts/build.mjs`'s `ensureBuilt`: rebuilds `dist/` only when the sources changed. */
export async function loadEnsureBuilt(): Promise<() => boolean> {
  const { ensureBuilt } = (await import(path.join(root, 'scripts', 'build.mjs'))) as {
    ensureBuilt: () => boolean;
  };
  return ensureBuilt;
}
