import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { hmac } from '../src/shared/secrets.js';
import {
  billingAddress,
  call,
  finalInvoice,
} from '../src/modules/documents/documents.test-support.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from './helpers.js';

/**
 * Every date of every request body and query is a real calendar date (`IsoDate` /
 * `DocumentDate`, `format: date`), refused with a 400 problem naming the field otherwise.
 * The fields are read from the API description itself, so a date field added later is
 * covered by the table without being listed by hand (and the list below says which it is).
 */

type Json = Record<string, unknown>;

const TODAY = '2026-06-15';
const WEBHOOK_SECRET = 'whsec_test_kontor_dates_0123456789abcdef';
let t: TestApp;
let user: TestUser;
let partnerId: string;

beforeAll(async () => {
  t = await buildTestApp({
    clock: new ManualClock(new Date(`${TODAY}T09:00:00Z`)),
    env: { PROVIDER_WEBHOOK_SECRET: WEBHOOK_SECRET },
  });
  await t.app.ready();
  user = await createUser(t);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Datum GmbH',
    addresses: [billingAddress('buchhaltung@datum.example')],
  });
  partnerId = partner.id;
});
afterAll(() => t.close());

interface DateField {
  method: string;
  path: string;
  where: 'body' | 'querystring';
  /** The property names from the body's root (or the one query parameter). */
  field: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The schema a `$ref` names in the description, else the schema itself. */
function resolve(doc: Json, schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop()!;
  return ((doc.components as Json).schemas as Record<string, Json>)[name] ?? {};
}

/**
 * The date fields (`format: date`) under `schema`, and string fields that speak of dates
 * (named `…Date` or described as YYYY-MM-DD) without saying they are one (`loose`).
 */
function walk(
  doc: Json,
  schema: Json,
  at: string[],
  found: { dates: string[][]; loose: string[][] },
): void {
  const s = resolve(doc, schema);
  for (const branch of [...((s.anyOf as Json[]) ?? []), ...((s.oneOf as Json[]) ?? [])])
    walk(doc, branch, at, found);
  const properties = s.properties as Record<string, Json> | undefined;
  for (const [key, property] of Object.entries(properties ?? {}))
    walk(doc, property, [...at, key], found);
  if (s.items) walk(doc, s.items as Json, [...at, '0'], found);
  const types = [s.type].flat();
  if (!types.includes('string')) return;
  if (s.format === 'date') found.dates.push(at);
  else if (
    s.format !== 'date-time' &&
    (/Date$/.test(at.at(-1) ?? '') ||
      (typeof s.description === 'string' && s.description.includes('YYYY-MM-DD')))
  )
    found.loose.push(at);
}

/** Every date field of every request of the API, and the loose ones (see `walk`). */
function requestDateFields(doc: Json): { dates: DateField[]; loose: string[] } {
  const dates: DateField[] = [];
  const loose: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const name = `${method.toUpperCase()} ${path}`;
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        if (p.in !== 'query') continue;
        const found = { dates: [] as string[][], loose: [] as string[][] };
        walk(doc, p.schema as Json, [p.name as string], found);
        for (const field of found.dates) dates.push({ method, path, where: 'querystring', field });
        for (const field of found.loose) loose.push(`${name} ?${field.join('.')}`);
      }
      const content = (op.requestBody as Json | undefined)?.content as Json | undefined;
      const body = (content?.['application/json'] as Json | undefined)?.schema as Json;
      if (!body) continue;
      const found = { dates: [] as string[][], loose: [] as string[][] };
      walk(doc, body, [], found);
      for (const field of found.dates) dates.push({ method, path, where: 'body', field });
      for (const field of found.loose) loose.push(`${name} ${field.join('.')}`);
    }
  return { dates, loose };
}

const label = (f: DateField) =>
  `${f.method.toUpperCase()} ${f.path} ${f.where === 'body' ? '' : '?'}${f.field.join('.')}`;

