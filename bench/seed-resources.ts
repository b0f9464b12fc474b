/**
 * The resources of `npm run bench` beyond partners — invoices, payments, contracts — seeded the
 * way partners are: through the API of the built app, driven in-process with `inject`, so every
 * row (lines, numbers, audit event and its chain) is what the API writes. Used by bench/run.ts.
 *
 * - the account is made ready to finalize: the seller's master data with a bank account
 *   (`PUT /v1/account/company`; the tax rates come with the account), checked with
 *   `GET /v1/account/invoice-readiness` and, on the first draft, `GET …/finalize-check`;
 * - `rows` invoices of three lines through `POST /v1/documents` (DRAFT: a FINAL one renders
 *   its PDF before the commit, so they would take hours; `finals` of them are finalized);
 * - `finals` invoices finalized through `PUT /v1/documents/{id}` with `status: FINAL`; one
 *   in three is then paid in full and one in six in part (`POST /v1/payments`), so lists show
 *   every payment state; the unpaid and partly paid ones are the targets of `pay-post`;
 * - `drafts` more DRAFT invoices, each finalized once by `inv-finalize` (a pool it consumes);
 * - `rows` contracts through `POST /v1/contracts`.
 */

import type { Call } from './common.js';

export type { Call };

export interface ResourceNeeds {
  invoices: boolean;
  finals: boolean;
  drafts: boolean;
  contracts: boolean;
}

export interface SeededResources {
  /** Invoices for GET and list: the `rows` drafts (the FINAL ones among them). */
  invoiceIds: string[];
  /** "id version" of each editable DRAFT (the drafts not finalized), for `inv-put`. */
  invoiceVersions: string[];
  /** "id version" of each DRAFT kept for `inv-finalize`. */
  draftVersions: string[];
  /** FINAL invoices not paid in full, for `pay-post`. */
  payableIds: string[];
  /** The partner new invoices are written to (`inv-post`). */
  partnerId: string;
}

