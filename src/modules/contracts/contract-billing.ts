import { AppError } from '../../shared/errors.js';
import { invalidField } from '../../http/field-rules.js';
import { addDays, addMonthsOnDay } from './contract-terms.js';
import type { ContractRow } from './contracts.repository.js';
import type {
  BillingInterval,
  ContractAdvanced,
  ContractBilling,
  ContractBillingWrite,
} from './contracts.schemas.js';

/**
 * A contract's billing plan (recurring invoices, issue 14): what is stored, how periods follow
 * each other, and when the plan ends. Pure functions; the run lives in `recurring-invoices`.
 */

const MONTHS: Record<BillingInterval, number> = {
  MONTHLY: 1,
  QUARTERLY: 3,
  HALF_YEARLY: 6,
  YEARLY: 12,
};

/** The plan as stored: the answer's fields plus the day of the month the dates keep. */
export interface StoredBilling extends Omit<ContractBilling, 'paymentMethod'> {
  anchorDay: number;
  /** Absent in plans stored before it existed: TRANSFER. */
  paymentMethod?: ContractBilling['paymentMethod'];
}

/** A line of the plan, as written and as answered. */
type PlanLine = ContractBilling['lineItems'][number];

export interface BillingPeriod {
  /** The invoice's date. */
  invoiceDate: string;
  /** The service period it bills (BT-73/BT-74). */
  from: string;
  to: string;
}

export function billingOf(row: Pick<ContractRow, 'billing'>): StoredBilling | null {
  return row.billing === null ? null : (JSON.parse(row.billing) as StoredBilling);
}

/** The plan as answered, field by field (the stored anchor day and nothing else left out). */
export function presentBilling(billing: StoredBilling | null): ContractBilling | null {
  if (billing === null) return null;
  return {
    interval: billing.interval,
    nextInvoiceDate: billing.nextInvoiceDate,
    endDate: billing.endDate,
    lineItems: billing.lineItems.map(presentLine),
    period: billing.period,
    autoFinalize: billing.autoFinalize,
    autoSend: billing.autoSend,
    paused: billing.paused,
    // Plans stored before the payment method existed are paid by transfer.
    paymentMethod: billing.paymentMethod ?? 'TRANSFER',
    ended: billing.ended,
  };
}

/** A stored line of the plan as written: the fields it was given, and nothing else. */
function presentLine(line: PlanLine): PlanLine {
  const answer = {} as PlanLine;
  if (line.productId !== undefined) answer.productId = line.productId;
  if (line.description !== undefined) answer.description = line.description;
  answer.quantity = line.quantity;
  if (line.unitPrice !== undefined) answer.unitPrice = line.unitPrice;
  if (line.taxRateId !== undefined) answer.taxRateId = line.taxRateId;
  if (line.unitCode !== undefined) answer.unitCode = line.unitCode;
  return answer;
}

/** The date `steps` intervals after `date`, on the plan's anchor day. */
export function shiftDate(billing: StoredBilling, date: string, steps: number): string {
  return addMonthsOnDay(date, steps * MONTHS[billing.interval], billing.anchorDay);
}

/** The period an invoice dated `invoiceDate` bills. */
export function periodOf(billing: StoredBilling, invoiceDate: string): BillingPeriod {
  const next = shiftDate(billing, invoiceDate, 1);
  if (billing.period === 'IN_ADVANCE')
    return { invoiceDate, from: invoiceDate, to: addDays(next, -1) };
  return { invoiceDate, from: shiftDate(billing, invoiceDate, -1), to: addDays(invoiceDate, -1) };
}

/**
 * The plan's next period the contract can owe, from `nextInvoiceDate` on: no service period
 * starts before the contract does. A period that ends before the contract's start is not billed
 * (an IN_ARREARS plan whose first date is the start bills the first interval one interval
 * later), and one that straddles the start bills from the start.
 */
export function duePeriod(billing: StoredBilling, contractStart: string): BillingPeriod {
  let period = periodOf(billing, billing.nextInvoiceDate);
  while (period.to < contractStart)
    period = periodOf(billing, shiftDate(billing, period.invoiceDate, 1));
  return period.from < contractStart ? { ...period, from: contractStart } : period;
}

/**
 * Whether `period` may still be billed: it starts on or before the plan's end date and, for a
 * contract that ends without renewing, on or before the contract's end.
 */
export function isBillable(
  billing: StoredBilling,
  contract: { endDate: string | null; advanced: ContractAdvanced | null },
  period: BillingPeriod,
): boolean {
  if (billing.endDate !== null && period.from > billing.endDate) return false;
  const renews = contract.advanced?.autoRenew === true;
  return renews || contract.endDate === null || period.from <= contract.endDate;
}

/** The stored columns of a plan: its JSON, and the next invoice's date while it runs. */
export function billingColumns(billing: StoredBilling | null): {
  billing: string | null;
  billing_next_date: string | null;
} {
  return {
    billing: billing === null ? null : JSON.stringify(billing),
    billing_next_date:
      billing === null || billing.paused || billing.ended ? null : billing.nextInvoiceDate,
  };
}

/**
 * The plan as written by POST/PUT, checked and with defaults: 400 on a date that is not a
 * real calendar date, 422 on `autoSend` without `autoFinalize` or an end before the next
 * invoice. A plan that had ended starts again when it is written.
 */
export function normaliseBilling(input: ContractBillingWrite | null): StoredBilling | null {
  if (input === null) return null;
  const base = '/body/billing';
  assertRealDate(input.nextInvoiceDate, `${base}/nextInvoiceDate`);
  if (input.endDate) assertRealDate(input.endDate, `${base}/endDate`);
  const autoFinalize = input.autoFinalize ?? false;
  const autoSend = input.autoSend ?? false;
  if (autoSend && !autoFinalize)
    throw rule(
      `${base}/autoSend`,
      'needs autoFinalize: only a FINAL invoice is sent',
      'needs_auto_finalize',
    );
  const endDate = input.endDate ?? null;
  if (endDate !== null && endDate < input.nextInvoiceDate)
    throw rule(`${base}/endDate`, 'must be on or after nextInvoiceDate', 'invalid_value');
  return {
    interval: input.interval,
    nextInvoiceDate: input.nextInvoiceDate,
    endDate,
    lineItems: input.lineItems,
    period: input.period ?? 'IN_ADVANCE',
    autoFinalize,
    autoSend,
    paused: input.paused ?? false,
    paymentMethod: input.paymentMethod ?? 'TRANSFER',
    ended: false,
    anchorDay: Number(input.nextInvoiceDate.slice(8, 10)),
  };
}

function assertRealDate(value: string, path: string): void {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
    throw invalidField(path, 'must be a real calendar date, expected YYYY-MM-DD', 'invalid_format');
}

function rule(path: string, message: string, code: string): AppError {
  return new AppError('business_rule_violated', `billing: ${path.split('/').pop()} ${message}.`, {
    errors: [{ path, message, code }],
  });
}
