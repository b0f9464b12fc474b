/**
 * A draft is refused (422 `template_invalid`) when its template cannot render it; Kontor's own
 * layouts render every document the API accepts, so a draft in one of them is not tried. These
 * tests hold both halves: the largest and the oddest documents render in every system layout
 * that declares no fields, past the caps that still refuse them in a template an account wrote.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  TEST_COMPANY,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import {
  buildRenderContext,
  OUTPUT_LIMIT,
  OWN_SOURCES,
  renderTemplate,
  type AccountData,
  type ContractData,
  type DocumentData,
  type PartnerData,
  type RenderContext,
  type RenderLimit,
} from '../../shared/templating/index.js';
import { SYSTEM_TEMPLATES } from '../document-templates/system-templates.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
});
afterAll(() => t.close());

type Answer = Record<string, unknown> & { id: string; version: number };
const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.request({ method, url, token: user.token, ...(payload ? { payload } : {}) });
const created = async (url: string, payload: object): Promise<Answer> => {
  const res = await send('POST', url, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Answer>();
};

const account: AccountData = {
  name: 'Test GmbH',
  currency: 'EUR',
  dateFormat: 'DD.MM.YYYY',
  numberFormat: '1.234,56',
  addresses: [],
};
/** The system layouts a draft is not tried in: those that declare no fields. */
const fieldless = SYSTEM_TEMPLATES.filter((s) => s.fields.length === 0);

/** A document's render context as the documents module builds it, from the API's answers. */
async function contextOf(documentId: string) {
  const document = (await send('GET', `/v1/documents/${documentId}`)).json<DocumentData>();
  const { partnerId, contractId } = document as { partnerId?: string; contractId?: string };
  const partner = (await send('GET', `/v1/partners/${partnerId}`)).json<PartnerData>();
  const contract = contractId
    ? (await send('GET', `/v1/contracts/${contractId}`)).json<ContractData>()
    : null;
  return buildRenderContext({
    account,
    company: TEST_COMPANY,
    partner,
    contract,
    document,
    invoice: { paidAmount: 0, cancellation: false, directDebit: null },
    today: '2026-11-30',
  });
}

/** Renders a context in `sources` within `limit`, as the documents module does. */
const renderIn = (
  sources: { contentSource: string; footerSource: string },
  context: RenderContext,
  limit: RenderLimit,
) => renderTemplate({ ...sources, fields: [] }, context, limit);

/** Every character the HTML escape widens, in a text of the longest length a line accepts. */
const WIDE = '&<>\'"'.repeat(200);

