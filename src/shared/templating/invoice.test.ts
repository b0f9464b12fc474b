import { describe, expect, it } from 'vitest';
import { compileTemplate } from './compile.js';
import {
  buildRenderContext,
  type AccountData,
  type CompanyData,
  type DocumentData,
  type RenderInput,
} from './context.js';
import { giroCodeRequest, INVOICE_LABELS, unitName } from './invoice.js';
import { TAX_NOTE_TEXTS } from './invoice-labels.js';

const account: AccountData = {
  name: 'Kontor GmbH',
  currency: 'EUR',
  dateFormat: 'DD.MM.YYYY',
  numberFormat: '1.234,56',
  addresses: [{ type: 'OFFICE', street: 'Alte Straße 1', postalCode: '10115', city: 'Berlin' }],
};
const company: CompanyData = {
  legalName: 'Kontor Software GmbH',
  address: { street: 'Neue Straße 2', postalCode: '20095', city: 'Hamburg', country: 'DE' },
  vatId: 'DE123456788',
  bankAccounts: [
    {
      iban: 'de02 1203 0000 0000 2020 51',
      bic: 'BYLADEM1001',
      accountHolder: null,
      bankName: null,
    },
  ],
};
const invoice: DocumentData = {
  documentType: 'INVOICE',
  invoiceType: 'INVOICE',
  documentNumber: '2026-0042',
  creationDate: '2026-05-04',
  currency: 'EUR',
  taxes: [{ rate: 19, net: 100, tax: 19, category: 'S' }],
  netTotal: 100,
  taxTotal: 19,
  grossTotal: 119,
  skontoPercent: 2,
  skontoDays: 10,
};
const today = '2026-05-04';
const context = (input: Partial<RenderInput> = {}) =>
  buildRenderContext({
    account,
    company,
    partner: { id: 'ptr_1', partnerNumber: '10001', name: 'Kunde AG', vatId: 'ATU12345678' },
    document: invoice,
    today,
    ...input,
  });
const exempt = (category: string, exemptionReason: string | null) => ({
  rate: 0,
  net: 100,
  tax: 0,
  category,
  exemptionReason,
});

describe('render context: company', () => {
  it('is the company data, with the account standing in for what is not set', () => {
    const withCompany = context().company;
    expect(withCompany).toMatchObject({
      legalName: 'Kontor Software GmbH',
      address: { street: 'Neue Straße 2', city: 'Hamburg', country: 'DE' },
      vatId: 'DE123456788',
      managingDirectors: [],
      smallBusiness: false,
    });
    expect(withCompany.bankAccounts).toEqual([
      {
        iban: 'DE02120300000000202051',
        ibanGrouped: 'DE02 1203 0000 0000 2020 51',
        bic: 'BYLADEM1001',
        accountHolder: null,
        bankName: null,
      },
    ]);
    const without = context({ company: null }).company;
    expect(without).toMatchObject({
      legalName: 'Kontor GmbH',
      address: { street: 'Alte Straße 1', city: 'Berlin' },
      vatId: null,
      bankAccounts: [],
    });
  });
});