/** The seller's master data: a complete German GmbH whose VAT id and IBAN check out. */
export const COMPANY = {
  legalName: 'Bench GmbH',
  address: { street: 'Musterstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
  vatId: 'DE123456788',
  taxNumber: '30/123/45678',
  registerCourt: 'Amtsgericht Charlottenburg',
  registerNumber: 'HRB 12345',
  managingDirectors: ['Erika Mustermann'],
  email: 'rechnung@bench-gmbh.example',
  phone: '+49 30 1234567',
  website: null,
  electronicAddress: { scheme: 'EM', value: 'rechnung@bench-gmbh.example' },
  bankAccounts: [
    {
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
      accountHolder: 'Bench GmbH',
      bankName: 'Deutsche Kreditbank',
    },
  ],
  smallBusiness: false,
  defaultPaymentTermDays: 14,
};

/** Three lines at the account's default rate: 444.90 EUR net. */
export const INVOICE_LINES = [
  { description: 'Beratung', quantity: 3, unitPrice: 120 },
  { description: 'Fachbuch', quantity: 1, unitPrice: 39.9 },
  { description: 'Anfahrt', quantity: 1, unitPrice: 45 },
];

/** A DRAFT invoice of three lines to `partnerId`, complete enough to be finalized. */
export function invoiceBody(partnerId: string, i: number) {
  const day = String((i % 28) + 1).padStart(2, '0');
  const month = String((i % 10) + 1).padStart(2, '0');
  return {
    documentType: 'INVOICE',
    name: `Rechnung ${i}`,
    partnerId,
    creationDate: `2026-${month}-${day}`,
    deliveryDate: `2026-${month}-${day}`,
    dueDate: `2026-${String((i % 10) + 2).padStart(2, '0')}-${day}`,
    lineItems: INVOICE_LINES,
  };
}

/** Runs `job(i)` for i in 0…count-1 on `workers` concurrent workers, reporting every 10 s. */
export async function parallel(
  count: number,
  label: string,
  say: (line: string) => void,
  job: (i: number) => Promise<void>,
  workers = 32,
): Promise<number> {
  const started = Date.now();
  let next = 0;
  let lastReport = started;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await job(i);
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        say(`   ${label}: ${i + 1} / ${count}`);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return (Date.now() - started) / 1000;
}

async function readyToInvoice(call: Call): Promise<void> {
  const { version } = (await call('GET', '/v1/account/company')) as { version: number };
  await call('PUT', '/v1/account/company', { version, ...COMPANY });
  const readiness = await call('GET', '/v1/account/invoice-readiness');
  if (readiness.ready !== true)
    throw new Error(`account not ready to invoice: ${JSON.stringify(readiness).slice(0, 500)}`);
}

async function seedDrafts(
  call: Call,
  count: number,
  partnerIds: string[],
  label: string,
  say: (line: string) => void,
): Promise<{ ids: string[]; versions: number[]; seconds: number }> {
  const ids = new Array<string>(count);
  const versions = new Array<number>(count);
  const seconds = await parallel(count, label, say, async (i) => {
    const partnerId = partnerIds[(i * 7919) % partnerIds.length]!;
    const doc = (await call('POST', '/v1/documents', invoiceBody(partnerId, i))) as {
      id: string;
      version: number;
    };
    ids[i] = doc.id;
    versions[i] = doc.version;
  });
  return { ids, versions, seconds };
}

/** Finalizes the first `finals` drafts and pays a third in full and a sixth in part. */
async function finalizeAndPay(
  call: Call,
  ids: string[],
  versions: number[],
  finals: number,
  label: string,
  say: (line: string) => void,
): Promise<{ payable: string[]; seconds: number }> {
  const payable: string[] = [];
  const finalize = (i: number) =>
    call('PUT', `/v1/documents/${ids[i]}`, { version: versions[i], status: 'FINAL' });
  const seconds = await parallel(
    finals,
    label,
    say,
    async (i) => {
      const doc = (await finalize(i)) as { id: string; grossTotal: number };
      const amount = i % 6 < 2 ? doc.grossTotal : i % 6 === 2 ? 100 : 0;
      if (amount > 0)
        await call('POST', '/v1/payments', {
          direction: 'INCOMING',
          documentId: doc.id,
          amount,
          currency: 'EUR',
          paymentDate: '2026-11-02',
        });
      if (amount !== doc.grossTotal) payable.push(doc.id);
    },
    4,
  );
  return { payable, seconds };
}

/**
 * `call`, tried again (up to 5 times) on a 422 `template_invalid` for the template's render time
 * budget: it is wall-clock (TEMPLATE_RENDER_LIMIT_MS, 500 ms), so a loaded machine can exceed it
 * for a draft's check or a finalize; nothing was written then.
 */
function retrying(call: Call): Call {
  const attempt = async (method: string, url: string, payload: unknown, n: number) => {
    try {
      return await call(method, url, payload);
    } catch (err) {
      if (n >= 5 || !/template_invalid.*render limit/.test((err as Error).message)) throw err;
      return attempt(method, url, payload, n + 1);
    }
  };
  return (method, url, payload) => attempt(method, url, payload, 1);
}

/** Seeds what `needs` asks for; every step reports its count and time through `say`. */
export async function seedResources(
  plainCall: Call,
  opts: { name: string; rows: number; finals: number; drafts: number; partnerIds: string[] },
  needs: ResourceNeeds,
  say: (line: string) => void,
): Promise<SeededResources> {
  const { name, rows, partnerIds } = opts;
  const call = retrying(plainCall);
  const out: SeededResources = {
    invoiceIds: [],
    invoiceVersions: [],
    draftVersions: [],
    payableIds: [],
    partnerId: partnerIds[0]!,
  };
  const rate = (n: number, s: number) =>
    `${n} in ${s.toFixed(0)} s (${(n / s).toFixed(n / s < 10 ? 1 : 0)}/s)`;
  if (needs.invoices || needs.finals || needs.drafts) await readyToInvoice(call);
  if (needs.invoices || needs.finals) {
    const { ids, versions, seconds } = await seedDrafts(call, rows, partnerIds, name, say);
    const check = await call('GET', `/v1/documents/${ids[0]}/finalize-check`);
    if (check.finalizable !== true)
      throw new Error(`${name}: a seeded draft is not finalizable: ${JSON.stringify(check)}`);
    say(`   ${name}: invoices (DRAFT, 3 lines) through POST /v1/documents: ${rate(rows, seconds)}`);
    const finals = needs.finals ? Math.min(opts.finals, rows) : 0;
    if (finals > 0) {
      const paid = await finalizeAndPay(call, ids, versions, finals, name, say);
      out.payableIds = paid.payable;
      say(
        `   ${name}: finalized (PUT status FINAL) and paid (POST /v1/payments, 1/3 in full, ` +
          `1/6 in part): ${rate(finals, paid.seconds)}`,
      );
    }
    out.invoiceIds = ids;
    out.invoiceVersions = ids.slice(finals).map((id, k) => `${id} ${versions[finals + k]}`);
  }
  if (needs.drafts) {
    const pool = await seedDrafts(call, opts.drafts, partnerIds, name, say);
    out.draftVersions = pool.ids.map((id, k) => `${id} ${pool.versions[k]}`);
    say(`   ${name}: drafts for inv-finalize: ${rate(opts.drafts, pool.seconds)}`);
  }
  if (needs.contracts) {
    const seconds = await parallel(rows, name, say, async (i) => {
      await call('POST', '/v1/contracts', {
        name: `Wartungsvertrag ${i}`,
        partnerId: partnerIds[(i * 104_729) % partnerIds.length]!,
        partnerName: 'filled by the server',
        startDate: `20${String(20 + (i % 7))}-0${(i % 9) + 1}-01`,
        totalValue: 1200 + (i % 500),
        currency: 'EUR',
      });
    });
    say(`   ${name}: contracts through POST /v1/contracts: ${rate(rows, seconds)}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The endpoints measured on the seeded resources

export interface ResourceEndpoint {
  label: string;
  /** The partner endpoint of the same verb its ratio is taken against. */
  verb: 'get' | 'list' | 'post' | 'put';
  needs: (keyof ResourceNeeds)[];
}

/**
 * In the order they are measured: reads, then writes, and last the finalize (each renders a PDF
 * and queues a render job, whose work should not spill into another case).
 */
export const RESOURCE_ENDPOINTS: Record<string, ResourceEndpoint> = {
  'inv-get': { label: 'GET /documents/{id} (invoice)', verb: 'get', needs: ['invoices'] },
  'inv-list': {
    label: 'GET /documents?documentType=INVOICE&limit=25',
    verb: 'list',
    needs: ['invoices', 'finals'],
  },
  'inv-open': {
    label: 'GET /documents?documentType=INVOICE&open=true&limit=25',
    verb: 'list',
    needs: ['invoices', 'finals'],
  },
  'con-list': { label: 'GET /contracts?limit=25', verb: 'list', needs: ['contracts'] },
  'inv-post': { label: 'POST /documents (invoice, 3 lines)', verb: 'post', needs: ['invoices'] },
  'inv-put': {
    label: 'PUT /documents/{id} (draft, 3 lines)',
    verb: 'put',
    needs: ['invoices'],
  },
  'pay-post': {
    label: 'POST /payments (to a FINAL invoice)',
    verb: 'post',
    needs: ['invoices', 'finals'],
  },
  'inv-finalize': {
    label: 'PUT /documents/{id} status FINAL',
    verb: 'put',
    needs: ['invoices', 'drafts'],
  },
};

export function needsOf(endpoints: string[]): ResourceNeeds {
  const all = endpoints.flatMap((e) => RESOURCE_ENDPOINTS[e]?.needs ?? []);
  return {
    invoices: all.includes('invoices'),
    finals: all.includes('finals'),
    drafts: all.includes('drafts'),
    contracts: all.includes('contracts'),
  };
}

/** Writes the id and "id version" files the wrk script reads; answers them by purpose. */
export function writeResourceFiles(
  stem: string,
  r: SeededResources,
  write: (file: string, text: string) => void,
): Record<string, string> {
  const files: Record<string, string> = {
    invoices: `${stem}-invoices.txt`,
    invoiceVersions: `${stem}-invoice-versions.txt`,
    drafts: `${stem}-drafts.txt`,
    payable: `${stem}-payable.txt`,
  };
  const lines = (list: string[]) => (list.length ? `${list.join('\n')}\n` : '');
  write(files.invoices!, lines(r.invoiceIds));
  write(files.invoiceVersions!, lines(r.invoiceVersions));
  write(files.drafts!, lines(r.draftVersions));
  write(files.payable!, lines(r.payableIds));
  return files;
}

/**
 * The URL path and wrk environment of a resource endpoint; `state` names the "id version"
 * file a put mode writes back to (`STATE_OUT`, renamed over it after the run).
 */
export function resourceCase(
  endpoint: string,
  r: SeededResources,
  files: Record<string, string>,
): { path: string; env: Record<string, string>; state?: string } {
  const put = (file: string, body: string, consume: boolean) => ({
    path: '/',
    env: {
      MODE: 'put',
      PREFIX: '/v1/documents/',
      IDS_FILE: file,
      STATE_OUT: `${file}.next`,
      PUT_BODY: body,
      CONSUME: consume ? '1' : '0',
    },
    state: file,
  });
  const lines = JSON.stringify(INVOICE_LINES);
  switch (endpoint) {
    case 'inv-get':
      return {
        path: '/',
        env: { MODE: 'getid', PREFIX: '/v1/documents/', IDS_FILE: files.invoices! },
      };
    case 'inv-list':
      return { path: '/v1/documents?documentType=INVOICE&limit=25', env: { MODE: 'get' } };
    case 'inv-open':
      return {
        path: '/v1/documents?documentType=INVOICE&open=true&limit=25',
        env: { MODE: 'get' },
      };
    case 'inv-post':
      return {
        path: '/v1/documents',
        env: {
          MODE: 'post',
          PREFIX: '/v1/documents',
          BODY: JSON.stringify({ ...invoiceBody(r.partnerId, 0), name: 'Rechnung {{N}}' }),
        },
      };
    case 'inv-put':
      return put(
        files.invoiceVersions!,
        `{"version":{{V}},"name":"Rechnung {{N}}","lineItems":${lines}}`,
        false,
      );
    case 'inv-finalize':
      return put(files.drafts!, '{"version":{{V}},"status":"FINAL"}', true);
    case 'pay-post':
      return {
        path: '/v1/payments',
        env: {
          MODE: 'post',
          PREFIX: '/v1/payments',
          IDS_FILE: files.payable!,
          BODY:
            '{"direction":"INCOMING","documentId":"{{ID}}","amount":1,"currency":"EUR",' +
            '"paymentDate":"2026-11-20","paymentMethod":"BANK_TRANSFER"}',
        },
      };
    case 'con-list':
      return { path: '/v1/contracts?limit=25', env: { MODE: 'get' } };
    default:
      throw new Error(`unknown resource endpoint ${endpoint}`);
  }
}
