// `node --expose-gc --trace-gc-nvp bench/alloc.mjs | node bench/alloc.mjs --sum`: bytes allocated
// and promoted per request, which do not move with the machine's load. One Kontor app in this
// process from a built checkout (`KDIR`, default this one; `npm run build` first), production
// logging into a discarded stream, rate limits on (a catalogue the run cannot exhaust), a user
// with a personal token and 300 partners, then N (3,000) requests through `inject`, 8 in
// flight, between two forced collections: the `allocated` and `promoted` of every collection
// in between, divided by N. EP=get (GET /v1/partners/{id}) or list (?limit=25); DATABASE_URL
// for PostgreSQL. `inject` adds its own allocations (the same in every build), so compare builds,
// not this figure against a served request. Not a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
if (process.argv[2] === '--sum') {
  // The summing end of the pipe: the trace lines between the two marks.
  const text = fs.readFileSync(0, 'utf8');
  const part = text.slice(text.indexOf('MARK start'), text.indexOf('MARK end'));
  let allocated = 0;
  let promoted = 0;
  for (const m of part.matchAll(/ allocated=(\d+) promoted=(\d+)/g)) {
    allocated += Number(m[1]);
    promoted += Number(m[2]);
  }
  const n = Number(process.env.N ?? 3000);
  console.log(
    `${(allocated / n).toFixed(0)} bytes allocated, ${(promoted / n).toFixed(0)} promoted per request`,
  );
  process.exit(0);
}
const kdir = process.env.KDIR ?? process.cwd();
const { buildApp } = await import(path.join(kdir, 'dist/app.js'));
const { loadConfig } = await import(path.join(kdir, 'dist/config.js'));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-inproc-'));
const BIG = { requestsPerMinute: 1_000_000_000, requestsPerMonth: 1_000_000_000_000 };
const plans = [
  ['FREE', 3],
  ['STARTER', 10],
  ['BUSINESS', 50],
].map(([id, seats]) => ({
  id,
  name: id,
  seats,
  storageBytes: 2 ** 30,
  currency: 'EUR',
  monthlyPrice: 0,
  ...BIG,
}));
fs.writeFileSync(path.join(dataDir, 'plans.json'), JSON.stringify(plans));
const apiKey = 'bench-inproc-key-0123456789abcdef';
const sink = new Writable({
  write(chunk, _enc, cb) {
    cb();
  },
});
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  API_KEYS: apiKey,
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  PLANS_FILE: path.join(dataDir, 'plans.json'),
};
const app = await buildApp(loadConfig(env), { logStream: sink, webDist: false });
const call = async (method, url, payload, headers = {}) => {
  const res = await app.inject({
    method,
    url,
    payload,
    headers: { 'x-api-key': apiKey, ...headers },
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
const email = `bench-${Date.now()}@example.com`,
  password = 'a long passphrase for the bench';
await call('POST', '/v1/auth/register', {
  email,
  password,
  name: 'Bench',
  companyName: 'Bench GmbH',
});
let code;
for (let i = 0; i < 200 && !code; i++) {
  await sleep(50);
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) continue;
  for (const f of fs.readdirSync(outbox)) {
    const m = /code: (\d{6})/.exec(fs.readFileSync(path.join(outbox, f), 'utf8'));
    if (m) code = m[1];
  }
}
await call('POST', '/v1/auth/confirm', { email, code });
const { accessToken } = await call('POST', '/v1/auth/login', { email, password });
const { token } = await call(
  'POST',
  '/v1/api-tokens',
  { name: 'bench' },
  { authorization: `Bearer ${accessToken}` },
);
const headers = { authorization: `Bearer ${token}` };
const ids = [];
for (let i = 0; i < 300; i++)
  ids.push(
    (
      await call(
        'POST',
        '/v1/partners',
        {
          name: `Partner ${i} GmbH`,
          type: 'CUSTOMER',
          addresses: [
            {
              type: 'BILLING',
              street: 'Rathausmarkt 1',
              postalCode: '20095',
              city: 'Hamburg',
              country: 'DE',
            },
          ],
          tags: ['it'],
        },
        headers,
      )
    ).id,
  );
const ep = process.env.EP ?? 'get';
const N = Number(process.env.N ?? 3000);
const one = (i) =>
  app.inject({
    method: 'GET',
    url: ep === 'get' ? `/v1/partners/${ids[i % ids.length]}` : '/v1/partners?limit=25',
    headers: { 'x-api-key': apiKey, ...headers },
  });
// 8 in flight, as a few keep-alive clients would.
const run = async (n) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const r = await one(next++);
        if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${r.body}`);
      }
    }),
  );
};
await run(N); // warm-up
globalThis.gc();
fs.writeSync(1, 'MARK start\n');
await run(N);
globalThis.gc();
fs.writeSync(1, 'MARK end\n');
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
