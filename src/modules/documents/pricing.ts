import type { Executor } from '../../db/records.js';
import { AppError, referenceNotFound, type FieldError } from '../../shared/errors.js';
import { minorDigits, toMinor } from '../../shared/money.js';
import { unitCodeOf } from '../../shared/units.js';
import type { Later } from '../../db/transactions.js';
import { findProductLater, type ProductRow } from '../products/index.js';
import {
  findDefaultTaxRate,
  findDefaultTaxRateLater,
  findTaxRate,
  findTaxRateLater,
} from '../tax-rates/index.js';
import type { StoredLine, StoredTaxLine } from './documents.repository.js';
import type { CreateDocument } from './documents.schemas.js';
import { computeTotals, scaled } from './totals.js';

type LineInput = NonNullable<CreateDocument['lineItems']>[number];

export interface Priced {
  lines: StoredLine[];
  taxes: StoredTaxLine[];
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
}

const bad = (path: string, message: string, code: string): FieldError => ({ path, message, code });

/**
 * Invoice lines → stored lines and totals (decisions §9). A line's product fills what the line
 * omits: description, unit price (only when the product is priced in the document currency),
 * tax rate and unit (its `unit` read as a UN/ECE Rec. 20 code); the account's default rate
 * and C62 (one) are the last fallbacks.
 */
export async function priceLines(
  db: Executor,
  accountId: string,
  currency: string,
  inputs: LineInput[],
): Promise<Priced> {
  return (await startPricing(db, db, accountId, inputs))(currency);
}

/**
 * `priceLines` in two steps: the reads its lines need (their products, the tax rates they name,
 * the account's default rate) started on `ahead` now (`deferFirst`; with `readAhead` in one round
 * trip with a write's other reads), the pricing when the answered function is called. A rate
 * only a product names is read then, through `db`.
 */
export async function startPricing(
  ahead: Executor,
  db: Executor,
  accountId: string,
  inputs: LineInput[],
): Promise<(currency: string) => Promise<Priced>> {
  const products = new Map<string, Later<ProductRow | undefined>>();
  const named = new Map<string, Later<Rate | undefined>>();
  for (const input of inputs) {
    const { productId, taxRateId } = input;
    if (productId !== undefined && !products.has(productId))
      products.set(productId, await findProductLater(ahead, accountId, productId));
    if (taxRateId !== undefined && !named.has(taxRateId))
      named.set(taxRateId, await findTaxRateLater(ahead, accountId, taxRateId));
  }
  // Any line without its own rate may fall back on the default.
  const fallback = inputs.some((input) => input.taxRateId === undefined)
    ? await findDefaultTaxRateLater(ahead, accountId)
    : undefined;
  return (currency) =>
    pricedLines(currency, inputs, {
      product: (id) => products.get(id)!(),
      rate: (id) => named.get(id)?.() ?? findTaxRate(db, accountId, id),
      defaultRate: () => (fallback ? fallback() : findDefaultTaxRate(db, accountId)),
    });
}

/** Where `pricedLines` gets the rows its lines name. */
interface PricingReads {
  product(id: string): Promise<ProductRow | undefined>;
  rate(id: string): Promise<Rate | undefined>;
  defaultRate(): Promise<Rate | undefined>;
}

