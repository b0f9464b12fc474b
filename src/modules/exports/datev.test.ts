import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import type { AppContext } from '../../context.js';
import { writeLentChunks } from '../../http/lent-chunks.js';
import { ManualClock } from '../../shared/clock.js';
import { DatevExportService, type ExportChunks } from './datev-export.service.js';
import { COLUMNS } from './datev-extf.js';
import {
  balances,
  billing,
  bytesOf,
  call,
  rateId,
  ratesOf,
  unpack,
  unquote,
  zipMethods,
  type Body,
  type Package,
  type Rate,
} from './datev.test-support.js';

/**
 * The DATEV export end to end over HTTP (issue 14): a month of real invoices (19 % and 7 %
 * lines, an intra-EU supply, a Storno with its credit note) and their payments, exported,
 * unzipped and read back: header, columns, encoding, accounts, balances, PDFs and index.
 */

let t: TestApp;
let user: TestUser;
let rates: Rate[];
type Doc = { id: string; documentNumber: string; grossTotal: number; fileId: string | null };
const docs: Record<string, Doc> = {};

async function invoice(
  partnerId: string,
  date: string,
  lineItems: Body[],
  by: TestUser = user,
): Promise<Doc> {
  return call<Doc>(t, by, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    creationDate: date,
    deliveryDate: date,
    status: 'FINAL',
    partnerId,
    lineItems,
  });
}

async function pay(doc: Doc, date: string, amount = doc.grossTotal, direction = 'INCOMING') {
  await call(t, user, 'POST', '/v1/payments', {
    direction,
    amount,
    currency: 'EUR',
    paymentDate: date,
    status: 'MARKED',
    documentId: doc.id,
  });
}

const exportOf = (u: TestUser, query: string) =>
  t.request({ method: 'GET', url: `/v1/exports/datev?${query}`, token: u.token });

async function exported(query = 'from=2026-10-01&to=2026-10-31'): Promise<Package> {
  const res = await exportOf(user, query);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="DATEV_/);
  return unpack(res.rawPayload);
}

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  rates = await ratesOf(t, user);
  const s19 = rateId(rates, 'S', 19);
  const s7 = rateId(rates, 'S', 7);
  const k = rateId(rates, 'K', 0);
  const mueller = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Müller & Söhne "Feinkost" GmbH',
      addresses: [billing()],
    })
  ).id;
  const baecker = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Bäckerei Weiß',
      addresses: [billing({ street: 'Brotweg 1' })],
    })
  ).id;
  const nl = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Nederland B.V.',
      vatId: 'NL123456789B01',
      addresses: [
        billing({ street: 'Damrak 1', postalCode: '1012 LG', city: 'Amsterdam', country: 'NL' }),
      ],
    })
  ).id;

  docs.mixed = await invoice(mueller, '2026-10-02', [
    { description: 'Beratung', quantity: 2, unitPrice: 100, taxRateId: s19 },
    { description: 'Fachbuch', quantity: 1, unitPrice: 50, taxRateId: s7 },
  ]);
  docs.big = await invoice(baecker, '2026-10-15', [
    { description: 'Ofenwartung', quantity: 1, unitPrice: 1000, taxRateId: s19 },
  ]);
  docs.cancelled = await invoice(mueller, '2026-10-20', [
    { description: 'Broschüre', quantity: 1, unitPrice: 10, taxRateId: s7 },
  ]);
  docs.creditNote = await call<Doc>(t, user, 'POST', `/v1/documents/${docs.cancelled.id}/cancel`, {
    creationDate: '2026-10-21',
  });
  docs.eu = await invoice(nl, '2026-10-28', [
    { description: 'Maschine', quantity: 1, unitPrice: 500, taxRateId: k },
  ]);
  await pay(docs.mixed, '2026-10-10');
  await pay(docs.big, '2026-10-25');
  await pay(docs.eu, '2026-10-31');
  // Outside the month: an invoice before it, a payment after it; and a draft inside it.
  docs.september = await invoice(baecker, '2026-09-30', [
    { description: 'Vormonat', quantity: 1, unitPrice: 77, taxRateId: s19 },
  ]);
  await pay(docs.september, '2026-11-02');
  await call(t, user, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Entwurf',
    creationDate: '2026-10-05',
    partnerId: baecker,
    lineItems: [{ description: 'Entwurf', quantity: 1, unitPrice: 999, taxRateId: s19 }],
  });
  await call(t, user, 'PUT', '/v1/exports/datev/settings', {
    consultantNumber: 29098,
    clientNumber: 55003,
  });
}, 120_000);
afterAll(() => t.close());

