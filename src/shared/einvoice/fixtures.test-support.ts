import type {
  Buyer,
  EnInvoice,
  InvoiceLine,
  PaymentInstructions,
  Seller,
  VatBreakdown,
  VatCategory,
} from './model.js';

/**
 * Test invoices in the EN 16931 model (test-only): a German seller and a German public buyer,
 * and a builder that derives line nets, the VAT breakdown and the totals from the lines the
 * way Kontor's invoicing does, so every fixture is arithmetically consistent (BR-CO-10…16).
 */

/** Muster Software GmbH, Berlin: VAT id, tax number, HRB, EM address, contact. */
export const SELLER: Seller = {
  name: 'Muster Software GmbH',
  legalRegistrationId: 'HRB 12345',
  vatId: 'DE123456789',
  taxNumber: '30/123/45678',
  legalInfo: 'Amtsgericht Charlottenburg, HRB 12345; Geschäftsführerin: Erika Mustermann',
  electronicAddress: { scheme: 'EM', value: 'rechnung@muster-software.de' },
  address: {
    line1: 'Friedrichstraße 123',
    city: 'Berlin',
    postalCode: '10117',
    countryCode: 'DE',
  },
  contact: {
    name: 'Max Mustermann',
    phone: '+49 30 1234567',
    email: 'buchhaltung@muster-software.de',
  },
};

/** Stadtverwaltung Musterstadt, Hamburg: a public buyer with an EM address. */
export const BUYER: Buyer = {
  name: 'Stadtverwaltung Musterstadt',
  identifier: 'K-10042',
  electronicAddress: { scheme: 'EM', value: 'rechnungseingang@musterstadt.de' },
  address: {
    line1: 'Rathausmarkt 1',
    line2: 'Zentrale Rechnungsstelle',
    city: 'Hamburg',
    postalCode: '20095',
    countryCode: 'DE',
  },
  contact: { name: 'Beschaffung', email: 'beschaffung@musterstadt.de' },
};

/** The Leitweg-ID of `BUYER`, written as BT-10. */
export const LEITWEG_ID = '04011000-12345-03';

/** SEPA credit transfer to the seller's account. */
export const SEPA_PAYMENT: Omit<PaymentInstructions, 'remittanceInformation'> = {
  meansCode: '58',
  creditTransfer: {
    iban: 'DE02120300000000202051',
    accountName: 'Muster Software GmbH',
    bic: 'BYLADEM1001',
  },
};

/** One line as an invoice is written: the builder computes its net amount. */
export interface FixtureLine {
  name: string;
  /** Thousandths; negative for a discount line. */
  quantityMilli: number;
  /** Default `C62`. */
  unitCode?: string;
  priceMinor: number;
  /** Default `S`. */
  vatCategory?: VatCategory;
  /** Default 1900 for S, 0 for every other category. */
  vatRateBp?: number;
}

/** The invoice fields to override, plus the lines and what the builder cannot derive. */
export interface FixtureOptions extends Partial<
  Omit<EnInvoice, 'lines' | 'vatBreakdown' | 'totals'>
> {
  lines?: FixtureLine[];
  /** BT-120/BT-121 of the breakdown of each category that needs them (all but S and Z). */
  exemptions?: Partial<Record<VatCategory, { reason: string; code?: string }>>;
  /** BT-113. */
  paidMinor?: number;
}

/** 12.5 h × 120.00 at 19 % and 2 pieces × 39.90 at 7 %: net 1579.80, VAT 290.59, gross 1870.39. */
export const STANDARD_LINES: FixtureLine[] = [
  { name: 'Softwareentwicklung', quantityMilli: 12_500, unitCode: 'HUR', priceMinor: 12_000 },
  {
    name: 'Fachbuch „Clean Code“',
    quantityMilli: 2_000,
    unitCode: 'H87',
    priceMinor: 3_990,
    vatRateBp: 700,
  },
];

/** numerator ÷ denominator (> 0) rounded half away from zero, in integers only. */
export function divideHalfUp(numerator: number, denominator: number): number {
  const remainder = numerator % denominator;
  const quotient = (numerator - remainder) / denominator;
  return 2 * Math.abs(remainder) >= denominator ? quotient + Math.sign(numerator) : quotient;
}