describe('a draft and its template', () => {
  it('the largest draft is kept in Kontor’s layout, renders in each one, and a copy written by the account refuses it', async () => {
    const partner = await created('/v1/partners', {
      name: WIDE.slice(0, 200),
      addresses: [
        {
          type: 'BILLING',
          street: WIDE.slice(0, 200),
          postalCode: '20095',
          city: 'Hamburg',
          country: 'DE',
        },
      ],
    });
    const lineItems = Array.from({ length: 500 }, (_, i) => ({
      description: `${i + 1} ${WIDE}`.slice(0, 1000),
      // The largest amounts whose totals stay within a safe integer of minor units.
      quantity: 999.999,
      unitPrice: -99_999_999.99,
    }));
    const body = {
      documentType: 'INVOICE',
      name: WIDE.slice(0, 200),
      partnerId: partner.id,
      creationDate: '2026-11-20',
      deliveryDate: '2026-11-20',
      lineItems,
    };
    const draft = await created('/v1/documents', body);
    const renamed = await send('PUT', `/v1/documents/${draft.id}`, {
      version: draft.version,
      name: `${WIDE.slice(0, 199)}x`,
      lineItems,
    });
    expect(renamed.statusCode, renamed.body).toBe(200);

    const context = await contextOf(draft.id);
    for (const layout of fieldless) {
      const html = renderIn(layout, context, OWN_SOURCES);
      expect(html.contentHtml.length, layout.systemKey).toBeGreaterThan(0);
      if (layout.systemKey === 'INVOICE') {
        // Past the cap of an account's template: the cap would have refused it.
        expect(html.contentHtml.length).toBeGreaterThan(OUTPUT_LIMIT);
        expect(html.contentHtml).toContain('500 &amp;&lt;&gt;');
      }
    }
    const invoiceLayout = SYSTEM_TEMPLATES.find((s) => s.systemKey === 'INVOICE')!;
    expect(() => renderIn(invoiceLayout, context, 500)).toThrow(
      expect.objectContaining({ code: 'template_invalid' }),
    );

    // The same layout as a template of the account's own: capped, and tried on every draft.
    const own = await created('/v1/document-templates', {
      name: 'Meine Rechnung',
      documentType: 'INVOICE',
      contentSource: invoiceLayout.contentSource,
      footerSource: invoiceLayout.footerSource,
      status: 'PUBLISHED',
    });
    const refused = await send('POST', '/v1/documents', { ...body, templateId: own.id });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'template_invalid',
      problems: [expect.objectContaining({ code: 'limit_exceeded' })],
    });
    const small = await created('/v1/documents', {
      ...body,
      templateId: own.id,
      lineItems: lineItems.slice(0, 3),
    });
    const grown = await send('PUT', `/v1/documents/${small.id}`, {
      version: small.version,
      lineItems,
    });
    expect(grown.statusCode, grown.body).toBe(422);
    expect(grown.json()).toMatchObject({ code: 'template_invalid' });
    const kept = (await send('GET', `/v1/documents/${small.id}`)).json<Answer>();
    expect(kept.version).toBe(small.version);
  });

  it('a template of the account’s own is tried on every draft: a required field must have its value', async () => {
    const partner = await created('/v1/partners', { name: 'Kunde' });
    const tpl = await created('/v1/document-templates', {
      name: 'Mit Bestellnummer',
      documentType: 'INVOICE',
      contentSource: '<p>{{ document.name }}: {{ bestellung }}</p>',
      fields: [{ key: 'bestellung', label: 'Bestellung', type: 'text', required: true }],
      status: 'PUBLISHED',
    });
    const body = {
      documentType: 'INVOICE',
      name: 'Rechnung',
      partnerId: partner.id,
      creationDate: '2026-11-20',
      templateId: tpl.id,
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    };
    const refused = await send('POST', '/v1/documents', body);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'template_invalid',
      problems: [expect.objectContaining({ code: 'missing_required_field' })],
    });
    const draft = await created('/v1/documents', { ...body, fields: { bestellung: 'B-1' } });
    const emptied = await send('PUT', `/v1/documents/${draft.id}`, {
      version: draft.version,
      fields: {},
    });
    expect(emptied.statusCode, emptied.body).toBe(422);
    expect(emptied.json()).toMatchObject({ code: 'template_invalid' });
  });

  it('Kontor’s own letter with a field keeps the caps: its field’s value is not bounded by the API', async () => {
    const partner = await created('/v1/partners', { name: 'Kunde' });
    const notice = (await send('GET', '/v1/document-templates?systemKey=NOTICE')).json<{
      data: Answer[];
    }>().data[0]!;
    const body = {
      documentType: 'CONTRACT',
      name: 'Mitteilung',
      partnerId: partner.id,
      contractName: 'Wartung',
      creationDate: '2026-11-20',
      templateId: notice.id,
    };
    // 300,000 characters escaped to 1.5 million: past the output cap.
    const refused = await send('POST', '/v1/documents', {
      ...body,
      fields: { mitteilung: '&'.repeat(300_000) },
    });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'template_invalid',
      problems: [expect.objectContaining({ code: 'limit_exceeded' })],
    });
    await created('/v1/documents', { ...body, fields: { mitteilung: 'Neue Bankverbindung.' } });
  });

  it('odd documents render in every one of Kontor’s layouts without fields', async () => {
    // Short texts of any graphemes mostly; texts of any code points near the longest allowed
    // too (the API counts code points and refuses NUL).
    const text = (max: number) =>
      fc.oneof(
        {
          arbitrary: fc
            .string({ unit: 'grapheme', minLength: 1, maxLength: max })
            .filter((t) => [...t].length <= max),
          weight: 3,
        },
        {
          arbitrary: fc
            .string({ unit: 'binary', minLength: 1, maxLength: max, size: 'max' })
            .map((t) => t.replaceAll('\0', ' ')),
          weight: 1,
        },
      );
    const day = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2026-11-30'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const line = fc.record({
      description: text(1000),
      quantity: fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 1000),
      unitPrice: fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }).map((n) => n / 100),
      unitCode: fc.constantFrom('C62', 'HUR', 'KGM', 'LS', 'DAY'),
    });
    const termination = (await send('GET', '/v1/document-templates?systemKey=TERMINATION')).json<{
      data: Answer[];
    }>().data[0]!;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          partner: fc.record({
            name: text(200),
            language: fc.constantFrom('de', 'en'),
            street: text(200),
            country: fc.constantFrom('DE', 'AT', 'FR', 'US'),
          }),
          documentType: fc.constantFrom('INVOICE', 'QUOTE', 'ORDER_CONFIRMATION', 'CONTRACT'),
          name: text(200),
          creationDate: day,
          currency: fc.constantFrom('EUR', 'USD', 'CHF', 'GBP'),
          lineItems: fc.array(line, { maxLength: 4 }),
          paymentTerms: fc.option(text(1000), { nil: undefined }),
          // An invoice's service period (days after its first), or a contract's term.
          period: fc.option(fc.tuple(day, fc.integer({ min: 0, max: 4000 })), { nil: undefined }),
          contract: fc.record({
            name: text(200),
            totalValue: fc.integer({ min: 0, max: 100_000_000_000 }).map((n) => n / 100),
            noticePeriodDays: fc.integer({ min: 0, max: 365 }),
            autoRenew: fc.boolean(),
          }),
        }),
        async ({ partner: p, period, contract: c, ...doc }) => {
          const partner = await created('/v1/partners', {
            name: p.name,
            language: p.language,
            addresses: [
              {
                type: 'BILLING',
                street: p.street,
                postalCode: '1234',
                city: 'Ort',
                country: p.country,
              },
            ],
          });
          const { paymentTerms, ...rest } = doc;
          const [from, days] = period ?? [doc.creationDate, 0];
          const to = new Date(Date.parse(from) + days * 86_400_000).toISOString().slice(0, 10);
          // A contract document is written for a contract: its term ends a period after it starts.
          const contract =
            doc.documentType === 'CONTRACT'
              ? await created('/v1/contracts', {
                  name: c.name,
                  partnerId: partner.id,
                  partnerName: 'ignored',
                  startDate: from,
                  ...(period ? { endDate: to } : {}),
                  totalValue: c.totalValue,
                  currency: doc.currency,
                  advanced: {
                    noticePeriodDays: c.noticePeriodDays,
                    ...(period ? { autoRenew: c.autoRenew, renewalMonths: 12 } : {}),
                  },
                })
              : undefined;
          const draft = await created('/v1/documents', {
            ...rest,
            ...(doc.documentType === 'CONTRACT'
              ? { lineItems: undefined, contractId: contract!.id, templateId: termination.id }
              : { partnerId: partner.id }),
            ...(doc.documentType === 'INVOICE' && paymentTerms ? { paymentTerms } : {}),
            ...(doc.documentType === 'INVOICE' && period ? { servicePeriod: { from, to } } : {}),
          });
          const context = await contextOf(draft.id);
          for (const layout of fieldless) {
            const html = renderIn(layout, context, OWN_SOURCES);
            expect(html.contentHtml.length, layout.systemKey).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