/** `POST /v1/documents servicePeriod.from` or `GET /v1/payments ?from` → a `DateField`. */
function parseLabel(text: string): DateField {
  const [method, path, field] = text.split(' ') as [string, string, string];
  const query = field.startsWith('?');
  return {
    method: method.toLowerCase(),
    path,
    where: query ? 'querystring' : 'body',
    field: (query ? field.slice(1) : field).split('.'),
  };
}

/** An object holding `value` at `field` (`['servicePeriod', 'from']` → nested). */
function bodyWith(field: string[], value: string): unknown {
  return field.reduceRight<unknown>(
    (inner, key) => (key === '0' ? [inner] : { [key]: inner }),
    value,
  );
}

/** Every date field of the API today: the table the test below runs (see the report). */
const EXPECTED = [
  'GET /v1/budget-entries ?from',
  'GET /v1/budget-entries ?to',
  'GET /v1/contracts ?activeOn',
  'GET /v1/contracts ?deadlineBefore',
  'GET /v1/dashboard/timeseries ?from',
  'GET /v1/dashboard/timeseries ?to',
  'GET /v1/documents ?from',
  'GET /v1/documents ?to',
  'GET /v1/documents/lines ?from',
  'GET /v1/documents/lines ?to',
  'GET /v1/documents/taxes ?from',
  'GET /v1/documents/taxes ?to',
  'GET /v1/exports/datev ?from',
  'GET /v1/exports/datev ?to',
  'GET /v1/notes ?dueBefore',
  'GET /v1/payments ?from',
  'GET /v1/payments ?to',
  'PUT /v1/contracts/{contractId} billing.endDate',
  'PUT /v1/contracts/{contractId} billing.nextInvoiceDate',
  'PUT /v1/contracts/{contractId} endDate',
  'PUT /v1/contracts/{contractId} startDate',
  'PUT /v1/documents/{documentId} creationDate',
  'PUT /v1/documents/{documentId} deliveryDate',
  'PUT /v1/documents/{documentId} dueDate',
  'PUT /v1/documents/{documentId} servicePeriod.from',
  'PUT /v1/documents/{documentId} servicePeriod.to',
  'PUT /v1/documents/{documentId} validUntil',
  'PUT /v1/notes/{noteId} dueDate',
  'PUT /v1/payments/{paymentId} paymentDate',
  'POST /v1/bank-statement-imports periodFrom',
  'POST /v1/bank-statement-imports periodTo',
  'POST /v1/budget-entries entryDate',
  'POST /v1/contracts billing.endDate',
  'POST /v1/contracts billing.nextInvoiceDate',
  'POST /v1/contracts endDate',
  'POST /v1/contracts startDate',
  'POST /v1/contracts/billing-runs until',
  'POST /v1/document-templates/compile data.contract.cancellationDeadline',
  'POST /v1/document-templates/compile data.contract.endDate',
  'POST /v1/document-templates/compile data.contract.nextRenewalDate',
  'POST /v1/document-templates/compile data.contract.startDate',
  'POST /v1/document-templates/compile data.document.creationDate',
  'POST /v1/document-templates/compile data.today',
  'POST /v1/documents creationDate',
  'POST /v1/documents deliveryDate',
  'POST /v1/documents dueDate',
  'POST /v1/documents servicePeriod.from',
  'POST /v1/documents servicePeriod.to',
  'POST /v1/documents validUntil',
  'POST /v1/documents/processing creationDate',
  'POST /v1/documents/processing deliveryDate',
  'POST /v1/documents/processing dueDate',
  'POST /v1/documents/processing servicePeriod.from',
  'POST /v1/documents/processing servicePeriod.to',
  'POST /v1/documents/processing validUntil',
  'POST /v1/documents/{documentId}/cancel creationDate',
  'POST /v1/documents/{documentId}/convert creationDate',
  'POST /v1/documents/{documentId}/down-payments creationDate',
  'POST /v1/documents/{documentId}/credit-notes creationDate',
  'POST /v1/dunning/runs date',
  'POST /v1/notes dueDate',
  'POST /v1/payments paymentDate',
  'POST /v1/partners/{partnerId}/mandates signedOn',
  'POST /v1/sepa/collections collectionDate',
  'POST /v1/sepa/transfers executionDate',
  'PUT /v1/sepa/mandates/{mandateId} signedOn',
  'POST /v1/webhooks/provider paymentDate',
  'PUT /v1/dashboard/cash-anchor effectiveDate',
];