describe('GET /v1/exports/datev: a month of invoices and payments', () => {
  it('writes the EXTF header DATEV expects', async () => {
    const pkg = await exported();
    const h = pkg.header;
    expect(h).toHaveLength(31);
    expect(h.slice(0, 5)).toEqual(['"EXTF"', '700', '21', '"Buchungsstapel"', '13']);
    expect(h[5]).toMatch(/^\d{17}$/);
    expect(h[10]).toBe('29098'); // Beraternummer
    expect(h[11]).toBe('55003'); // Mandantennummer
    expect(h[12]).toBe('20260101'); // WJ-Beginn
    expect(h[13]).toBe('4'); // Sachkontenlänge
    expect(h[14]).toBe('20261001'); // Datum vom
    expect(h[15]).toBe('20261031'); // Datum bis
    expect(h[21]).toBe('"EUR"');
    expect(h[26]).toBe('"03"'); // SKR03
  });

  it('has the 125 columns in every line, `;` separated, decimal comma, DDMM dates', async () => {
    const pkg = await exported();
    expect(pkg.columns).toEqual(COLUMNS);
    expect(pkg.columns).toHaveLength(125);
    expect(pkg.rows).toHaveLength(9);
    const at = (name: string) => pkg.columns.indexOf(name);
    for (const row of pkg.rows) {
      expect(row).toHaveLength(125);
      expect(row[at('Umsatz (ohne Soll/Haben-Kz)')]).toMatch(/^\d+,\d{2}$/);
      expect(row[at('Belegdatum')]).toMatch(/^(0[1-9]|[12]\d|3[01])10$/);
      expect(row[at('WKZ Umsatz')]).toBe('"EUR"');
    }
    // The 19 % and 7 % lines of one invoice are two bookings of their gross amounts.
    const mixed = pkg.rows.filter(
      (r) => unquote(r[at('Belegfeld 1')]!) === docs.mixed!.documentNumber,
    );
    expect(mixed.map((r) => [r[0], unquote(r[1]!), r[6], r[7], r[9]])).toEqual([
      ['238,00', 'S', '10000', '8400', '0210'],
      ['53,50', 'S', '10000', '8300', '0210'],
      ['291,50', 'S', '1200', '10000', '1010'],
    ]);
    // Nothing outside the month, no draft.
    expect(pkg.lines.join('\n')).not.toContain(docs.september!.documentNumber);
    expect(pkg.lines.join('\n')).not.toContain('999,00');
  });

  it('is Windows-1252: an umlaut is one byte, quotes in names are doubled', async () => {
    const pkg = await exported();
    expect(pkg.csvBytes.includes(Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72]))).toBe(true); // Müller
    expect(pkg.csvBytes.includes(Buffer.from('Müller', 'utf8'))).toBe(false);
    expect(pkg.csvBytes.includes(Buffer.from('Gegenkonto (ohne BU-Schl\xfcssel)', 'latin1'))).toBe(
      true,
    );
    expect(pkg.lines.some((l) => l.includes('"Müller & Söhne ""Feinkost"" GmbH"'))).toBe(true);
    expect(pkg.lines.some((l) => l.includes('Bäckerei Weiß'))).toBe(true);
  });

  it('balances: the debtor is settled, revenue is the gross sales per rate, the bank the money', async () => {
    const pkg = await exported();
    const b = balances(pkg);
    expect(b.get('10000')).toBe(0);
    expect(b.get('8400')).toBe(-(23800 + 119000));
    // The cancelled 7 % invoice and its credit note cancel out on the revenue account.
    expect(b.get('8300')).toBe(-5350);
    expect(b.get('8125')).toBe(-50000);
    expect(b.get('1200')).toBe(29150 + 119000 + 50000);
    expect([...b.values()].reduce((a, v) => a + v, 0)).toBe(0);
    // Every invoice's bookings add up to its gross total.
    const at = (name: string) => pkg.columns.indexOf(name);
    for (const doc of [docs.mixed!, docs.big!, docs.cancelled!, docs.eu!]) {
      const sum = pkg.rows
        .filter(
          (r) =>
            unquote(r[at('Belegfeld 1')]!) === doc.documentNumber && r[at('Konto')] === '10000',
        )
        .reduce((s, r) => s + Number(r[0]!.replace(',', '')), 0);
      expect(sum).toBe(Math.round(doc.grossTotal * 100));
    }
  });

  it('books the credit note with Soll/Haben reversed and the intra-EU supply with the VAT id', async () => {
    const pkg = await exported();
    const at = (name: string) => pkg.columns.indexOf(name);
    const byNumber = (n: string) =>
      pkg.rows.filter((r) => unquote(r[at('Belegfeld 1')]!) === n && r[at('Konto')] === '10000');
    const [invoiceLine] = byNumber(docs.cancelled!.documentNumber);
    const [creditLine] = byNumber(docs.creditNote!.documentNumber);
    expect(docs.creditNote!.documentNumber).toMatch(/^GS-2026-/);
    expect([invoiceLine![0], unquote(invoiceLine![1]!)]).toEqual(['10,70', 'S']);
    expect([creditLine![0], unquote(creditLine![1]!), creditLine![7]]).toEqual([
      '10,70',
      'H',
      '8300',
    ]);
    expect(unquote(creditLine![at('Buchungstext')]!)).toMatch(/^Stornorechnung Müller/);
    const [eu] = byNumber(docs.eu!.documentNumber);
    expect(eu![at('Gegenkonto (ohne BU-Schlüssel)')]).toBe('8125');
    expect(unquote(eu![at('EU-Land u. UStID (Bestimmung)')]!)).toBe('NL123456789B01');
    expect(eu![at('BU-Schlüssel')]).toBe('""'); // automatic account: no tax key
  });

  it('packs each invoice PDF, lists it in document.xml and links the booking to it', async () => {
    const pkg = await exported();
    const at = (name: string) => pkg.columns.indexOf(name);
    const xml = Buffer.from(pkg.files['document.xml']!).toString('utf8');
    expect(xml).toContain('<archive xmlns="http://xml.datev.de/bedi/tps/document/v05.0"');
    expect(xml).toContain('version="5.0" generatingSystem="Kontor"');
    const listed = [
      ...xml.matchAll(/<document guid="([0-9a-f-]{36})"[^>]*>[\s\S]*?name="([^"]+)"/g),
    ].map((m) => ({ guid: m[1]!, name: m[2]! }));
    const numbers = [docs.mixed, docs.big, docs.cancelled, docs.creditNote, docs.eu].map(
      (d) => d!.documentNumber,
    );
    expect(listed.map((l) => l.name).sort()).toEqual(numbers.map((n) => `${n}.pdf`).sort());
    for (const { guid, name } of listed) {
      const pdf = pkg.files[name]!;
      expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      const rows = pkg.rows.filter((r) => unquote(r[at('Beleglink')]!) === `BEDI "${guid}"`);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => `${unquote(r[at('Belegfeld 1')]!)}.pdf` === name)).toBe(true);
    }
    // The same invoice keeps its GUID from export to export (a re-import adds no duplicate).
    const again = Buffer.from((await exported()).files['document.xml']!).toString('utf8');
    expect(again.match(/guid="[^"]+"/g)).toEqual(xml.match(/guid="[^"]+"/g));
  });
});

