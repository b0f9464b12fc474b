import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from './helpers.js';

/**
 * A TCP proxy in front of PostgreSQL: cutting its sockets is a real connection loss, as when
 * the database restarts or a network path drops, without disturbing other test files.
 */
function proxyTo(target: URL) {
  const sockets = new Set<net.Socket>();
  let accepting = true;
  const server = net.createServer((client) => {
    if (!accepting) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    cut: () => sockets.forEach((s) => s.destroy()),
    setAccepting: (on: boolean) => (accepting = on),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.runIf(dbKind === 'postgres')('database outage', () => {
  let t: TestApp | undefined;
  const proxy = proxyTo(new URL(process.env.DATABASE_URL ?? 'postgres://localhost'));
  afterAll(async () => {
    await t?.close();
    await proxy.close();
  });

  it('answers 503 while the database is unreachable and recovers without a restart', async () => {
    const port = await proxy.listen();
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    t = await buildTestApp({ env: { DATABASE_URL: url.toString() } });
    const user = await createUser(t);
    const ok = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'Before' },
    });
    expect(ok.statusCode).toBe(201);

    proxy.setAccepting(false);
    proxy.cut();
    const down = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'During' },
    });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ code: 'service_unavailable' });
    expect(down.headers['retry-after']).toBe('1');
    const ready = await t.request({ method: 'GET', url: '/ready', key: null });
    expect(ready.statusCode).toBe(503);

    proxy.setAccepting(true);
    const after = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'After' },
    });
    expect(after.statusCode).toBe(201);
    const names = (await t.request({ method: 'GET', url: '/v1/partners', token: user.token }))
      .json()
      .data.map((p: { name: string }) => p.name);
    expect(names).toEqual(['After', 'Before']);
  });
});
