/* eslint-disable no-console -- a benchmark reports on the console */
/**
 * `npm run bench:web`: what the owner's browser gets from the web app, measured on this machine.
 *
 * 1. JavaScript per route (gzip), from the build manifest (`web/scripts/budget.mjs`).
 * 2. Lighthouse (performance, accessibility) on sign-in, the cockpit, the invoice list and the
 *    invoice editor, in its desktop and its default mobile configuration, driving the Chromium
 *    the project ships (`@sparticuz/chromium`).
 * 3. The invoice list with `--invoices` (default 10,000) invoices: the time from navigation to
 *    the first rows painted (the app marks `kontor:invoices:rows` when they are in the DOM),
 *    both for a full page load and for a click in the app's navigation, over `--rounds` rounds.
 *
 * A real Kontor (`dist/server.js`) on a fresh data directory, seeded through the API. Figures go
 * to stdout and to `bench/results/web-<timestamp>.json`. Nothing here is asserted: budgets are
 * checked by `npm run budget -w @kontor/web`, the numbers are for reading.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import chromium from '@sparticuz/chromium';
import lighthouse from 'lighthouse';
import createClient from 'openapi-fetch';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { paths } from '../clients/typescript/src/schema.js';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    invoices: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    lighthouse: { type: 'boolean', default: true },
    'no-lighthouse': { type: 'boolean', default: false },
    /** A directory to keep each Lighthouse report in (JSON), to read what a score is made of. */
    reports: { type: 'string' },
    /** Audit only these pages (comma-separated: sign-in, cockpit, invoice list, invoice editor). */
    pages: { type: 'string' },
    /** Audit only the mobile configuration. */
    'mobile-only': { type: 'boolean', default: false },
  },
});
const INVOICES = Number(args.invoices);
const PAGES = args.pages?.split(',').map((p) => p.trim());
const audited = (name: string) => PAGES === undefined || PAGES.includes(name);
const FORMS = args['mobile-only'] ? [false] : [true, false];
const ROUNDS = Number(args.rounds);
const OWNER = { email: 'owner@example.com', password: 'correct horse battery staple 42' };

type Api = ReturnType<typeof createClient<paths>>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startKontor(): Promise<{ url: string; child: ChildProcess; setupToken: string }> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('build failed');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-web-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env))
    if (/^(DATABASE_|REDIS_|SMTP_|S3_|API_KEYS$)/.test(name)) delete env[name];
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    // Seeding thousands of invoices is no request pattern of the Free plan's limits.
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      RATE_LIMITS: 'off',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  process.on('exit', () => {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const token = /\/setup#token=(\S+)/.exec(out)?.[1];
    if (token !== undefined) return { url, child, setupToken: token };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Kontor printed no setup link:\n${out}`);
}

/** The owner's account through the setup link, and an API client signed in as the owner. */
async function ownerApi(url: string, token: string): Promise<Api> {
  const web = createClient<paths>({ baseUrl: url, headers: { 'x-kontor-client': 'web' } });
  const created = await web.POST('/v1/web/setup', {
    body: { token, ...OWNER, name: 'Olga Owner', companyName: 'Muster Werkstatt GmbH' },
  });
  if (created.error) throw new Error(JSON.stringify(created.error));
  return createClient<paths>({
    baseUrl: url,
    headers: {
      'x-kontor-client': 'web',
      authorization: `Bearer ${created.data.accessToken}`,
    },
  });
}

/** `count` draft invoices with one line each, eight requests at a time; answers seconds taken. */
async function seedInvoices(api: Api, count: number): Promise<number> {
  const started = performance.now();
  const partner = await api.POST('/v1/partners', {
    body: { name: 'Müller Maschinenbau GmbH', type: 'CUSTOMER' },
  });
  if (partner.error) throw new Error(JSON.stringify(partner.error));
  const rates = await api.GET('/v1/tax-rates', {});
  const taxRateId = (rates.data as { data: { id: string }[] } | undefined)?.data[0]?.id;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await api.POST('/v1/documents', {
        body: {
          documentType: 'INVOICE',
          name: `Rechnung ${i + 1}`,
          partnerId: partner.data.id,
          creationDate: '2026-11-02',
          lineItems: [
            { description: `Wartung ${i + 1}`, quantity: 1 + (i % 5), unitPrice: 120.5, taxRateId },
          ],
        } as never,
      });
      if (res.error) throw new Error(JSON.stringify(res.error));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return (performance.now() - started) / 1000;
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/sign-in`, { waitUntil: 'networkidle0' });
  await page.locator('input[type="email"]').fill(OWNER.email);
  await page.locator('input[type="password"]').fill(OWNER.password);
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'networkidle0' }),
    page.keyboard.press('Enter'),
  ]);
}

