import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { billingAddress, call, finalInvoice } from './documents.test-support.js';
import { formatProblems, render } from './numbering.js';

/**
 * The account's own number formats (docs/invoicing.md §8): `PUT /v1/documents/numbering`
 * changes how the next invoices and credit notes are numbered, never a FINAL one's number;
 * each format counts in its own gapless sequence and skips numbers already used.
 */

type Doc = { id: string; documentNumber: string | null };
type Numbering = {
  invoiceFormat: string;
  creditNoteFormat: string;
  nextInvoiceNumber: string;
  nextCreditNoteNumber: string;
  version: number;
  updatedAt: string | null;
};
type Problem = { code: string; errors?: { path: string; code: string; message: string }[] };

const URL = '/v1/documents/numbering';
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date('2027-06-15T09:00:00Z')) });
});
afterAll(() => t.close());

async function setup(): Promise<{ user: TestUser; invoice: (date?: string) => Promise<Doc> }> {
  const user = await createUser(t);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Nummer GmbH',
    addresses: [billingAddress('buchhaltung@nummer.example')],
  });
  const invoice = (date = '2027-05-01') =>
    finalInvoice<Doc>(t, user, partner.id, '2027-12-31', {
      creationDate: date,
      deliveryDate: date,
    });
  return { user, invoice };
}

const put = (user: TestUser, payload: Record<string, unknown>, headers = {}) =>
  t.request({ method: 'PUT', url: URL, token: user.token, payload, headers });