describe('render context: invoice', () => {
  it('labels in the partner’s language, German by default', () => {
    expect(context().invoice).toMatchObject({ language: 'de', title: 'Rechnung' });
    const english = context({ partner: { name: 'Acme', language: 'en' } }).invoice!;
    expect(english).toMatchObject({ language: 'en', title: 'Invoice' });
    expect(english.labels).toBe(INVOICE_LABELS.en);
    const credit = context({ document: { ...invoice, invoiceType: 'CREDIT_NOTE' } }).invoice!;
    expect(credit).toMatchObject({
      title: 'Rechnungskorrektur',
      creditNote: true,
      cancellation: false,
      skonto: null,
    });
    const storno = (partner?: { name: string; language: string }) =>
      context({
        document: { ...invoice, invoiceType: 'CREDIT_NOTE' },
        invoice: { cancellation: true },
        ...(partner ? { partner } : {}),
      }).invoice!;
    expect(storno()).toMatchObject({
      title: 'Stornorechnung',
      creditNote: true,
      cancellation: true,
    });
    expect(storno({ name: 'Acme', language: 'en' }).title).toBe('Credit note (cancellation)');
    // Only a credit note is a Storno.
    expect(context({ invoice: { cancellation: true } }).invoice!.title).toBe('Rechnung');
    // Both languages have every label.
    expect(Object.keys(INVOICE_LABELS.en).sort()).toEqual(Object.keys(INVOICE_LABELS.de).sort());
  });

  it('never says "Gutschrift": § 14 (2) Satz 2 UStG keeps the word for self-billing', () => {
    const texts = (value: unknown): string[] =>
      typeof value === 'string'
        ? [value]
        : typeof value === 'object' && value !== null
          ? Object.values(value).flatMap(texts)
          : [];
    const german = [...texts(INVOICE_LABELS.de), ...texts(TAX_NOTE_TEXTS.de)];
    expect(german.length).toBeGreaterThan(40);
    expect(german.filter((text) => /gutschrift/i.test(text))).toEqual([]);
    expect(INVOICE_LABELS.de).toMatchObject({
      creditNote: 'Rechnungskorrektur',
      cancellation: 'Stornorechnung',
    });
  });

  it('computes the amount due and the Skonto in integer minor units, half-up', () => {
    expect(context().invoice).toMatchObject({
      customerNumber: '10001',
      paidAmount: null,
      dueAmount: 11900,
      // 2 % of 119.00 = 2.38; until 10 days after the invoice date.
      skonto: { percent: 2, days: 10, until: '2026-05-14', amount: 238, payable: 11662 },
    });
    const partly = context({
      document: { ...invoice, grossTotal: 100.01, skontoPercent: 1.5 },
      invoice: { paidAmount: 40 },
    }).invoice!;
    // 1.5 % of 100.01 = 1.50015 → 1.50; 100.01 − 40 paid = 60.01 due.
    expect(partly).toMatchObject({ paidAmount: 4000, dueAmount: 6001 });
    expect(partly.skonto).toMatchObject({ amount: 150, payable: 5851 });
    const overpaid = context({ invoice: { paidAmount: 500 } }).invoice!;
    expect(overpaid.dueAmount).toBe(0);
  });

  it('takes a final invoice’s Skonto of the remaining amount, not of the whole job', () => {
    // 1,725.00 gross less 850.84 of down payments: 874.16 remain; 2 % of it is 17.48.
    const final = context({
      document: { ...invoice, grossTotal: 1725, prepaidAmount: 850.84 },
    }).invoice!;
    expect(final.dueAmount).toBe(87416);
    expect(final.skonto).toMatchObject({ amount: 1748, payable: 85668 });
  });

  it('writes the statutory tax notes that apply, each once', () => {
    const notes = (taxes: DocumentData['taxes'], c: CompanyData = company, language = 'de') =>
      context({
        company: c,
        partner: { name: 'Kunde', vatId: 'ATU12345678', language },
        document: { ...invoice, taxes },
      }).invoice!.taxNotes;
    expect(notes([{ rate: 19, net: 1, tax: 0.19, category: 'S' }, exempt('Z', null)])).toEqual([]);
    const ids =
      'USt-IdNr. des Leistenden: DE123456788 · USt-IdNr. des Leistungsempfängers: ATU12345678';
    expect(notes([exempt('AE', 'Reverse Charge nach § 13b UStG')])).toEqual([
      'Steuerschuldnerschaft des Leistungsempfängers',
      'Reverse Charge nach § 13b UStG',
      ids,
    ]);
    // A reason that already says it is not repeated.
    expect(
      notes([exempt('AE', 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)')]),
    ).toEqual(['Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)', ids]);
    expect(notes([exempt('K', '§ 4 Nr. 1b UStG'), exempt('K', '§ 4 Nr. 1b UStG')])).toEqual([
      'Steuerfreie innergemeinschaftliche Lieferung',
      '§ 4 Nr. 1b UStG',
      ids,
    ]);
    expect(notes([exempt('K', null)], company, 'en')).toEqual([
      'Exempt intra-Community supply',
      'Supplier VAT ID: DE123456788 · Customer VAT ID: ATU12345678',
    ]);
    expect(notes([exempt('E', 'Heilbehandlung, § 4 Nr. 14 UStG'), exempt('G', null)])).toEqual([
      'Heilbehandlung, § 4 Nr. 14 UStG',
      'Steuerfreie Ausfuhrlieferung',
    ]);
    // A small business: the § 19 sentence instead of its exempt rate's reason; no VAT shown.
    const small = { ...company, smallBusiness: true };
    expect(notes([exempt('E', 'Kleinunternehmer')], small)).toEqual([
      'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.',
    ]);
    expect(context({ company: small }).invoice!.showVat).toBe(false);
  });

  it('names units in the invoice language, by quantity', () => {
    expect(unitName('HUR', 1, 'de')).toBe('Std.');
    expect(unitName('DAY', 1, 'de')).toBe('Tag');
    expect(unitName('DAY', 2.5, 'de')).toBe('Tage');
    expect(unitName('DAY', 1, 'en')).toBe('day');
    expect(unitName('C62', 3, 'de')).toBe('Stk.');
    expect(unitName('C62', 1, 'en')).toBe('pc');
    expect(unitName('XYZ', 3, 'de')).toBe('XYZ');
    expect(unitName(null, 3, 'en')).toBe('');
  });

  it('writes a foreign recipient’s country in capitals, nothing for a domestic one', () => {
    const country = (code: string, language = 'de') =>
      context({
        partner: { name: 'K', language, addresses: [{ type: 'BILLING', country: code }] },
      }).invoice!.recipientCountry;
    expect(country('DE')).toBeNull();
    expect(country('AT')).toBe('ÖSTERREICH');
    expect(country('FR', 'en')).toBe('FRANCE');
  });
});

describe('giroCodeRequest', () => {
  it('asks for a GiroCode of the amount due of a numbered EUR invoice', () => {
    expect(giroCodeRequest(context())).toEqual({
      bic: 'BYLADEM1001',
      name: 'Kontor Software GmbH',
      iban: 'DE02120300000000202051',
      amountMinor: 11900,
      currency: 'EUR',
      reference: '2026-0042',
    });
    const holder = {
      ...company,
      bankAccounts: [{ iban: 'DE02120300000000202051', accountHolder: 'Kontor Treuhand' }],
    };
    expect(giroCodeRequest(context({ company: holder }))).toMatchObject({
      name: 'Kontor Treuhand',
      bic: null,
    });
  });

  it('asks for none for a credit note, another currency, a draft, nothing due or no IBAN', () => {
    for (const input of [
      { document: { ...invoice, invoiceType: 'CREDIT_NOTE' } },
      { document: { ...invoice, currency: 'GBP' } },
      { document: { ...invoice, documentNumber: null } },
      { invoice: { paidAmount: 119 } },
      { company: { ...company, bankAccounts: [] } },
      { document: { ...invoice, documentType: 'CONTRACT', invoiceType: null } },
    ] satisfies Partial<RenderInput>[])
      expect(giroCodeRequest(context(input))).toBeNull();
  });
});

describe('placeholders of the invoice layout', () => {
  it('are all known to the unknown-placeholder check', () => {
    const source = [
      '{{ company.legalName }} {{ company.bankAccounts.first.ibanGrouped }} {{ company.managingDirectors | join: ", " }}',
      '{{ partner.vatId }} {{ partner.language }} {{ partner.electronicAddress.value }}',
      '{{ document.deliveryDate }} {{ document.servicePeriod.from }} {{ document.taxes[0].category }} {{ document.lineItems[0].unit }}',
      '{{ invoice.labels.invoiceNumber }} {{ invoice.labels.category.AE }} {{ invoice.skonto.until }} {{ invoice.giroCode }}',
      '{{ invoice.labels.nope }} {{ company.iban }}',
    ].join('');
    const result = compileTemplate({ contentSource: source }, { account, company, today });
    expect(result.problems.map((p) => p.placeholder).sort()).toEqual([
      'company.iban',
      'invoice.labels.nope',
    ]);
  });
});
