/**
 * Every list answers CSV for German spreadsheets with `Accept: text/csv` (issue 14,
 * src/http/csv.ts, docs/api-conventions.md "CSV"): the same route, filters, auth and limits,
 * streamed page after page.
 */
import http from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, prefersCsv } from '../src/http/csv.js';
import { mt940, uploadStatement } from '../src/modules/bank-imports/bank-imports.test-support.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from './helpers.js';

type Json = Record<string, unknown>;

let t: TestApp;
let admin: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  other = await createUser(t);
});
afterAll(async () => {
  await t.close();
});

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A GET with `accept` (null: no Accept header) as `user` (null: no token). */
function get(url: string, accept: string | null = 'text/csv', user: TestUser | null = admin) {
  return t.request({
    method: 'GET',
    url,
    ...(user ? { token: user.token } : {}),
    headers: accept === null ? {} : { accept },
  });
}

/** A strict reader of what Kontor writes: BOM, `;`, `"` quoting, CRLF after every line. */
function parseCsv(res: LightMyRequestResponse): { header: string[]; rows: string[][] } {
  const raw = res.rawPayload;
  expect(raw.subarray(0, 3).equals(BOM)).toBe(true);
  const text = raw.subarray(3).toString('utf8');
  expect(text.endsWith('\r\n')).toBe(true);
  const lines: string[][] = [];
  let cell = '';
  let line: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ';') {
      line.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      line.push(cell);
      lines.push(line);
      line = [];
      cell = '';
      i++;
    } else {
      // A bare CR or LF outside quotes would break the line for a spreadsheet.
      expect(c === '\r' || c === '\n').toBe(false);
      cell += c;
    }
  }
  expect(quoted).toBe(false);
  const [header = [], ...rows] = lines;
  for (const row of rows) expect(row.length).toBe(header.length);
  return { header, rows };
}

/** The rows as objects keyed by the header. */
function records(res: LightMyRequestResponse): Record<string, string>[] {
  const { header, rows } = parseCsv(res);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!])));
}