describe(`invoice number formats (${dbKind})`, () => {
  it('answers the defaults at version 0 until a format is saved', async () => {
    const { user } = await setup();
    const res = await t.request({ method: 'GET', url: URL, token: user.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"0"');
    expect(res.json<Numbering>()).toEqual({
      invoiceFormat: '{YYYY}-{0000}',
      creditNoteFormat: 'GS-{YYYY}-{0000}',
      quoteFormat: 'AN-{YYYY}-{0000}',
      orderConfirmationFormat: 'AB-{YYYY}-{0000}',
      nextInvoiceNumber: '2027-0001',
      nextCreditNoteNumber: 'GS-2027-0001',
      nextQuoteNumber: 'AN-2027-0001',
      nextOrderConfirmationNumber: 'AB-2027-0001',
      version: 0,
      updatedAt: null,
    });
  });

  it('numbers the next invoices by a saved format and keeps FINAL numbers', async () => {
    const { user, invoice } = await setup();
    const first = await invoice();
    expect(first.documentNumber).toBe('2027-0001');

    const saved = await call<Numbering>(t, user, 'PUT', URL, {
      invoiceFormat: 'RE-{YYYY}-{00000}',
      version: 0,
    });
    expect(saved).toMatchObject({
      invoiceFormat: 'RE-{YYYY}-{00000}',
      creditNoteFormat: 'GS-{YYYY}-{0000}',
      nextInvoiceNumber: 'RE-2027-00001',
      version: 1,
    });
    expect((await invoice()).documentNumber).toBe('RE-2027-00001');
    expect((await invoice()).documentNumber).toBe('RE-2027-00002');
    // The invoice finalized before keeps its number.
    expect((await call<Doc>(t, user, 'GET', `/v1/documents/${first.id}`)).documentNumber).toBe(
      '2027-0001',
    );

    const readiness = await call<{
      items: { key: string; detail: Record<string, string> | null }[];
    }>(t, user, 'GET', '/v1/account/invoice-readiness');
    expect(readiness.items.find((i) => i.key === 'invoiceNumbering')?.detail).toEqual({
      invoiceFormat: 'RE-{YYYY}-{00000}',
      creditNoteFormat: 'GS-{YYYY}-{0000}',
      nextInvoiceNumber: 'RE-2027-00003',
    });

    // Back to the default: its sequence continues where it stopped.
    await call(t, user, 'PUT', URL, { invoiceFormat: '{YYYY}-{0000}', version: 1 });
    expect((await invoice()).documentNumber).toBe('2027-0002');
  });

  it('keeps credit notes on their own format, which may be changed too', async () => {
    const { user, invoice } = await setup();
    await call(t, user, 'PUT', URL, { invoiceFormat: '{YY}{MM}-{000}' });
    const a = await invoice();
    expect(a.documentNumber).toBe('2705-001');
    const storno = await call<Doc>(t, user, 'POST', `/v1/documents/${a.id}/cancel`, {});
    expect(storno.documentNumber).toBe('GS-2027-0001');

    const saved = await call<Numbering>(t, user, 'PUT', URL, {
      creditNoteFormat: 'KOR/{YYYY}/{000}',
      version: 1,
    });
    expect(saved.invoiceFormat).toBe('{YY}{MM}-{000}');
    expect(saved.nextCreditNoteNumber).toBe('KOR/2027/001');
    const b = await invoice();
    const second = await call<Doc>(t, user, 'POST', `/v1/documents/${b.id}/cancel`, {});
    expect(second.documentNumber).toBe('KOR/2027/001');
  });

  it('restarts the counter per year only when the format shows the year', async () => {
    const { user, invoice } = await setup();
    await call(t, user, 'PUT', URL, { invoiceFormat: '{YY}{MM}-{000}' });
    expect((await invoice('2026-05-01')).documentNumber).toBe('2605-001');
    expect((await invoice('2026-07-01')).documentNumber).toBe('2607-002');
    expect((await invoice('2027-01-10')).documentNumber).toBe('2701-001');

    await call(t, user, 'PUT', URL, { invoiceFormat: 'K{0000}' });
    expect((await invoice('2026-08-01')).documentNumber).toBe('K0001');
    expect((await invoice('2027-02-01')).documentNumber).toBe('K0002');
  });

  it('skips numbers another format already gave', async () => {
    const { user, invoice } = await setup();
    expect((await invoice()).documentNumber).toBe('2027-0001');
    expect((await invoice()).documentNumber).toBe('2027-0002');
    // This format renders `2027-0001` first: taken, so it skips to the first free number.
    const saved = await call<Numbering>(t, user, 'PUT', URL, { invoiceFormat: '{YYYY}-0{000}' });
    expect(saved.nextInvoiceNumber).toBe('2027-0003');
    expect((await invoice()).documentNumber).toBe('2027-0003');
    await call(t, user, 'PUT', URL, { invoiceFormat: '{YYYY}-{0000}' });
    expect((await invoice()).documentNumber).toBe('2027-0004');
  });

  it('gives invoices finalized in parallel distinct, consecutive numbers of a custom format', async () => {
    const { user, invoice } = await setup();
    await call(t, user, 'PUT', URL, { invoiceFormat: 'P/{YYYY}/{000}' });
    const numbers = (await Promise.all(Array.from({ length: 10 }, () => invoice()))).map(
      (d) => d.documentNumber,
    );
    expect(numbers.sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `P/2027/${String(i + 1).padStart(3, '0')}`),
    );
  });

  it('refuses a bad format naming the field, and changes nothing', async () => {
    const { user } = await setup();
    const cases: [Record<string, string>, string, string][] = [
      [{ invoiceFormat: 'RE {YYYY}-{0000}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: 'RE.{YYYY}.{0000}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: '{YYYY}-{DD}-{0000}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: 'RE-{YYYY}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: '{YYYY}-{00}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: '{000000000}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: '{000}-{0000}' }, '/body/invoiceFormat', 'invalid_format'],
      [{ invoiceFormat: '-{YYYY}-{0000}' }, '/body/invoiceFormat', 'invalid_format'],
      [
        { creditNoteFormat: 'GUTSCHRIFT-KORREKTUR-{YYYY}-{00000}' },
        '/body/creditNoteFormat',
        'too_long',
      ],
    ];
    for (const [payload, path, code] of cases) {
      const res = await put(user, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const problem = res.json<Problem>();
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors, JSON.stringify(payload)).toContainEqual(
        expect.objectContaining({ path, code }),
      );
    }
    const now = await call<Numbering>(t, user, 'GET', URL);
    expect(now).toMatchObject({ invoiceFormat: '{YYYY}-{0000}', version: 0 });
  });

  it('is a versioned setting for admins', async () => {
    const { user } = await setup();
    const member = await createUser(t, { accountId: user.accountId, role: 'user' });
    expect((await put(member, { invoiceFormat: 'RE-{YYYY}-{0000}' })).statusCode).toBe(403);
    expect((await put(user, { invoiceFormat: 'RE-{YYYY}-{0000}', version: 3 })).statusCode).toBe(
      409,
    );
    expect(
      (await put(user, { invoiceFormat: 'RE-{YYYY}-{0000}' }, { 'if-match': '"2"' })).statusCode,
    ).toBe(412);
    const first = await put(user, { invoiceFormat: 'RE-{YYYY}-{0000}' }, { 'if-match': '"0"' });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBe('"1"');
    const stale = await put(user, { invoiceFormat: 'R-{YYYY}-{0000}', version: 0 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json<{ currentVersion: number }>().currentVersion).toBe(1);
    const seen = await call<Numbering>(t, member, 'GET', URL);
    expect(seen).toMatchObject({ invoiceFormat: 'RE-{YYYY}-{0000}', version: 1 });
  });
});

describe('number format rules', () => {
  it('renders the tokens and measures the rendered length', () => {
    expect(render('RE-{YYYY}-{00000}', 2027, 3, 42)).toBe('RE-2027-00042');
    expect(render('{YY}{MM}-{000}', 2007, 11, 1234)).toBe('0711-1234');
    expect(formatProblems('A'.repeat(26) + '{0000}', '/body/x')).toEqual([]);
    expect(formatProblems('A'.repeat(27) + '{0000}', '/body/x')).toEqual([
      expect.objectContaining({ code: 'too_long' }),
    ]);
  });
});
