// `node bench/saturation-tail.mjs [cpu ms per request …]`: the tail of a bare `node:http` server
// that is saturated by the harness's load — `wrk` with 1 thread and 50 connections on CPU 0,
// the server on CPU 1, each request burning the given CPU time (default 0.2, 0.8 and 1.5 ms)
// and answering 10 KiB of JSON. A closed-loop load at 50 connections keeps such a server
// saturated, and its p99 then sits far above its p50 with nothing but the handler's CPU in the
// way: the floor a Kontor request of the same CPU cost has under the same load. Not a test.
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const SERVER = `
const http = require('node:http');
const spin = Number(process.argv[1]);
const body = JSON.stringify({ data: Array.from({ length: 25 }, (_, i) => ({ i, text: 'x'.repeat(400) })) });
const server = http.createServer((req, res) => {
  const end = performance.now() + spin;
  while (performance.now() < end);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

const costs = process.argv.slice(2).map(Number);
for (const ms of costs.length > 0 ? costs : [0.2, 0.8, 1.5]) {
  const server = spawn('taskset', ['-c', '1', process.execPath, '-e', SERVER, String(ms)]);
  const port = await new Promise((resolve) =>
    server.stdout.once('data', (d) => resolve(String(d).trim())),
  );
  await sleep(300);
  const wrk = spawnSync(
    'taskset',
    ['-c', '0', 'wrk', '-t1', '-c50', '-d6', '--latency', `http://127.0.0.1:${port}/`],
    { encoding: 'utf8' },
  );
  server.kill();
  const pick = (label) => new RegExp(`${label}\\s+([\\d.]+\\w+)`).exec(wrk.stdout)?.[1] ?? '?';
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(wrk.stdout)?.[1] ?? '?';
  console.log(
    `${ms} ms CPU per request: ${rate} req/s, p50 ${pick('50%')}, p90 ${pick('90%')}, p99 ${pick('99%')}`,
  );
}