/** Every id of a JSON list, walking its pages. */
async function jsonIds(url: string, user = admin): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const res = await get(`${url}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`, null, user);
    expect(res.statusCode).toBe(200);
    const page = res.json<{ data: { id: string }[]; nextCursor: string | null }>();
    ids.push(...page.data.map((d) => d.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

async function post(url: string, payload: Json, user = admin): Promise<Json> {
  const res = await t.request({ method: 'POST', url, token: user.token, payload });
  if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json<Json>();
}

const TRICKY_NAME = 'Müller; "Söhne"\r\nGmbH & Co. KG';

describe('CSV: the format', () => {
  let tricky: Json;
  let vendor: Json;

  beforeAll(async () => {
    tricky = await post('/v1/partners', {
      name: TRICKY_NAME,
      description: '=HYPERLINK("http://evil.example","klick")',
      tags: ['Stammkunde', 'Köln'],
      addresses: [
        { type: 'SHIPPING', street: 'Lager 1', city: 'Neuss', country: 'DE' },
        { type: 'BILLING', street: 'Kö 1', postalCode: '40212', city: 'Düsseldorf', country: 'DE' },
        { type: 'BILLING', street: 'Zweite 2', city: 'Köln', country: 'DE' },
      ],
    });
    vendor = await post('/v1/partners', { name: '@SUMME(A1:A9)', type: 'VENDOR' });
    await post('/v1/partners', { name: '-42', description: '+49 30 123' });
    await post('/v1/partners', { name: '2026-01-01' });
    await post('/v1/partners', { name: 'Fremd GmbH' }, other);
  });

  it('answers an Excel-friendly file: BOM, header line, `;`, CRLF, attachment', async () => {
    const res = await get('/v1/partners');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="partners-${today}.csv"`);
    expect(res.headers.vary).toBe('accept');
    const { header } = parseCsv(res);
    expect(header.slice(0, 6)).toEqual(['id', 'version', 'createdAt', 'updatedAt', 'name', 'type']);
    // Nested objects are flattened with dotted names, addresses into columns per type.
    expect(header).toEqual(
      expect.arrayContaining([
        'addresses.BILLING.street',
        'addresses.BILLING.postalCode',
        'addresses.BILLING.city',
        'addresses.BILLING.country',
        'addresses.SHIPPING.city',
        'tags',
        'electronicAddress.scheme',
      ]),
    );
    expect(header).not.toContain('addresses');
    expect(header).not.toContain('addresses.BILLING.type');
    expect(res.body.split('\r\n')[0]).toBe(`\uFEFF${header.join(';')}`);
  });

  it('quotes `;`, quotes and line breaks, keeps umlauts, and defuses formulas', async () => {
    const res = await get('/v1/partners');
    expect(res.body).toContain('"Müller; ""Söhne""\r\nGmbH & Co. KG"');
    const rows = records(res);
    // Only the account's own partners.
    expect(rows.map((r) => r.name)).not.toContain('Fremd GmbH');
    const row = rows.find((r) => r.id === tricky.id)!;
    expect(row.name).toBe(TRICKY_NAME);
    expect(row.description).toBe(`'=HYPERLINK("http://evil.example","klick")`);
    expect(row.tags).toBe('Stammkunde, Köln');
    // The first address of each type, in its own columns; no JSON in a cell.
    expect(row).toMatchObject({
      'addresses.BILLING.street': 'Kö 1',
      'addresses.BILLING.postalCode': '40212',
      'addresses.BILLING.city': 'Düsseldorf',
      'addresses.BILLING.country': 'DE',
      'addresses.SHIPPING.street': 'Lager 1',
      'addresses.SHIPPING.city': 'Neuss',
      'addresses.OFFICE.city': '',
    });
    expect(Object.values(row).some((cell) => cell.startsWith('[') || cell.startsWith('{'))).toBe(
      false,
    );
    expect(row.vatId).toBe('');
    // Timestamps keep their zone: ISO 8601 in UTC to the second.
    expect(row.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(row.createdAt).toBe((tricky.createdAt as string).replace(/\.\d{3}Z$/, 'Z'));
    expect(rows.find((r) => r.id === vendor.id)!.name).toBe(`'@SUMME(A1:A9)`);
    expect(rows.find((r) => r.name === `'-42`)!.description).toBe(`'+49 30 123`);
    // A name that looks like a date is free text: not rewritten.
    expect(rows.map((r) => r.name)).toContain('2026-01-01');
  });

  it('writes amounts with the decimals of their currency, dates as DD.MM.YYYY, booleans ja/nein', async () => {
    const product = await post('/v1/products', {
      name: 'Beratung',
      unitPrice: 1234.5,
      currency: 'EUR',
    });
    const yen = await post('/v1/products', { name: 'Tee', unitPrice: 1200, currency: 'JPY' });
    const payment = await post('/v1/payments', {
      direction: 'INCOMING',
      partnerName: 'Laufkundschaft',
      amount: 1179.9,
      currency: 'EUR',
      paymentDate: '2026-03-20',
    });
    const products = records(await get('/v1/products'));
    expect(products.find((r) => r.id === product.id)!.unitPrice).toBe('1234,50');
    expect(products.find((r) => r.id === yen.id)!.unitPrice).toBe('1200');
    const payments = records(await get('/v1/payments'));
    const row = payments.find((r) => r.id === payment.id)!;
    expect(row.amount).toBe('1179,90');
    expect(row.paymentDate).toBe('20.03.2026');
    expect(row.markedAt).toMatch(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)?$/);
    const rates = records(await get('/v1/tax-rates'));
    expect(rates.map((r) => r.isDefault).sort()).toEqual(expect.arrayContaining(['ja', 'nein']));
    expect(rates.every((r) => r.isDefault === 'ja' || r.isDefault === 'nein')).toBe(true);
  });

  it('formats single cells as documented', () => {
    expect(csvCell(-1234.5)).toBe('-1234,5');
    expect(csvCell(0.1)).toBe('0,1');
    expect(csvCell(7)).toBe('7');
    expect(csvCell('-7')).toBe(`'-7`);
    expect(csvCell('\tx')).toBe(`'\tx`);
    expect(csvCell('＝1+1')).toBe(`'＝1+1`);
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(false)).toBe('nein');
    expect(csvCell('2026-02-28', 'date')).toBe('28.02.2026');
    expect(csvCell('2026-02-28T23:05:09.120Z', 'timestamp')).toBe('2026-02-28T23:05:09Z');
    expect(csvCell('2026-02-28T23:05:09+01:00', 'timestamp')).toBe('2026-02-28T22:05:09Z');
    expect(csvCell(new Date('2026-11-28T08:15:00Z'))).toBe('2026-11-28T08:15:00Z');
    // A day in an `…At` field (`lastDunnedAt`) is written as the dates are.
    expect(csvCell('2026-02-28', 'timestamp')).toBe('28.02.2026');
    expect(csvCell(1179.9, 'money', 'EUR')).toBe('1179,90');
    expect(csvCell(-12.5, 'money', 'EUR')).toBe('-12,50');
    expect(csvCell(0, 'money', 'EUR')).toBe('0,00');
    expect(csvCell(1200, 'money', 'JPY')).toBe('1200');
    expect(csvCell(5.5, 'money', 'KWD')).toBe('5,500');
    expect(csvCell(5.5, 'money', null)).toBe('5,50');
    // Only values of the shape are converted; free text stays as written.
    expect(csvCell('bald', 'date')).toBe('bald');
    expect(csvCell('2026', 'timestamp')).toBe('2026');
    expect(csvCell('2026-02-28')).toBe('2026-02-28');
  });
});

describe('CSV: documents and their lines', () => {
  let user: TestUser;
  let first: Json;
  let second: Json;

  beforeAll(async () => {
    user = await createUser(t);
    const partner = await post('/v1/partners', { name: 'Kunde AG' }, user);
    first = await post(
      '/v1/documents',
      {
        documentType: 'INVOICE',
        name: 'Beratung November',
        partnerId: partner.id,
        creationDate: '2026-11-20',
        lineItems: [
          { description: 'Beratung', quantity: 1.5, unitPrice: 95.5 },
          { description: '=HYPERLINK("http://evil.example")', quantity: 10, unitPrice: 85.2 },
        ],
      },
      user,
    );
    second = await post(
      '/v1/documents',
      {
        documentType: 'INVOICE',
        name: 'Lizenz',
        creationDate: '2026-11-21',
        lineItems: [{ description: 'Lizenz', quantity: 1, unitPrice: 1000 }],
      },
      user,
    );
  });

  it('leaves lines and taxes out of the documents and writes their amounts with two decimals', async () => {
    const res = await get('/v1/documents', 'text/csv', user);
    const { header } = parseCsv(res);
    expect(header.some((h) => h.startsWith('lineItems') || h.startsWith('taxes'))).toBe(false);
    const row = records(res).find((r) => r.id === first.id)!;
    // 1.5 × 95.50 = 143.25 and 10 × 85.20 = 852.00: net 995.25, VAT 189.10, gross 1184.35.
    expect(row).toMatchObject({
      creationDate: '20.11.2026',
      netTotal: '995,25',
      taxTotal: '189,10',
      grossTotal: '1184,35',
      currency: 'EUR',
    });
    expect(row.createdAt).toMatch(/Z$/);
  });

  it('lists every line with its document in GET /v1/documents/lines, as JSON and as CSV', async () => {
    const page = (
      await t.request({ method: 'GET', url: '/v1/documents/lines?limit=1', token: user.token })
    ).json<{ data: Json[]; nextCursor: string | null }>();
    // A page holds the lines of `limit` documents, newest first.
    expect(page.data).toEqual([
      expect.objectContaining({
        documentId: second.id,
        documentName: 'Lizenz',
        position: 1,
        description: 'Lizenz',
        quantity: 1,
        unitPrice: 1000,
        netAmount: 1000,
        currency: 'EUR',
      }),
    ]);
    expect(page.nextCursor).not.toBeNull();

    const res = await get('/v1/documents/lines', 'text/csv', user);
    expect(res.headers['content-disposition']).toMatch(/filename="documents-lines-/);
    const rows = records(res);
    expect(rows.map((r) => [r.documentId, r.position])).toEqual([
      [second.id, '1'],
      [first.id, '1'],
      [first.id, '2'],
    ]);
    expect(rows[1]).toMatchObject({
      documentName: 'Beratung November',
      partnerName: 'Kunde AG',
      creationDate: '20.11.2026',
      description: 'Beratung',
      quantity: '1,5',
      unitCode: 'C62',
      unitPrice: '95,50',
      taxRate: '19',
      taxCategory: 'S',
      netAmount: '143,25',
    });
    expect(rows[2]!.description).toBe(`'=HYPERLINK("http://evil.example")`);
    expect(rows[2]!.netAmount).toBe('852,00');
    expect(rows[0]!.unitPrice).toBe('1000,00');
    // The same filters as the documents list.
    const filtered = records(await get('/v1/documents/lines?from=2026-11-21', 'text/csv', user));
    expect(filtered.map((r) => r.documentId)).toEqual([second.id]);
  });

  it('lists the VAT per document and rate in GET /v1/documents/taxes', async () => {
    const res = await get('/v1/documents/taxes', 'text/csv', user);
    expect(res.headers['content-disposition']).toMatch(/filename="documents-taxes-/);
    expect(records(res)).toEqual([
      expect.objectContaining({
        documentId: second.id,
        rate: '19',
        category: 'S',
        net: '1000,00',
        tax: '190,00',
        currency: 'EUR',
      }),
      expect.objectContaining({
        documentId: first.id,
        documentName: 'Beratung November',
        partnerName: 'Kunde AG',
        creationDate: '20.11.2026',
        rate: '19',
        category: 'S',
        exemptionReason: '',
        net: '995,25',
        tax: '189,10',
      }),
    ]);
  });
});

describe('CSV: content negotiation', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/csv', false],
    ['text/csv;q=0.5, application/json', false],
    ['text/csv;q=0', false],
    ['text/html', false],
    ['text/csv', true],
    ['TEXT/CSV; charset=utf-8', true],
    ['text/csv, application/json;q=0.9', true],
    ['text/csv, */*;q=0.1', true],
    ['text/*', true],
    ['text/csv, application/problem+json', true],
  ])('Accept %s → CSV %s', (accept, csv) => {
    expect(prefersCsv(accept)).toBe(csv);
  });

  it('answers JSON as before without the Accept header, or when JSON is preferred', async () => {
    for (const accept of [null, '*/*', 'application/json, text/csv;q=0.5']) {
      const res = await get('/v1/partners?limit=2', accept);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const page = res.json<{ data: unknown[]; nextCursor: string | null }>();
      expect(page.data.length).toBe(2);
      expect(typeof page.nextCursor).toBe('string');
    }
  });

  it('answers the headers alone to HEAD', async () => {
    const res = await t.request({
      method: 'HEAD',
      url: '/v1/partners',
      token: admin.token,
      headers: { accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.body).toBe('');
  });
});

describe('CSV: the same route', () => {
  it('needs the same credentials (401 problem without a token)', async () => {
    const res = await get('/v1/partners', 'text/csv', null);
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('refuses a bad filter or cursor with a 400 problem, not a CSV', async () => {
    for (const url of ['/v1/partners?type=NOPE', '/v1/partners?cursor=bm9wZQ']) {
      const res = await get(url);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'validation_failed' });
    }
  });

  it('counts one request against the rate limit, however many pages it streams', async () => {
    const user = await createUser(t);
    for (let i = 0; i < 120; i++) await post('/v1/partners', { name: `Rate ${i}` }, user);
    const remaining = async (accept: string | null = null) => {
      const res = await get('/v1/partners', accept, user);
      expect(res.statusCode).toBe(200);
      return Number(res.headers['ratelimit-remaining']);
    };
    const before = await remaining();
    const during = await remaining('text/csv');
    const after = await remaining();
    expect(before - during).toBe(1);
    expect(during - after).toBe(1);
  });
});

describe('CSV: filters and pages', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser(t);
    // 230 customers and 20 vendors: three internal pages of 100 for the customers.
    for (let i = 0; i < 250; i++)
      await post(
        '/v1/partners',
        { name: `Partner ${i}`, type: i % 25 === 0 || i % 25 === 1 ? 'VENDOR' : 'CUSTOMER' },
        user,
      );
  }, 120_000);

  it('streams every record across internal pages, in list order, without duplicates', async () => {
    const res = await get('/v1/partners?limit=5', 'text/csv', user);
    expect(res.statusCode).toBe(200);
    const ids = records(res).map((r) => r.id!);
    expect(ids.length).toBe(250);
    expect(new Set(ids).size).toBe(250);
    // The client's limit decides nothing; the order is that of the JSON pages.
    expect(ids).toEqual(await jsonIds('/v1/partners', user));
  });

  it('applies the same filters as the JSON list', async () => {
    for (const query of ['type=CUSTOMER', 'type=VENDOR', 'q=partner%201']) {
      const csv = records(await get(`/v1/partners?${query}`, 'text/csv', user)).map((r) => r.id);
      const json = await jsonIds(`/v1/partners?${query}`, user);
      expect(csv).toEqual(json);
      expect(csv.length).toBeGreaterThan(0);
    }
    const customers = records(await get('/v1/partners?type=CUSTOMER', 'text/csv', user));
    expect(customers.length).toBe(230);
    expect(customers.every((r) => r.type === 'CUSTOMER')).toBe(true);
  });

  it('starts after a given cursor, as the JSON page would', async () => {
    const first = (await get('/v1/partners?limit=30', null, user)).json<{
      nextCursor: string;
    }>();
    const ids = records(await get(`/v1/partners?cursor=${first.nextCursor}`, 'text/csv', user)).map(
      (r) => r.id,
    );
    expect(ids).toEqual((await jsonIds('/v1/partners', user)).slice(30));
  });
});

