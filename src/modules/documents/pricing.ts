import type { Executor } from '../../db/records.js';
import { AppError, referenceNotFound, type FieldError } from '../../shared/errors.js';
import { minorDigits, toMinor } from '../../shared/money.js';
import { findProduct } from '../products/index.js';
import { findDefaultTaxRate, findTaxRate } from '../tax-rates/index.js';
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
 * omits: description, unit price (only when the product is priced in the document currency)
 * and tax rate; the account's default rate is the last fallback.
 */
export async function priceLines(
  db: Executor,
  accountId: string,
  currency: string,
  inputs: LineInput[],
): Promise<Priced> {
  const lines: StoredLine[] = [];
  const digits = minorDigits(currency);
  type Rate = {
    id: string;
    rate_bp: number;
    category: string;
    exemption_reason: string | null;
    exemption_code: string | null;
  };
  const rates = new Map<string, Rate>();
  let defaultRate: Rate | null | undefined;
  for (const [i, input] of inputs.entries()) {
    const at = `/body/lineItems/${i}`;
    const product = input.productId ? await findProduct(db, accountId, input.productId) : undefined;
    if (input.productId && !product) throw referenceNotFound(`lineItems/${i}/productId`, 'Product');
    const quantityMilli = scaled(input.quantity, 3);
    if (quantityMilli === undefined || quantityMilli <= 0)
      throw new AppError('validation_failed', `lineItems/${i}/quantity has more than 3 decimals.`, {
        errors: [bad(`${at}/quantity`, 'must have at most 3 decimals', 'too_many_decimals')],
      });
    let unitPriceMinor: number;
    if (input.unitPrice !== undefined) {
      const minor = toMinor(input.unitPrice, currency);
      if (minor === undefined)
        throw new AppError(
          'validation_failed',
          `lineItems/${i}/unitPrice has more decimals than ${currency} allows (${digits}).`,
          {
            errors: [
              bad(`${at}/unitPrice`, `must have at most ${digits} decimals`, 'too_many_decimals'),
            ],
          },
        );
      unitPriceMinor = minor;
    } else if (product) {
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
      unitPriceMinor = Number(product.unit_price);
    } else
      throw new AppError('validation_failed', `lineItems/${i} needs unitPrice or productId.`, {
        errors: [bad(`${at}/unitPrice`, 'is required without productId', 'required')],
      });
    const description = input.description ?? product?.name;
    if (description === undefined)
      throw new AppError('validation_failed', `lineItems/${i} needs description or productId.`, {
        errors: [bad(`${at}/description`, 'is required without productId', 'required')],
      });
    let rate: Rate | undefined;
    const rateId = input.taxRateId ?? product?.tax_rate_id ?? undefined;
    if (rateId !== undefined) {
      rate = await findTaxRate(db, accountId, rateId);
      if (!rate) throw referenceNotFound(`lineItems/${i}/taxRateId`, 'Tax rate');
    } else {
      if (defaultRate === undefined)
        defaultRate = (await findDefaultTaxRate(db, accountId)) ?? null;
      if (!defaultRate)
        throw new AppError('business_rule_violated', 'The account has no default tax rate.', {
          errors: [
            bad(`${at}/taxRateId`, 'is required: the account has no default tax rate', 'required'),
          ],
        });
      rate = defaultRate;
    }
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
      unitCode: input.unitCode ?? 'C62',
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
