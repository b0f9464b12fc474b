/**
 * `npm run bench:verbs`: the CPU one call costs, and its wall time one call at a time, in process
 * (`inject`, no sockets), for each verb of partners and of invoices — create (3 lines), update,
 * GET by id, list of 25 — and each invoice verb against the partner verb. CPU time (`process.cpuUsage`, the process's user +
 * system time over the calls) moves far less with the machine's load than wall time, so two
 * builds can be compared on a busy machine: run it in each checkout. Calls run one at a time;
 * the databases' own CPU (PostgreSQL's backends) is not counted. `--profile DIR` writes a CPU
 * profile of each verb's measured calls, per resource (`DIR/PUT-invoice.cpuprofile`; read with
 * `node bench/profile-summary.mjs`). Not a test.
 *   npm run bench:verbs -- [--calls 400] [--rounds 3] [--pg postgres://…/db] [--profile DIR]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { inProcessApp, invoicingCustomer, say, startCpuProfile } from './in-process.js';
import { INVOICE_LINES, invoiceBody } from './seed-resources.js';

const { values: opt } = parseArgs({
  options: {
    calls: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '3' },
    pg: { type: 'string' },
    profile: { type: 'string' },
  },
});
const CALLS = Number(opt.calls);
const ROUNDS = Number(opt.rounds);

const b = await inProcessApp('verbs', opt.pg ? { DATABASE_URL: opt.pg } : {});
try {
  const { id: partnerId } = await invoicingCustomer(b);
  // What the GETs and PUTs work on: 50 of each, made through the API, versions tracked.
  const partners: { id: string; version: number }[] = [];
  const invoices: { id: string; version: number }[] = [];
  for (let i = 0; i < 50; i++) {
    const p = await b.callJson('POST', '/v1/partners', { name: `Partner ${i}`, type: 'CUSTOMER' });
    partners.push({ id: p.id as string, version: p.version as number });
    const d = await b.callJson('POST', '/v1/documents', invoiceBody(partnerId, i));
    invoices.push({ id: d.id as string, version: d.version as number });
  }
  const put = async (
    items: { id: string; version: number }[],
    i: number,
    url: string,
    body: object,
  ) => {
    const item = items[i % items.length]!;
    const res = await b.callJson('PUT', `${url}/${item.id}`, { version: item.version, ...body });
    item.version = res.version as number;
  };
  const verbs: Record<string, [(i: number) => Promise<unknown>, (i: number) => Promise<unknown>]> =
    {
      POST: [
        (i) => b.call('POST', '/v1/partners', { name: `Neu ${i}`, type: 'CUSTOMER' }),
        (i) => b.call('POST', '/v1/documents', invoiceBody(partnerId, i)),
      ],
      PUT: [
        (i) => put(partners, i, '/v1/partners', { name: `Partner ${i}`, type: 'CUSTOMER' }),
        (i) =>
          put(invoices, i, '/v1/documents', { name: `Rechnung ${i}`, lineItems: INVOICE_LINES }),
      ],
      GET: [
        (i) => b.call('GET', `/v1/partners/${partners[i % 50]!.id}`),
        (i) => b.call('GET', `/v1/documents/${invoices[i % 50]!.id}`),
      ],
      'list of 25': [
        () => b.call('GET', '/v1/partners?limit=25'),
        () => b.call('GET', '/v1/documents?documentType=INVOICE&limit=25'),
      ],
    };
  const median = (rounds: number[]) => rounds.sort((x, y) => x - y)[Math.floor(rounds.length / 2)]!;
  /**
   * Median CPU microseconds per call over the rounds, after a warm-up of 50 calls, and the
   * median wall time per call (one call at a time: its latency, the database's round trips
   * included); with `--profile`, the rounds' CPU profile goes to `DIR/<name>.cpuprofile`.
   */
  const perCall = async (run: (i: number) => Promise<unknown>, name: string) => {
    for (let i = 0; i < 50; i++) await run(i);
    const stopProfile = opt.profile ? await startCpuProfile() : undefined;
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const before = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) await run(i);
      wall.push(((performance.now() - started) * 1000) / CALLS);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / CALLS);
    }
    await stopProfile?.(path.join(opt.profile!, `${name}.cpuprofile`));
    return { cpu: median(cpu), wall: median(wall) };
  };
  say(`Per call, in process, ${b.database}, median of ${ROUNDS} rounds of ${CALLS} calls`);
  say('verb        partner µs  invoice µs  partner / invoice  partner wall µs  invoice wall µs');
  for (const [verb, [partnerCall, invoiceCall]] of Object.entries(verbs)) {
    const file = verb.replace(/ /g, '-');
    const p = await perCall(partnerCall, `${file}-partner`);
    const inv = await perCall(invoiceCall, `${file}-invoice`);
    say(
      `${verb.padEnd(12)}${p.cpu.toFixed(0).padStart(10)}${inv.cpu.toFixed(0).padStart(12)}${(p.cpu / inv.cpu).toFixed(2).padStart(19)}${p.wall.toFixed(0).padStart(17)}${inv.wall.toFixed(0).padStart(17)}`,
    );
  }
} finally {
  await b.close();
}