function toLine(line: FixtureLine, index: number): InvoiceLine {
  const vatCategory = line.vatCategory ?? 'S';
  return {
    id: String(index + 1),
    name: line.name,
    quantityMilli: line.quantityMilli,
    unitCode: line.unitCode ?? 'C62',
    priceMinor: line.priceMinor,
    netMinor: divideHalfUp(line.quantityMilli * line.priceMinor, 1000),
    vatCategory,
    vatRateBp: line.vatRateBp ?? (vatCategory === 'S' ? 1900 : 0),
  };
}

/** One breakdown per category and rate, in order of first appearance, VAT on the summed net. */
function breakdown(lines: InvoiceLine[], exemptions: FixtureOptions['exemptions']): VatBreakdown[] {
  const groups = new Map<string, VatBreakdown>();
  for (const line of lines) {
    const key = `${line.vatCategory}/${line.vatRateBp}`;
    const group = groups.get(key);
    if (group === undefined) {
      const exemption = exemptions?.[line.vatCategory];
      groups.set(key, {
        category: line.vatCategory,
        rateBp: line.vatRateBp,
        taxableMinor: line.netMinor,
        taxMinor: 0,
        ...(exemption !== undefined && {
          exemptionReason: exemption.reason,
          ...(exemption.code !== undefined && { exemptionCode: exemption.code }),
        }),
      });
    } else group.taxableMinor += line.netMinor;
  }
  return [...groups.values()].map((g) => ({
    ...g,
    taxMinor: divideHalfUp(g.taxableMinor * g.rateBp, 10_000),
  }));
}

/**
 * An XRechnung invoice 2026-0001 from `SELLER` to `BUYER` (Leitweg-ID as BT-10, SEPA payment,
 * delivery date, order and contract reference) with `STANDARD_LINES`, each field overridable;
 * line nets, breakdown and totals are computed from the lines.
 */
export function buildEnInvoice(options: FixtureOptions = {}): EnInvoice {
  const { lines: fixtureLines, exemptions, paidMinor = 0, ...fields } = options;
  const number = fields.number ?? '2026-0001';
  const lines = (fixtureLines ?? STANDARD_LINES).map(toLine);
  const vatBreakdown = breakdown(lines, exemptions);
  const lineNetMinor = lines.reduce((sum, line) => sum + line.netMinor, 0);
  const taxMinor = vatBreakdown.reduce((sum, vat) => sum + vat.taxMinor, 0);
  return {
    specification: 'XRECHNUNG',
    number,
    issueDate: '2026-11-20',
    typeCode: '380',
    currency: 'EUR',
    dueDate: '2026-12-04',
    buyerReference: LEITWEG_ID,
    orderReference: 'BE-2026-4711',
    contractReference: 'RV-2026-17',
    paymentTerms: 'Zahlbar bis zum 04.12.2026 ohne Abzug.',
    notes: ['Vielen Dank für Ihren Auftrag.'],
    seller: SELLER,
    buyer: BUYER,
    delivery: { date: '2026-11-16' },
    payment: { ...SEPA_PAYMENT, remittanceInformation: number },
    ...fields,
    lines,
    vatBreakdown,
    totals: {
      lineNetMinor,
      taxExclusiveMinor: lineNetMinor,
      taxMinor,
      taxInclusiveMinor: lineNetMinor + taxMinor,
      paidMinor,
      payableMinor: lineNetMinor + taxMinor - paidMinor,
    },
  };
}