const ROWS_MARK = 'kontor:invoices:rows';

/** Milliseconds from navigation start to the invoice list's first rows, for a full page load. */
async function listPaintOnLoad(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/invoices`, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(
    (mark) => performance.getEntriesByName(mark).length > 0,
    {},
    ROWS_MARK,
  );
  return page.evaluate((mark) => performance.getEntriesByName(mark)[0]!.startTime, ROWS_MARK);
}

/** Milliseconds from a click on the navigation's invoice link to the list's first rows. */
async function listPaintInApp(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/`, { waitUntil: 'networkidle0' });
  await page.evaluate((mark) => performance.clearMarks(mark), ROWS_MARK);
  const link = await page.waitForSelector('nav a[href="/invoices"]');
  const clicked = await page.evaluate(() => performance.now());
  await link!.click();
  await page.waitForFunction(
    (mark) => performance.getEntriesByName(mark).length > 0,
    {},
    ROWS_MARK,
  );
  const painted = await page.evaluate(
    (mark) => performance.getEntriesByName(mark)[0]!.startTime,
    ROWS_MARK,
  );
  return painted - clicked;
}

interface Scores {
  performance: number | null;
  accessibility: number | null;
  /** Where the page ended (a signed-out redirect to /sign-in would show here). */
  finalPath: string;
  /** The performance metrics behind the score: value (ms, or unitless for CLS) and its score. */
  metrics: Record<string, { value: number | null; score: number | null }>;
}

const METRICS = [
  'first-contentful-paint',
  'largest-contentful-paint',
  'total-blocking-time',
  'cumulative-layout-shift',
  'speed-index',
] as const;

