import { addDays } from '../../shared/dates.js';
import { baseRateOn, type BaseRates } from './base-rates.js';

/**
 * What a dunning letter claims, computed from plain figures (integer minor units, ISO days):
 * no database, no clock, so every rule is tested directly (docs/dunning.md).
 */

export type LetterKind = 'PAYMENT_REMINDER' | 'DUNNING';

export interface Level {
  kind: LetterKind;
  /** Level 1: days after the due date; later levels: days after the previous letter. */
  daysAfter: number;
  feeMinor: number;
  /** Whether the letter claims default interest (§288 BGB). */
  defaultInterest: boolean;
}

/** The flat fee of §288 (5) BGB: EUR 40, from businesses in default. */
export const FLAT_FEE_MINOR = 4000;
/** Points above the base rate (§288 (1), (2) BGB). */
const MARGIN = { consumer: 5, business: 9 } as const;
/** §286 (3) BGB: a business is in default 30 days after due date and receipt at the latest. */
const DEFAULT_AFTER_DAYS = 30;

export interface InvoiceFigures {
  dueDate: string;
  currency: string;
  /**
   * What the invoice still asks for: the documents module's `openMinor` (gross total less
   * settled payments and FINAL credit notes), the one definition payments and `openAmount` use.
   */
  openMinor: number;
  /** Gross total of the FINAL credit notes correcting the invoice (the letter lists it). */
  creditedMinor?: number;
  /** Level reached so far (0: none) and the as-of day of the last letter. */
  level: number;
  lastDunnedAt: string | null;
  /** As-of day of the first letter (its receipt puts the debtor in default, §286 (1) BGB). */
  firstDunnedAt: string | null;
  /** Fees claimed by earlier letters, and the flat fee the last one claimed (0: none). */
  priorFeesMinor: number;
  priorFlatFeeMinor: number;
  /** True only when the partner is known to be a business (§14 BGB); unknown: a consumer. */
  business: boolean;
}

export interface Claim {
  level: number;
  kind: LetterKind;
  /** The count of DUNNING letters up to this one (1 for the first Mahnung). */
  dunningNumber: number;
  finalNotice: boolean;
  openMinor: number;
  creditedMinor: number;
  feeMinor: number;
  priorFeesMinor: number;
  interestMinor: number;
  /** Percent per year (base rate + margin) on the as-of day; null when no interest is claimed. */
  interestRate: number | null;
  interestFrom: string | null;
  flatFeeMinor: number;
  totalMinor: number;
}

/** Days from `from` to `to` (ISO days; positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The first day of default interest, or null while the debtor is not in default. */
export function defaultStarts(f: InvoiceFigures): string | null {
  const afterLetter = f.firstDunnedAt === null ? null : addDays(f.firstDunnedAt, 1);
  const afterThirtyDays = f.business ? addDays(f.dueDate, DEFAULT_AFTER_DAYS + 1) : null;
  if (afterLetter === null) return afterThirtyDays;
  if (afterThirtyDays === null) return afterLetter;
  return afterLetter < afterThirtyDays ? afterLetter : afterThirtyDays;
}

/**
 * Default interest on `openMinor` from `from` through `to` (both included), day by day at the
 * base rate in force on each day plus the margin, on a 365-day year, rounded half up once.
 */
export function defaultInterest(
  openMinor: number,
  from: string,
  to: string,
  rates: BaseRates,
  margin: number,
): number {
  if (openMinor <= 0 || from > to) return 0;
  // Sum percent-days over stretches of one rate: the rate changes only on the table's days.
  let percentDays = 0;
  let day = from;
  while (day <= to) {
    const rate = Math.max(0, baseRateOn(rates, day) + margin);
    const nextChange = rates.find((r) => r.from > day)?.from;
    const end = nextChange !== undefined && nextChange <= to ? addDays(nextChange, -1) : to;
    percentDays += rate * (daysBetween(day, end) + 1);
    day = addDays(end, 1);
  }
  return Math.round((openMinor * percentDays) / 100 / 365);
}

/**
 * The next letter an invoice is due for on `asOf`, or undefined: nothing open, every level
 * sent, or the next one not due yet.
 */
export function nextClaim(
  f: InvoiceFigures,
  levels: readonly Level[],
  asOf: string,
  opts: { rates: BaseRates; flatFee: boolean },
): Claim | undefined {
  const creditedMinor = f.creditedMinor ?? 0;
  const openMinor = f.openMinor;
  if (openMinor <= 0 || f.level >= levels.length) return undefined;
  const level = levels[f.level]!;
  const since = f.level === 0 || f.lastDunnedAt === null ? f.dueDate : f.lastDunnedAt;
  if (daysBetween(since, asOf) < level.daysAfter) return undefined;
  // The letter itself is a Mahnung: the debtor is in default from its receipt at the latest.
  const figures = { ...f, firstDunnedAt: f.firstDunnedAt ?? asOf };
  const interestFrom = level.defaultInterest ? defaultStarts(figures) : null;
  const margin = f.business ? MARGIN.business : MARGIN.consumer;
  const interestMinor =
    interestFrom === null ? 0 : defaultInterest(openMinor, interestFrom, asOf, opts.rates, margin);
  // The letter that first puts the debtor in default is not chargeable (§286 BGB: the costs
  // of enforcement arise only once the debtor is in default).
  const wasInDefault = (defaultStarts(f) ?? '9999-12-31') <= asOf;
  const feeMinor = wasInDefault ? level.feeMinor : 0;
  const fees = f.priorFeesMinor + feeMinor;
  // §288 (5) BGB: EUR 40 from a business in default. Dunning fees are costs of enforcement
  // and count towards it, so the letter claims the flat fee as a top-up: fees and flat fee
  // together are max(EUR 40, fees). Once claimed, every later letter claims it again.
  const inDefault = (defaultStarts(figures) ?? '9999-12-31') <= asOf;
  const claimsFlat =
    opts.flatFee &&
    f.business &&
    f.currency === 'EUR' &&
    inDefault &&
    (level.kind === 'DUNNING' || f.priorFlatFeeMinor > 0);
  const flatFeeMinor = claimsFlat ? Math.max(0, FLAT_FEE_MINOR - fees) : 0;
  const dunningNumber = levels.slice(0, f.level + 1).filter((l) => l.kind === 'DUNNING').length;
  return {
    level: f.level + 1,
    kind: level.kind,
    dunningNumber,
    finalNotice: level.kind === 'DUNNING' && f.level + 1 === levels.length,
    openMinor,
    creditedMinor,
    feeMinor,
    priorFeesMinor: f.priorFeesMinor,
    interestMinor,
    interestRate:
      interestMinor === 0 ? null : Math.round((baseRateOn(opts.rates, asOf) + margin) * 100) / 100,
    interestFrom: interestMinor > 0 ? interestFrom : null,
    flatFeeMinor,
    totalMinor: openMinor + fees + interestMinor + flatFeeMinor,
  };
}