async function pricedLines(
  currency: string,
  inputs: LineInput[],
  reads: PricingReads,
): Promise<Priced> {
  const lines: StoredLine[] = [];
  const rates = new Map<string, Rate>();
  const rateOf = taxRates(reads);
  for (const [i, input] of inputs.entries()) {
    const at = `/body/lineItems/${i}`;
    const product = input.productId ? await reads.product(input.productId) : undefined;
    if (input.productId && !product) throw referenceNotFound(`lineItems/${i}/productId`, 'Product');
    const quantityMilli = scaled(input.quantity, 3);
    if (quantityMilli === undefined || quantityMilli <= 0)
      throw new AppError('validation_failed', `lineItems/${i}/quantity has more than 3 decimals.`, {
        errors: [bad(`${at}/quantity`, 'must have at most 3 decimals', 'too_many_decimals')],
      });
    const unitPriceMinor = unitPrice(input, product, currency, i);
    const description = input.description ?? product?.name;
    if (description === undefined)
      throw new AppError('validation_failed', `lineItems/${i} needs description or productId.`, {
        errors: [bad(`${at}/description`, 'is required without productId', 'required')],
      });
    const rate = await rateOf(input.taxRateId ?? product?.tax_rate_id ?? undefined, i);
    rates.set(rate.id, rate);
    lines.push({
      productId: product?.id ?? null,
      description,
      quantityMilli,
      unitPriceMinor,
      taxRateId: rate.id,
      rateBp: Number(rate.rate_bp),
      netMinor: 0,
      taxCategory: rate.category,
      unitCode: input.unitCode ?? unitCodeOf(product?.unit) ?? 'C62',
    });
  }
  const totals = computeTotals(lines);
  lines.forEach((l, i) => (l.netMinor = totals.lineNets[i]!));
  for (const [k, v] of Object.entries({ net: totals.netMinor, gross: totals.grossMinor }))
    if (!Number.isSafeInteger(v))
      throw new AppError('business_rule_violated', `The ${k} total is too large.`, {
        errors: [bad('/body/lineItems', 'the totals are too large', 'too_large')],
      });
  return {
    lines,
    taxes: totals.byRate.map((r) => {
      const rate = rates.get(r.taxRateId);
      return {
        taxRateId: r.taxRateId,
        rateBp: r.rateBp,
        netMinor: r.netMinor,
        taxMinor: r.taxMinor,
        category: rate?.category ?? 'S',
        exemptionReason: rate?.exemption_reason ?? null,
        exemptionCode: rate?.exemption_code ?? null,
      };
    }),
    netMinor: totals.netMinor,
    taxMinor: totals.taxMinor,
    grossMinor: totals.grossMinor,
  };
}

type Rate = {
  id: string;
  rate_bp: number;
  category: string;
  exemption_reason: string | null;
  exemption_code: string | null;
};

/**
 * A line's tax rate: the one it (or its product) names, else the account's default, read once
 * per pricing. 422 when the named rate does not exist or there is no default.
 */
function taxRates(reads: PricingReads) {
  let defaultRate: Rate | null | undefined;
  return async (rateId: string | undefined, i: number): Promise<Rate> => {
    if (rateId !== undefined) {
      const rate = await reads.rate(rateId);
      if (!rate) throw referenceNotFound(`lineItems/${i}/taxRateId`, 'Tax rate');
      return rate;
    }
    if (defaultRate === undefined) defaultRate = (await reads.defaultRate()) ?? null;
    if (!defaultRate)
      throw new AppError('business_rule_violated', 'The account has no default tax rate.', {
        errors: [
          bad(
            `/body/lineItems/${i}/taxRateId`,
            'is required: the account has no default tax rate',
            'required',
          ),
        ],
      });
    return defaultRate;
  };
}

/**
 * A line's unit price in minor units: the one given (at most the currency's decimals), else
 * the product's (when it is priced in the document's currency). 4xx naming the field otherwise.
 */
function unitPrice(
  input: LineInput,
  product: { id: string; currency: string; unit_price: number | string } | undefined,
  currency: string,
  i: number,
): number {
  const at = `/body/lineItems/${i}`;
  if (input.unitPrice !== undefined) {
    const minor = toMinor(input.unitPrice, currency);
    if (minor !== undefined) return minor;
    const digits = minorDigits(currency);
    throw new AppError(
      'validation_failed',
      `lineItems/${i}/unitPrice has more decimals than ${currency} allows (${digits}).`,
      {
        errors: [
          bad(`${at}/unitPrice`, `must have at most ${digits} decimals`, 'too_many_decimals'),
        ],
      },
    );
  }
  if (!product)
    throw new AppError('validation_failed', `lineItems/${i} needs unitPrice or productId.`, {
      errors: [bad(`${at}/unitPrice`, 'is required without productId', 'required')],
    });
  if (product.currency !== currency)
    throw new AppError(
      'business_rule_violated',
      `Product ${product.id} is priced in ${product.currency}, the document in ${currency}: give unitPrice.`,
      {
        errors: [
          bad(
            `${at}/unitPrice`,
            `is required: the product is priced in ${product.currency}`,
            'currency_mismatch',
          ),
        ],
      },
    );
  return Number(product.unit_price);
}

/** Stored lines back to inputs (in major units of `currency`), to price them again. */
export function linesAsInputs(lines: StoredLine[], currency: string): LineInput[] {
  const digits = minorDigits(currency);
  return lines.map((l) => ({
    ...(l.productId ? { productId: l.productId } : {}),
    description: l.description,
    quantity: l.quantityMilli / 1000,
    unitPrice: l.unitPriceMinor / 10 ** digits,
    taxRateId: l.taxRateId,
    ...(l.unitCode ? { unitCode: l.unitCode } : {}),
  }));
}
