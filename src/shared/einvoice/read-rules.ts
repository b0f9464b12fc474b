import { minorDigits } from '../money.js';
import {
  formatMinor,
  toSafeMinor,
  type EInvoiceParty,
  type EInvoiceTotals,
} from './read-support.js';
import { refuse } from '../pdf/xml.js';

/**
 * The calculation and completeness rules an e-invoice is checked against: EN 16931's BR-CO
 * sums, the BT-131 line calculation (a warning only) and XRechnung's BR-DE requirements.
 */

export interface MonetarySummary {
  currency: string;
  /** BT-106 sum of line net amounts. */
  lineTotal?: bigint;
  /** BT-107 allowances on document level. */
  allowances?: bigint;
  /** BT-108 charges on document level. */
  charges?: bigint;
  /** BT-109. */
  net?: bigint;
  /** BT-110. */
  tax?: bigint;
  /** BT-112. */
  gross?: bigint;
  /** BT-113. */
  prepaid?: bigint;
  /** BT-114. */
  rounding?: bigint;
  /** BT-115. */
  due?: bigint;
  /** Every line, when the line rules apply (not for EXTENDED's nested lines). */
  lines?: LineAmounts[];
  /** VAT amount of every VAT category (BT-117), for BR-CO-14. */
  vatBreakdown?: bigint[];
  /** XRechnung extension BG-DEX-09: third-party payments added to the amount due (BR-DEX-09). */
  thirdParty?: bigint;
  /** MINIMUM carries no prepaid amount, so its amount due cannot be checked (BR-CO-16). */
  dueUncheckable?: boolean;
  /**
   * Whether the document declares an EN 16931-based specification (BT-24); only then do the
   * EN 16931 calculation rules apply (a plain UBL 2.1 document has its own conventions).
   */
  en16931: boolean;
  /** The CII generation: ZUGFeRD 1.0 has rules of its own (see `checkTotals`). */
  generation?: 'ZUGFeRD1' | 'D16B';
}

/** One invoice line's amounts as written (decimal strings), for the line calculation. */
export interface LineAmounts {
  /** Line number for messages (1-based). */
  index: number;
  /** BT-131 in minor units. */
  net: bigint;
  /** BT-129 invoiced quantity. */
  quantity?: string;
  /** BT-146 net price. */
  price?: string;
  /** BT-149 price base quantity (default 1). */
  basis?: string;
  /** BT-136 line allowances. */
  allowances: string[];
  /** BT-141 line charges. */
  charges: string[];
}

/** An exact fraction, for the line calculation with quantities and prices of any precision. */
interface Rational {
  n: bigint;
  d: bigint;
}

function rational(value: string, what: string): Rational {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!match || `${match[2]}${match[3] ?? ''}` === '')
    throw refuse(`The ${what} "${value}" is not a decimal number.`);
  const [, sign, whole = '', fraction = ''] = match;
  const n = BigInt(`${whole || '0'}${fraction}`);
  return { n: sign === '-' ? -n : n, d: 10n ** BigInt(fraction.length) };
}

const add = (a: Rational, b: Rational): Rational => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const mul = (a: Rational, b: Rational): Rational => ({ n: a.n * b.n, d: a.d * b.d });
const abs = (a: Rational): Rational => ({ n: a.n < 0n ? -a.n : a.n, d: a.d });
const neg = (a: Rational): Rational => ({ n: -a.n, d: a.d });
const lessOrEqual = (a: Rational, b: Rational) => a.n * b.d <= b.n * a.d;
const half = (decimals: bigint): Rational => ({ n: 1n, d: 2n * 10n ** decimals });
const decimalsOf = (value: string) => BigInt(value.split('.')[1]?.length ?? 0);

/**
 * Line net amount = quantity × net price ÷ price base quantity − allowances + charges (the
 * EN 16931 definition of BT-131). Allowed deviation: one minor unit plus what the rounding of
 * the written quantity and price can explain (11.6667 h × 60.9244 = 710.79 is fine).
 */
function checkLine(line: LineAmounts, currency: string): string | undefined {
  if (line.quantity === undefined || line.price === undefined) return undefined;
  const what = `line ${line.index}`;
  const quantity = rational(line.quantity, `quantity of ${what}`);
  const price = rational(line.price, `net price of ${what}`);
  const basis = rational(line.basis ?? '1', `price base quantity of ${what}`);
  if (basis.n === 0n) return undefined;
  const perUnit: Rational = { n: price.n * basis.d, d: price.d * basis.n };
  let expected = mul(quantity, perUnit);
  for (const a of line.allowances)
    expected = add(expected, neg(rational(a, `allowance of ${what}`)));
  for (const c of line.charges) expected = add(expected, rational(c, `charge of ${what}`));
  const net: Rational = { n: line.net, d: 10n ** BigInt(minorDigits(currency)) };
  const tolerance = add(
    add({ n: 1n, d: net.d }, mul(abs(perUnit), half(decimalsOf(line.quantity)))),
    mul(abs({ n: quantity.n * basis.d, d: quantity.d * basis.n }), half(decimalsOf(line.price))),
  );
  if (lessOrEqual(abs(add(expected, neg(net))), tolerance)) return undefined;
  const adjusted =
    line.allowances.length + line.charges.length > 0 ? ' with its allowances and charges' : '';
  return `Line ${line.index} is ${line.quantity} × ${line.price}${line.basis === undefined ? '' : ` per ${line.basis}`}${adjusted}, but its net amount is ${formatMinor(line.net, currency)} ${currency}.`;
}