const WEBHOOK = '/v1/webhooks/provider';

/** JSON headers, and for the provider's webhook its signature over the body. */
function signed(path: string, payload: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (path !== WEBHOOK) return headers;
  // Signed at the app's (fixed) time: an old signature is a replay.
  const at = Math.floor(Date.parse(`${TODAY}T09:00:00Z`) / 1000);
  return {
    ...headers,
    'provider-signature': `t=${at},v1=${hmac(WEBHOOK_SECRET, `${at}.${payload}`)}`,
  };
}

/** Impossible dates, and strings that are no date at all. */
const BAD = ['2026-02-30', '2026-13-45', '2026-12-99', '2026-00-00', '2025-02-29', '2026-1-5'];

describe('every date field is a real calendar date', () => {
  it('finds every date field of the API, and no date field outside the date schema', () => {
    const { dates, loose } = requestDateFields(t.app.swagger() as unknown as Json);
    expect([...new Set(dates.map(label))].sort()).toEqual([...EXPECTED].sort());
    // A string about dates must say it is one, so the validator checks it. The one exception
    // takes a date or a timestamp and is checked by its service (api-tokens.test.ts).
    expect(loose).toEqual(['POST /v1/api-tokens expiresAt']);
  });

  it.each(BAD)('refuses %s in every date field with 400 naming the field', async (value) => {
    // The listed fields, not the ones found: a field that lost its date schema is still tried.
    for (const f of EXPECTED.map(parseLabel)) {
      const path = f.path.replace(/\{[^}]+\}/g, 'x_00000000000000000000000000');
      const payload = f.where === 'body' ? JSON.stringify(bodyWith(f.field, value)) : undefined;
      const res = await t.request({
        method: f.method.toUpperCase(),
        url: f.where === 'body' ? path : `${path}?${f.field[0]}=${value}`,
        ...(payload === undefined ? {} : { payload, headers: signed(path, payload) }),
        // The payment provider's deliveries carry a signature instead of credentials.
        ...(path === WEBHOOK ? { key: null } : { token: user.token }),
      });
      const pointer = `/${f.where}/${f.field.join('/')}`;
      expect(res.statusCode, `${label(f)} = ${value}: ${res.body}`).toBe(400);
      const problem = res.json<{ code: string; errors: { path: string; code: string }[] }>();
      expect(problem.code, label(f)).toBe('validation_failed');
      expect(problem.errors, `${label(f)} = ${value}`).toContainEqual({
        path: pointer,
        code: 'invalid_format',
        message: 'must be a real calendar date, expected YYYY-MM-DD',
      });
    }
  });

  it('takes a leap day', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/notes',
      token: user.token,
      payload: {
        type: 'REMINDER',
        parentType: 'PARTNER',
        parentId: partnerId,
        title: 'Schaltjahr',
        content: 'Der 29. Februar gibt es.',
        dueDate: '2028-02-29',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ dueDate: string }>().dueDate).toBe('2028-02-29');
  });
});