/** The invoice variants every serializer must get right, by name (all XRechnung). */
export function einvoiceScenarios(): { name: string; invoice: EnInvoice }[] {
  const scenarios: Record<string, FixtureOptions> = {
    standard: {},
    'service-period': {
      delivery: undefined,
      invoicingPeriod: { start: '2026-10-01', end: '2026-10-31' },
    },
    'discount-line': {
      lines: [
        ...STANDARD_LINES,
        { name: 'Rabatt Rahmenvertrag', quantityMilli: -1_000, priceMinor: 5_000 },
      ],
    },
    skonto: {
      // BR-DE-18: one line per Skonto step, each closed by a line feed.
      paymentTerms: '#SKONTO#TAGE=14#PROZENT=2.00#\n',
    },
    'small-business': {
      seller: { ...SELLER, vatId: undefined },
      lines: [
        {
          name: 'Webdesign',
          quantityMilli: 8_000,
          unitCode: 'HUR',
          priceMinor: 6_500,
          vatCategory: 'E',
        },
      ],
      exemptions: {
        E: { reason: 'Kein Ausweis von Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG' },
      },
    },
    'reverse-charge': {
      buyer: { ...BUYER, name: 'Bau und Montage GmbH', vatId: 'DE987654321' },
      lines: [
        {
          name: 'Montage Serverraum',
          quantityMilli: 24_000,
          unitCode: 'HUR',
          priceMinor: 9_500,
          vatCategory: 'AE',
        },
      ],
      exemptions: {
        AE: {
          reason: 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)',
          code: 'VATEX-EU-AE',
        },
      },
    },
    'intra-community': {
      buyer: {
        ...BUYER,
        name: 'Muster Handels GmbH',
        vatId: 'ATU12345678',
        electronicAddress: { scheme: 'EM', value: 'rechnung@muster-handel.at' },
        contact: undefined,
        address: {
          line1: 'Kärntner Straße 1',
          city: 'Wien',
          postalCode: '1010',
          countryCode: 'AT',
        },
      },
      delivery: {
        date: '2026-11-16',
        partyName: 'Muster Handels GmbH, Lager',
        address: { line1: 'Lagerstraße 5', city: 'Wien', postalCode: '1110', countryCode: 'AT' },
      },
      lines: [
        {
          name: 'Netzwerk-Switch 48 Port',
          quantityMilli: 3_000,
          unitCode: 'H87',
          priceMinor: 129_900,
          vatCategory: 'K',
        },
      ],
      exemptions: {
        K: {
          reason: 'Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1b UStG)',
          code: 'VATEX-EU-IC',
        },
      },
    },
    export: {
      buyer: {
        ...BUYER,
        name: 'Muster AG',
        electronicAddress: { scheme: 'EM', value: 'kreditoren@muster-ag.ch' },
        contact: undefined,
        address: {
          line1: 'Bahnhofstrasse 1',
          city: 'Zürich',
          postalCode: '8001',
          countryCode: 'CH',
        },
      },
      lines: [
        {
          name: 'Industrie-PC',
          quantityMilli: 2_000,
          unitCode: 'H87',
          priceMinor: 89_000,
          vatCategory: 'G',
        },
      ],
      exemptions: {
        G: { reason: 'Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1a UStG)', code: 'VATEX-EU-G' },
      },
    },
    'zero-rated': {
      lines: [
        {
          name: 'Photovoltaikmodul 430 Wp',
          quantityMilli: 10_000,
          unitCode: 'H87',
          priceMinor: 18_900,
          vatCategory: 'Z',
        },
      ],
    },
    'not-subject': {
      // BR-O-02: no VAT identifier on either side; BT-30 satisfies BR-CO-26 instead.
      seller: { ...SELLER, vatId: undefined, taxNumber: undefined },
      lines: [
        {
          name: 'Schadensersatz gemäß Vergleich vom 02.11.2026',
          quantityMilli: 1_000,
          priceMinor: 250_000,
          vatCategory: 'O',
        },
      ],
      exemptions: { O: { reason: 'Nicht steuerbarer Umsatz', code: 'VATEX-EU-O' } },
    },
    usd: { number: '2026-0002', currency: 'USD' },
    'credit-note': {
      number: 'G-2026-0001',
      typeCode: '381',
      precedingInvoice: { number: '2026-0001', issueDate: '2026-11-20' },
      notes: ['Stornorechnung zur Rechnung 2026-0001.'],
      dueDate: undefined,
      paymentTerms: 'Der Betrag wird Ihrem Konto gutgeschrieben.',
    },
    'partial-credit-note': {
      number: 'G-2026-0002',
      typeCode: '381',
      precedingInvoice: { number: '2026-0001', issueDate: '2026-11-20' },
      notes: ['Rechnungskorrektur zur Rechnung 2026-0001: ein Buch zurückgegeben.'],
      paymentTerms: 'Der Betrag wird Ihrem Konto gutgeschrieben.',
      lines: [STANDARD_LINES[1]!].map((line) => ({ ...line, quantityMilli: 1_000 })),
    },
    prepaid: { number: '2026-0003', paidMinor: 50_000 },
  };
  return Object.entries(scenarios).map(([name, options]) => ({
    name,
    invoice: buildEnInvoice(options),
  }));
}