describe('GET /v1/exports/datev: refusals', () => {
  it('names a bad or reversed date and a period across fiscal years', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-30&to=2026-03-31', '/querystring/from'],
      ['from=2026-03-01&to=2026-13-01', '/querystring/to'],
      ['from=2026-03-31&to=2026-03-01', '/querystring/to'],
      ['from=2026-12-01&to=2027-01-31', '/querystring/to'],
      ['from=2026-03', '/querystring/from'],
      ['to=2026-03-31', '/querystring/from'],
    ];
    for (const [query, path] of cases) {
      const res = await exportOf(user, query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(path);
    }
    expect((await exportOf(user, 'from=2026-01-01&to=2026-01-31&x=1')).statusCode).toBe(400);
  });

  it('answers 422 naming the settings until they are saved, 401 without credentials', async () => {
    const other = await createUser(t);
    const res = await exportOf(other, 'from=2026-10-01&to=2026-10-31');
    expect(res.statusCode).toBe(422);
    const problem = res.json<{ code: string; detail: string; errors: { path: string }[] }>();
    expect(problem.code).toBe('business_rule_violated');
    expect(problem.detail).toMatch(/PUT \/v1\/exports\/datev\/settings/);
    expect(problem.errors.map((e) => e.path)).toEqual([
      '/settings/consultantNumber',
      '/settings/clientNumber',
    ]);
    const anonymous = await t.request({
      method: 'GET',
      url: '/v1/exports/datev?from=2026-10-01&to=2026-10-31',
      key: null,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers 422 for a tax rate without a revenue account, and exports once it is mapped', async () => {
    const own = await createUser(t);
    const r16 = await call<Rate>(t, own, 'POST', '/v1/tax-rates', { name: 'Alt 16 %', rate: 16 });
    const p = await call<{ id: string }>(t, own, 'POST', '/v1/partners', {
      name: 'Kunde',
      addresses: [billing()],
    });
    await call(t, own, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung',
      creationDate: '2026-07-01',
      deliveryDate: '2026-07-01',
      status: 'FINAL',
      partnerId: p.id,
      lineItems: [{ description: 'Alt', quantity: 1, unitPrice: 100, taxRateId: r16.id }],
    });
    await call(t, own, 'PUT', '/v1/exports/datev/settings', {
      consultantNumber: 1001,
      clientNumber: 1,
      chartOfAccounts: 'SKR04',
      accountLength: 5,
      fiscalYearStartMonth: 7,
    });
    const refused = await exportOf(own, 'from=2026-07-01&to=2026-07-31');
    expect(refused.statusCode).toBe(422);
    expect(refused.json<{ errors: { message: string }[] }>().errors[0]!.message).toContain(r16.id);
    await call(t, own, 'PUT', '/v1/exports/datev/settings', {
      revenueAccounts: [{ taxRateId: r16.id, account: 44100, taxKey: '5' }],
    });
    const res = await exportOf(own, 'from=2026-07-01&to=2026-07-31');
    expect(res.statusCode, res.body).toBe(200);
    const pkg = unpack(res.rawPayload);
    expect(pkg.header[12]).toBe('20260701'); // fiscal year from July
    expect(pkg.header[13]).toBe('5');
    expect(pkg.header[26]).toBe('"04"');
    expect(pkg.rows).toHaveLength(1);
    expect(pkg.rows[0]!.slice(0, 9)).toEqual([
      '116,00',
      '"S"',
      '"EUR"',
      '',
      '',
      '',
      '100000',
      '44100',
      '"5"',
    ]);
    // A period from July to June of the next year is one fiscal year here.
    expect((await exportOf(own, 'from=2026-07-01&to=2027-06-30')).statusCode).toBe(200);
    expect((await exportOf(own, 'from=2026-06-01&to=2026-07-31')).statusCode).toBe(400);
  });

  it('exports an empty period as a header and the column line', async () => {
    const pkg = await exported('from=2026-01-01&to=2026-01-31');
    expect(pkg.rows).toHaveLength(0);
    expect(pkg.lines).toHaveLength(2);
    expect(Buffer.from(pkg.files['document.xml']!).toString('utf8')).toContain(
      '<content>\n  </content>',
    );
  });
});