describe('document dates', () => {
  const draft = (extra: Json) =>
    t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: {
        documentType: 'INVOICE',
        name: 'Datum',
        partnerId,
        creationDate: TODAY,
        lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
        ...extra,
      },
    });

  it.each([
    ['creationDate', '1999-12-31'],
    ['creationDate', '1900-01-01'],
    ['creationDate', '2100-01-01'],
    ['creationDate', '9999-12-31'],
    ['dueDate', '1999-12-31'],
    ['deliveryDate', '1999-12-31'],
    ['deliveryDate', '2100-01-01'],
  ])('refuses %s %s: documents are dated 2000-01-01 to 2099-12-31', async (field, value) => {
    const res = await draft({ [field]: value });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ errors: unknown[] }>().errors).toEqual([
      {
        path: `/body/${field}`,
        code: 'out_of_range',
        message: 'must be from 2000-01-01 to 2099-12-31',
      },
    ]);
  });

  it('refuses a document dated more than one year after today, on create and update', async () => {
    const late = await draft({ creationDate: '2027-06-16' });
    expect(late.statusCode, late.body).toBe(400);
    expect(late.json<{ errors: unknown[] }>().errors).toEqual([
      {
        path: '/body/creationDate',
        code: 'out_of_range',
        message: 'must not be after 2027-06-15 (one year after today)',
      },
    ]);
    const lastDay = await draft({ creationDate: '2027-06-15' });
    expect(lastDay.statusCode, lastDay.body).toBe(201);
    const id = lastDay.json<{ id: string }>().id;
    const moved = await t.request({
      method: 'PUT',
      url: `/v1/documents/${id}`,
      token: user.token,
      payload: { creationDate: '2027-06-16', version: 1 },
    });
    expect(moved.statusCode, moved.body).toBe(400);
    expect(moved.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe('/body/creationDate');
    const first = await draft({ creationDate: '2000-01-01', dueDate: '2000-01-31' });
    expect(first.statusCode, first.body).toBe(201);
  });

  it('refuses a credit note dated before the invoice it corrects, or out of range', async () => {
    const invoice = await finalInvoice<{ id: string; creationDate: string }>(
      t,
      user,
      partnerId,
      '2026-05-31',
      { creationDate: '2026-05-04', deliveryDate: '2026-05-04' },
    );
    const refused: [string, string, Json, string, string][] = [
      ['credit-notes', 'before the invoice', { creationDate: '2026-05-03' }, 'out_of_range', ''],
      ['cancel', 'before the invoice', { creationDate: '2026-05-03' }, 'out_of_range', ''],
      ['cancel', 'in 1900', { creationDate: '1900-01-01' }, 'out_of_range', ''],
      ['cancel', 'in 9999', { creationDate: '9999-12-31' }, 'out_of_range', ''],
      ['cancel', 'past a year ahead', { creationDate: '2027-06-16' }, 'out_of_range', ''],
      ['cancel', 'on 30 February', { creationDate: '2026-02-30' }, 'invalid_format', ''],
    ];
    for (const [action, why, body, code] of refused) {
      const payload =
        action === 'cancel'
          ? body
          : { ...body, lineItems: [{ description: 'Nachlass', quantity: 1, unitPrice: 10 }] };
      const res = await t.request({
        method: 'POST',
        url: `/v1/documents/${invoice.id}/${action}`,
        token: user.token,
        payload,
      });
      expect(res.statusCode, `${action} ${why}: ${res.body}`).toBe(400);
      expect(res.json<{ errors: unknown[] }>().errors, why).toContainEqual(
        expect.objectContaining({ path: '/body/creationDate', code }),
      );
    }
    const before = await t.request({
      method: 'POST',
      url: `/v1/documents/${invoice.id}/cancel`,
      token: user.token,
      payload: { creationDate: '2026-05-03' },
    });
    expect(before.json<{ detail: string }>().detail).toContain('2026-05-04');
    // On the invoice's own day it is fine, and the invoice is cancelled once.
    const storno = await call<{ creationDate: string; documentNumber: string }>(
      t,
      user,
      'POST',
      `/v1/documents/${invoice.id}/cancel`,
      { creationDate: '2026-05-04' },
    );
    expect(storno.creationDate).toBe('2026-05-04');
    expect(storno.documentNumber).toMatch(/^GS-2026-/);
  });
});