describe('CSV: every list route', () => {
  interface Operation {
    operationId: string;
    responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
  }

  it('answers CSV on every GET whose 200 is a page, and the OpenAPI says so', async () => {
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Json> };
    };
    const deref = (s: Json | undefined): Json | undefined =>
      typeof s?.$ref === 'string'
        ? doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]
        : s;
    // Parents for the nested lists: created here, so no list is left out.
    const parent = await post('/v1/partners', { name: 'Parent' });
    const contract = await post('/v1/contracts', {
      name: 'Wartung',
      partnerId: parent.id,
      partnerName: 'Parent',
      startDate: '2026-01-01',
      totalValue: 1200,
      currency: 'EUR',
    });
    const endpoint = await post('/v1/webhook-endpoints', {
      url: 'https://8.8.8.8/hooks/kontor',
      eventTypes: ['partner.created'],
    });
    const file = await uploadStatement(
      t,
      admin,
      mt940([{ date: '2026-03-02', cents: 11_900, name: 'Kunde A', purpose: 'R-1' }]),
    );
    const statement = await post('/v1/bank-statement-imports', {
      ...file,
      periodFrom: '2026-03-01',
      periodTo: '2026-03-31',
    });
    const parents: Record<string, string> = {
      contractId: contract.id as string,
      webhookEndpointId: endpoint.id as string,
      importId: statement.id as string,
      partnerId: parent.id as string,
    };

    const lists = Object.entries(doc.paths).flatMap(([path, item]) => {
      const op = item.get;
      const json = deref(op?.responses['200']?.content?.['application/json']?.schema);
      const properties = json?.properties as Json | undefined;
      return properties && 'data' in properties && 'nextCursor' in properties
        ? [{ path, op: op! }]
        : [];
    });
    expect(lists.length).toBeGreaterThanOrEqual(17);
    const failures: string[] = [];
    for (const { path, op } of lists) {
      if (!op.responses['200']!.content!['text/csv']) failures.push(`${path}: not in OpenAPI`);
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const id = parents[name];
        if (!id) failures.push(`${path}: no parent for {${name}}`);
        return id ?? name;
      });
      const res = await get(url);
      const header = res.body.split('\r\n')[0] ?? '';
      if (
        res.statusCode !== 200 ||
        res.headers['content-type'] !== 'text/csv; charset=utf-8' ||
        !res.rawPayload.subarray(0, 3).equals(BOM) ||
        header.length < 2
      )
        failures.push(`${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      else parseCsv(res);
    }
    expect(failures).toEqual([]);
    // The nested lists have rows: the statement's one transaction, for one.
    const transactions = records(
      await get(`/v1/bank-statement-imports/${statement.id as string}/transactions`),
    );
    expect(transactions).toEqual([
      expect.objectContaining({
        bookingDate: '02.03.2026',
        amount: '119,00',
        counterpartyName: 'Kunde A',
        reversal: 'nein',
        'duplicateOf.importId': '',
      }),
    ]);
  }, 60_000);
});

describe('CSV: an error after the answer began', () => {
  it('cuts the transfer off instead of ending a file that looks complete', async () => {
    const user = await createUser(t);
    for (let i = 0; i < 150; i++) await post('/v1/partners', { name: `Alt ${i}` }, user);
    // The oldest partner (on the second internal page) holds a record its presenter cannot
    // read: the first page is out with status 200 by the time the second one fails.
    const oldest = (await jsonIds('/v1/partners', user)).at(-1)!;
    await t.app.ctx.db
      .updateTable('partners')
      .set({ addresses: '{' })
      .where('account_id', '=', user.accountId)
      .where('id', '=', oldest)
      .execute();
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const outcome = await new Promise<{ status: number; body: string; complete: boolean }>(
      (resolve, reject) => {
        const req = http.get(
          `${address}/v1/partners`,
          {
            headers: {
              accept: 'text/csv',
              'x-api-key': t.apiKey,
              authorization: `Bearer ${user.token}`,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            let broken = false;
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('aborted', () => (broken = true));
            res.on('error', () => (broken = true));
            res.on('close', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString('utf8'),
                complete: res.complete && !broken,
              }),
            );
          },
        );
        req.on('error', reject);
      },
    );
    expect(outcome.status).toBe(200);
    expect(outcome.complete).toBe(false);
    // The first page arrived; the rest did not.
    const lines = outcome.body.split('\r\n').filter((l) => l.length > 0);
    expect(lines.length).toBe(101);
  }, 60_000);
});