describe('GET /v1/exports/datev: nothing left out, nothing run', () => {
  /** A fresh account with saved settings and one partner named `name`. */
  async function account(name: string): Promise<{ own: TestUser; partnerId: string }> {
    const own = await createUser(t);
    const partner = await call<{ id: string }>(t, own, 'POST', '/v1/partners', {
      name,
      addresses: [billing()],
    });
    await call(t, own, 'PUT', '/v1/exports/datev/settings', {
      consultantNumber: 1001,
      clientNumber: 2,
    });
    return { own, partnerId: partner.id };
  }

  const finalOn = (own: TestUser, partnerId: string, date: string) =>
    invoice(partnerId, date, [{ description: 'Beratung', quantity: 1, unitPrice: 100 }], own);

  it('defuses a formula in a text field as the CSV lists do', async () => {
    const { own, partnerId } = await account('=HYPERLINK("http://evil.example","Rabatt")');
    await finalOn(own, partnerId, '2026-04-02');
    const res = await exportOf(own, 'from=2026-04-01&to=2026-04-30');
    expect(res.statusCode, res.body).toBe(200);
    const pkg = unpack(res.rawPayload);
    const at = pkg.columns.indexOf('Buchungstext');
    expect(pkg.rows.map((r) => unquote(r[at]!))).toEqual([
      `'=HYPERLINK("http://evil.example","Rabatt")`.slice(0, 60),
    ]);
    expect(pkg.lines.some((l) => l.includes(';"=HYPERLINK'))).toBe(false);
  });

  it('refuses the fiscal year while a booking of it has no calendar date, naming each', async () => {
    const { own, partnerId } = await account('Kunde mit Datumsfehler');
    const good = await finalOn(own, partnerId, '2026-03-10');
    const bad = await finalOn(own, partnerId, '2026-12-20');
    await call(t, own, 'POST', '/v1/payments', {
      direction: 'INCOMING',
      amount: 119,
      currency: 'EUR',
      paymentDate: '2026-03-20',
      status: 'MARKED',
      documentId: good.id,
    });
    const db = t.app.ctx.db;
    const payment = await db
      .selectFrom('payments')
      .select('id')
      .where('account_id', '=', own.accountId)
      .executeTakeFirstOrThrow();
    /** Stores the two dates directly, as rows written before dates were checked. */
    const store = async (invoiceDate: string, paymentDate: string) => {
      await db
        .updateTable('documents')
        .set({ creation_date: invoiceDate })
        .where('id', '=', bad.id)
        .execute();
      await db
        .updateTable('payments')
        .set({ payment_date: paymentDate })
        .where('id', '=', payment.id)
        .execute();
    };
    await store('2026-13-45', '2026-02-30');
    // Every period of 2026 is refused: no period would hold these bookings.
    for (const period of ['from=2026-12-01&to=2026-12-31', 'from=2026-03-01&to=2026-03-31']) {
      const res = await exportOf(own, period);
      expect(res.statusCode, res.body).toBe(422);
      const problem = res.json<{ code: string; detail: string; errors: unknown[] }>();
      expect(problem.code).toBe('business_rule_violated');
      expect(problem.detail).toContain('kontor doctor');
      expect(problem.errors).toEqual([
        {
          path: `/documents/${bad.id}/creationDate`,
          message: `is 2026-13-45 (number ${bad.documentNumber}), not a calendar date`,
          code: 'invalid_format',
        },
        {
          path: `/payments/${payment.id}/paymentDate`,
          message: `is 2026-02-30 (invoice ${good.documentNumber}), not a calendar date`,
          code: 'invalid_format',
        },
      ]);
    }
    // Another fiscal year is not held up; corrected, the year exports with the invoice.
    expect((await exportOf(own, 'from=2025-12-01&to=2025-12-31')).statusCode).toBe(200);
    await store('2026-12-20', '2026-03-20');
    const res = await exportOf(own, 'from=2026-12-01&to=2026-12-31');
    expect(res.statusCode, res.body).toBe(200);
    expect(unpack(res.rawPayload).lines.join('\n')).toContain(bad.documentNumber);
  });

  it('refuses only the fiscal year that holds an impossible day of a real month', async () => {
    const { own, partnerId } = await account('Kunde mit Wirtschaftsjahr ab Juli');
    const invoice = await finalOn(own, partnerId, '2026-01-10');
    await call(t, own, 'PUT', '/v1/exports/datev/settings', { fiscalYearStartMonth: 7 });
    await t.app.ctx.db
      .updateTable('documents')
      .set({ creation_date: '2026-02-30' })
      .where('id', '=', invoice.id)
      .execute();
    // February 2026 belongs to the fiscal year from July 2025: that one is refused …
    expect((await exportOf(own, 'from=2026-02-01&to=2026-02-28')).statusCode).toBe(422);
    // … the one from July 2026 is not held up by it.
    expect((await exportOf(own, 'from=2026-08-01&to=2026-08-31')).statusCode).toBe(200);
  });
});

