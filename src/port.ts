import net from 'node:net';

/**
 * What the operator reads when the server cannot have its port, instead of a stack trace:
 * the message for a listen error, or undefined when `err` is not about the port or address.
 */
export function portProblem(err: unknown, port: number, host = 'localhost'): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE')
    return `Port ${port} is in use by another program; set PORT=… to use another port (e.g. PORT=3001 npm start). Kontor did not start.`;
  if (code === 'EACCES')
    return `Port ${port} on ${host} needs privileges this user lacks; set PORT=… to a port above 1023. Kontor did not start.`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST=${host} is not an address of this machine; set HOST=… to one of its interfaces. Kontor did not start.`;
  return undefined;
}

/**
 * Binds the port for a moment and lets it go: rejects with the listen error when another
 * program holds it, so that a start can stop before it creates or prints anything. Port 0
 * (any free port) always succeeds. Without a host, Fastify's default (`localhost`) is tried.
 */
export function checkPort(port: number, host = 'localhost'): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