/**
 * The EN 16931 calculation rules BR-CO-10, -13, -14, -15 and -16 on the document totals; a total
 * that the file omits is not checked (e.g. MINIMUM has no lines). Returns the totals.
 */
export function checkTotals(sum: MonetarySummary): {
  totals: EInvoiceTotals;
  warnings: string[];
} {
  const c = sum.currency;
  const net = sum.net;
  if (net === undefined) throw refuse('The e-invoice has no total without VAT (BT-109).');
  const gross = sum.gross;
  if (gross === undefined) throw refuse('The e-invoice has no total with VAT (BT-112).');
  const tax = sum.tax ?? 0n;
  const f = (v: bigint) => `${formatMinor(v, c)} ${c}`;
  // BT-131 = quantity × price is EN 16931's definition, not one of its validation rules:
  // a deviation is reported, never a reason to refuse an invoice whose totals add up.
  const warnings = (sum.en16931 ? (sum.lines ?? []) : [])
    .map((line) => checkLine(line, c))
    .filter((w): w is string => w !== undefined);
  const rule = (name: string, ok: boolean, detail: string) => {
    if (ok) return;
    if (sum.en16931) throw refuse(`The e-invoice totals do not add up (${name}): ${detail}.`);
    // ZUGFeRD 1.0 (2014) predates EN 16931: its own schema only defines GrandTotalAmount as
    // TaxBasisTotalAmount + TaxTotalAmount; line sums and the amount due (which 1.0
    // generators often wrote after Skonto) are reported, not refused.
    if (sum.generation === 'ZUGFeRD1') {
      if (name === 'BR-CO-15')
        throw refuse(`The ZUGFeRD 1.0 totals do not add up (GrandTotalAmount): ${detail}.`);
      warnings.push(`${name} (EN 16931, not binding for ZUGFeRD 1.0): ${detail}`);
    }
  };
  if (sum.lines !== undefined && sum.lines.length > 0 && sum.lineTotal !== undefined) {
    const lines = sum.lines.reduce((a, line) => a + line.net, 0n);
    rule(
      'BR-CO-10',
      lines === sum.lineTotal,
      `the lines sum to ${f(lines)} but the line total is ${f(sum.lineTotal)}`,
    );
  }
  if (sum.lineTotal !== undefined) {
    const expected = sum.lineTotal - (sum.allowances ?? 0n) + (sum.charges ?? 0n);
    rule(
      'BR-CO-13',
      expected === net,
      `line total − allowances + charges is ${f(expected)} but the total without VAT is ${f(net)}`,
    );
  }
  if (sum.vatBreakdown !== undefined && sum.vatBreakdown.length > 0) {
    const categories = sum.vatBreakdown.reduce((a, b) => a + b, 0n);
    rule(
      'BR-CO-14',
      categories === tax,
      `the VAT of the categories sums to ${f(categories)} but the VAT total is ${f(tax)}`,
    );
  }
  rule(
    'BR-CO-15',
    net + tax === gross,
    `${f(net)} + VAT ${f(tax)} is ${f(net + tax)} but the total with VAT is ${f(gross)}`,
  );
  const due = gross - (sum.prepaid ?? 0n) + (sum.rounding ?? 0n) + (sum.thirdParty ?? 0n);
  if (sum.due !== undefined && sum.dueUncheckable !== true)
    rule(
      'BR-CO-16',
      sum.due === due,
      `total with VAT − prepaid + rounding${sum.thirdParty === undefined ? '' : ' + third-party payments'} is ${f(due)} but the amount due is ${f(sum.due)}`,
    );
  return {
    totals: {
      netMinor: toSafeMinor(net, 'total without VAT'),
      taxMinor: toSafeMinor(tax, 'VAT total'),
      grossMinor: toSafeMinor(gross, 'total with VAT'),
      dueMinor: toSafeMinor(sum.due ?? due, 'amount due'),
    },
    warnings,
  };
}

/** What the German CIUS XRechnung adds as mandatory (its BR-DE rules). */
export interface XRechnungFacts {
  buyerReference?: string;
  sellerContact?: { name?: string; phone?: string; email?: string };
  seller: EInvoiceParty;
  buyer: EInvoiceParty;
  paymentInstructions: boolean;
}

/** BR-DE-1 to -9 and -15: refuses an XRechnung that lacks what XRechnung requires. */
export function checkXRechnung(facts: XRechnungFacts): void {
  const missing: string[] = [];
  if (!facts.paymentInstructions) missing.push('payment instructions (BR-DE-1)');
  if (facts.sellerContact === undefined) missing.push('a seller contact (BR-DE-2)');
  else {
    if (facts.sellerContact.name === undefined) missing.push('the seller contact point (BR-DE-5)');
    if (facts.sellerContact.phone === undefined)
      missing.push('the seller contact telephone number (BR-DE-6)');
    if (facts.sellerContact.email === undefined)
      missing.push('the seller contact email address (BR-DE-7)');
  }
  if (facts.seller.address?.city === undefined) missing.push('the seller city (BR-DE-3)');
  if (facts.seller.address?.postcode === undefined) missing.push('the seller post code (BR-DE-4)');
  if (facts.buyer.address?.city === undefined) missing.push('the buyer city (BR-DE-8)');
  if (facts.buyer.address?.postcode === undefined) missing.push('the buyer post code (BR-DE-9)');
  if (facts.buyerReference === undefined)
    missing.push('the buyer reference / Leitweg-ID (BR-DE-15)');
  if (missing.length > 0) throw refuse(`The XRechnung lacks ${missing.join(', ')}.`);
}