describe('GET /v1/exports/datev: the package as it streams', () => {
  const period = { from: '2026-10-01', to: '2026-10-31' };
  /** The export made by the service directly, at a fixed time, with the given chunk sizes. */
  function exportWith(chunks: Partial<ExportChunks>, ctx: AppContext = t.app.ctx) {
    const fixed = { ...ctx, clock: new ManualClock(new Date('2026-11-02T08:00:00.000Z')) };
    return new DatevExportService(fixed, chunks).export(user.accountId, period);
  }

  /** The package's bytes, read without giving any chunk back. */
  async function packageOf(chunks: Partial<ExportChunks>, ctx?: AppContext): Promise<Buffer> {
    return bytesOf((await exportWith(chunks, ctx)).chunks);
  }

  it('stores the PDFs as they are (method 0) and deflates the CSV and the index', async () => {
    const res = await exportOf(user, 'from=2026-10-01&to=2026-10-31');
    expect(res.statusCode, res.body).toBe(200);
    const entries = zipMethods(res.rawPayload);
    const pdfs = entries.filter((e) => e.name.endsWith('.pdf'));
    expect(pdfs).toHaveLength(5);
    expect(pdfs.every((e) => e.method === 0)).toBe(true);
    expect(entries.filter((e) => !e.name.endsWith('.pdf'))).toEqual([
      { name: 'EXTF_Buchungsstapel.csv', method: 8 },
      { name: 'document.xml', method: 8 },
    ]);
    // Stored means the very bytes of the archived file (GoBD: the stored PDF is the document).
    const files = unpack(res.rawPayload).files;
    const stored = await bytesOf(
      await t.app.ctx.storage.open(`${user.accountId}/${docs.big!.fileId}`),
    );
    const big = pdfs.find((e) => e.name === `${docs.big!.documentNumber}.pdf`)!;
    expect(Buffer.from(files[big.name]!).equals(stored)).toBe(true);
  });

  it('is the same package byte for byte across query pages and read-ahead windows', async () => {
    const whole = await packageOf({});
    // Two rows per query: the 5 invoices take three pages, the 3 payments two; one PDF read
    // ahead at a time (the byte budget lets only one in flight).
    const paged = await packageOf({ pageSize: 2, readAhead: 2, readAheadBytes: 1 });
    const pkg = unpack(paged);
    expect(pkg.rows).toHaveLength(9); // 6 lines of 5 invoices and credit notes, 3 payments
    expect(zipMethods(paged).map((e) => e.name)).toEqual(zipMethods(whole).map((e) => e.name));
    expect(paged.equals(whole)).toBe(true);
  });

  /**
   * The package sent as the route sends it, to a socket that takes each chunk's bytes (copies
   * them) a moment after the write, buffering up to `highWaterMark`; one PDF read ahead at a
   * time. Answers the bytes and the memory the PDFs went out in.
   */
  async function sentThrough(highWaterMark: number) {
    const pkg = await exportWith({ readAhead: 1 });
    const copies: Buffer[] = [];
    const memory = new Set<ArrayBufferLike>();
    const socket = new Writable({
      highWaterMark,
      write(chunk: Buffer, _encoding, done) {
        if (chunk.length > 50_000) memory.add(chunk.buffer);
        setTimeout(() => {
          copies.push(Buffer.from(chunk));
          done();
        }, 2);
      },
    });
    await writeLentChunks(socket, pkg.chunks, pkg.returned, {
      error: (details) => expect.fail(JSON.stringify(details)),
      info: (_details, message) => expect.fail(message),
    });
    await finished(socket);
    return { bytes: Buffer.concat(copies), buffers: memory.size };
  }

  it('reads each PDF into a buffer the socket gave back, and the package stays the same byte for byte', async () => {
    const whole = await packageOf({});
    expect(zipMethods(whole).filter((e) => e.name.endsWith('.pdf'))).toHaveLength(5);
    // Each write waits for the socket: the 5 PDFs (50–62 KiB) go out in one buffer, read into again.
    const waited = await sentThrough(1024);
    expect(waited.bytes.equals(whole)).toBe(true);
    expect(waited.buffers).toBe(1);
    // The socket buffers the writes and takes the bytes later: no buffer is read into before.
    const buffered = await sentThrough(1024 * 1024);
    expect(buffered.bytes.equals(whole)).toBe(true);
  });

  it('leaves an unreadable PDF out of the package and its index, keeping the rest in order', async () => {
    const storage = t.app.ctx.storage;
    const lost = `${user.accountId}/${docs.mixed!.fileId}`;
    const failing = Object.create(storage) as typeof storage;
    failing.open = (key: string) =>
      key === lost ? Promise.reject(new Error('gone')) : storage.open(key);
    failing.read = (key: string) =>
      key === lost ? Promise.reject(new Error('gone')) : storage.read(key);
    const zip = await packageOf({ readAhead: 3 }, { ...t.app.ctx, storage: failing });
    const names = zipMethods(zip).map((e) => e.name);
    const whole = zipMethods(await packageOf({})).map((e) => e.name);
    expect(names).toEqual(whole.filter((n) => n !== `${docs.mixed!.documentNumber}.pdf`));
    const xml = Buffer.from(unpack(zip).files['document.xml']!).toString('utf8');
    expect(xml).not.toContain(`name="${docs.mixed!.documentNumber}.pdf"`);
    expect(xml).toContain(`name="${docs.big!.documentNumber}.pdf"`);
  });
});