async function audit(port: number, url: string, desktop: boolean): Promise<Scores> {
  const result = await lighthouse(
    url,
    {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      // Keep the session cookie of the signed-in browser.
      disableStorageReset: true,
    },
    desktop
      ? {
          extends: 'lighthouse:default',
          settings: {
            formFactor: 'desktop',
            screenEmulation: {
              mobile: false,
              width: 1350,
              height: 940,
              deviceScaleFactor: 1,
              disabled: false,
            },
            throttling: {
              rttMs: 40,
              throughputKbps: 10240,
              cpuSlowdownMultiplier: 1,
              requestLatencyMs: 0,
              downloadThroughputKbps: 0,
              uploadThroughputKbps: 0,
            },
          },
        }
      : undefined,
  );
  if (args.reports && result) {
    fs.mkdirSync(args.reports, { recursive: true });
    const name = `${new URL(url).pathname.replace(/\W+/g, '-')}-${desktop ? 'desktop' : 'mobile'}`;
    fs.writeFileSync(path.join(args.reports, `lighthouse${name}.json`), JSON.stringify(result.lhr));
  }
  const categories = result?.lhr.categories;
  // The app's own route change after load (a redirect by script) is not in finalDisplayedUrl.
  const finalUrl = result?.lhr.finalDisplayedUrl ?? url;
  return {
    performance: categories?.performance?.score ?? null,
    accessibility: categories?.accessibility?.score ?? null,
    finalPath: new URL(finalUrl).pathname,
    metrics: Object.fromEntries(
      METRICS.map((id) => {
        const a = result?.lhr.audits[id];
        return [id, { value: a?.numericValue ?? null, score: a?.score ?? null }];
      }),
    ),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const budget = spawnSync('npm', ['run', '--silent', 'budget', '-w', '@kontor/web'], {
    cwd: root,
    encoding: 'utf8',
  });
  console.log(`JavaScript per route (gzip):\n${budget.stdout}`);

  const { url, setupToken } = await startKontor();
  const api = await ownerApi(url, setupToken);
  const seeded = await seedInvoices(api, INVOICES);
  console.log(`seeded ${INVOICES} draft invoices in ${seeded.toFixed(1)} s`);

  const debuggingPort = await freePort();
  chromium.setGraphicsMode = false;
  const browser: Browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    args: ['--no-sandbox', `--remote-debugging-port=${debuggingPort}`],
    defaultViewport: { width: 1280, height: 800 },
  });
  const result: Record<string, unknown> = { invoices: INVOICES, seedSeconds: seeded };
  try {
    const lighthouseScores: Record<string, Scores> = {};
    const lighthouseOn = args.lighthouse && !args['no-lighthouse'];
    if (lighthouseOn && audited('sign-in')) {
      for (const desktop of FORMS)
        lighthouseScores[`sign-in ${desktop ? 'desktop' : 'mobile'}`] = await audit(
          debuggingPort,
          `${url}/sign-in`,
          desktop,
        );
    }
    const page = await browser.newPage();
    await signIn(page, url);
    const onLoad: number[] = [];
    const inApp: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round === 0) await listPaintOnLoad(page, url); // a first load warms the server
      onLoad.push(await listPaintOnLoad(page, url));
      inApp.push(await listPaintInApp(page, url));
    }
    if (ROUNDS > 0)
      result.listPaint = {
        onLoadMs: onLoad.map(Math.round),
        inAppMs: inApp.map(Math.round),
        onLoadMedianMs: Math.round(median(onLoad)),
        inAppMedianMs: Math.round(median(inApp)),
      };
    if (ROUNDS > 0)
      console.log(
        `invoice list, first rows painted with ${INVOICES} invoices (${ROUNDS} rounds):\n` +
          `  full page load: median ${Math.round(median(onLoad))} ms (${onLoad.map(Math.round).join(', ')})\n` +
          `  in-app navigation: median ${Math.round(median(inApp))} ms (${inApp.map(Math.round).join(', ')})`,
      );
    if (lighthouseOn) {
      for (const [name, target] of [
        ['cockpit', '/'],
        ['invoice list', '/invoices'],
        ['invoice editor', '/invoices/new'],
      ] as const)
        for (const desktop of audited(name) ? FORMS : [])
          lighthouseScores[`${name} ${desktop ? 'desktop' : 'mobile'}`] = await audit(
            debuggingPort,
            `${url}${target}`,
            desktop,
          );
      result.lighthouse = lighthouseScores;
      console.log('Lighthouse (performance / accessibility):');
      for (const [name, s] of Object.entries(lighthouseScores))
        console.log(
          `  ${name.padEnd(24)} ${s.performance ?? '–'} / ${s.accessibility ?? '–'}  (${s.finalPath})  ` +
            METRICS.map((id) => {
              const m = s.metrics[id]!;
              const v =
                id === 'cumulative-layout-shift' ? m.value?.toFixed(3) : Math.round(m.value ?? NaN);
              return `${id.replace(/(^|-)(\w)[a-z]*/g, '$2').toUpperCase()} ${v} (${m.score ?? '–'})`;
            }).join(', '),
        );
    }
  } finally {
    await browser.close();
  }
  const dir = path.join(root, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `web-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written to ${path.relative(root, file)}`);
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
