import net from 'node:net';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPort, portProblem } from './port.js';

/** Another program's server on a port the OS picked, on 127.0.0.1. */
let other: net.Server;
let port: number;
beforeEach(async () => {
  other = net.createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  port = (other.address() as net.AddressInfo).port;
});
afterEach(() => new Promise<void>((resolve) => other.close(() => resolve())));

const inUse = (p: number) =>
  `Port ${p} is in use by another program; set PORT=… to use another port (e.g. PORT=3001 npm start). Kontor did not start.`;

describe('the port check', () => {
  it('refuses a port another program holds, with the message the start prints', async () => {
    const err = await checkPort(port, '127.0.0.1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(portProblem(err, port, '127.0.0.1')).toBe(inUse(port));
  });

  it('gives the same message when the server itself fails to listen (the port taken after the check)', async () => {
    const app = Fastify();
    try {
      const err = await app.listen({ port, host: '127.0.0.1' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(portProblem(err, port, '127.0.0.1')).toBe(inUse(port));
    } finally {
      await app.close();
    }
  });

  it('lets a free port go again, and has nothing to say about other errors', async () => {
    await new Promise<void>((resolve) => other.close(() => resolve()));
    await checkPort(port, '127.0.0.1');
    // Free again after the check: the server can take it.
    other = net.createServer();
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    expect(portProblem(new Error('boom'), port, '127.0.0.1')).toBeUndefined();
    expect(portProblem(undefined, port, '127.0.0.1')).toBeUndefined();
  });
});
