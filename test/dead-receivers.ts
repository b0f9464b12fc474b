import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** Servers on 127.0.0.1 that accept connections and never answer; they count what they saw. */
export class DeadReceivers {
  private readonly servers: net.Server[] = [];
  private readonly sockets = new Set<net.Socket>();
  /** Connections accepted so far, and the most open at once. */
  accepted = 0;
  mostOpen = 0;
  private open = 0;

  async start(n: number): Promise<string[]> {
    const urls: string[] = [];
    for (let i = 0; i < n; i++) {
      const server = net.createServer((socket) => {
        this.accepted++;
        this.open++;
        this.mostOpen = Math.max(this.mostOpen, this.open);
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.open--;
          this.sockets.delete(socket);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    }
    return urls;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}
