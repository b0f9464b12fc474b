import { AppError } from '../../shared/errors.js';
import { invalidField as invalid } from '../../http/field-rules.js';
import { minorDigits, toMajor, toMinor } from '../../shared/money.js';
export { assertIsoDate, minorAmount } from '../../http/field-rules.js';
import { DEFAULT_RENEWAL_MONTHS, computeTerms } from './contract-terms.js';
import type { ContractAdvanced, ContractStatus } from './contracts.schemas.js';

/**
 * The contract rules the schema cannot express: real calendar dates, date order, amounts with
 * the currency's number of decimals, the reminder override and the DRAFT → ACTIVE transition.
 */

/** 400 on `/body/endDate` when the contract would end before it starts (decisions §6). */
export function assertDateOrder(startDate: string, endDate: string | null): void {
  if (endDate !== null && endDate < startDate)
    throw invalid('/body/endDate', 'must be on or after startDate', 'invalid_value');
}

/**
 * The stored value in a new currency, keeping the amount in major units (100.5 EUR → 100.5
 * CHF); 400 on `/body/currency` when the new currency has too few decimals for it.
 */
export function convertAmount(minor: number, from: string, to: string): number {
  if (from === to) return minor;
  const converted = toMinor(toMajor(minor, from), to);
  if (converted === undefined)
    throw invalid(
      '/body/currency',
      `cannot hold the stored totalValue ${toMajor(minor, from)} with ${minorDigits(to)} decimals; send totalValue with the new currency`,
      'too_many_decimals',
    );
  return converted;
}

/** The advanced terms as stored: `renewalMonths` is made explicit (12) when autoRenew is set. */
export function normaliseAdvanced(advanced: ContractAdvanced | null): ContractAdvanced | null {
  if (advanced === null) return null;
  if (advanced.autoRenew === true && advanced.renewalMonths === undefined)
    return { ...advanced, renewalMonths: DEFAULT_RENEWAL_MONTHS };
  return advanced;
}

/** 422 when a contract sets its own reminder address but the account does not allow it. */
export function assertReminderOverride(
  advanced: ContractAdvanced | null | undefined,
  allowed: boolean,
): void {
  if (typeof advanced?.reminderEmail === 'string' && !allowed)
    throw new AppError(
      'business_rule_violated',
      'This account does not allow contracts to override the reminder address; an admin can enable allowContractReminderOverride in the account settings.',
      {
        errors: [
          {
            path: '/body/advanced/reminderEmail',
            message: 'is not allowed: the account does not allow contract reminder overrides',
            code: 'override_not_allowed',
          },
        ],
      },
    );
}

/**
 * Whether a PUT's status is an activation (DRAFT → ACTIVE); 409 `state_conflict` for
 * ACTIVE → DRAFT, which the contract's life cycle never allows (decisions §7).
 */
export function isActivation(from: ContractStatus, to: ContractStatus | undefined): boolean {
  if (to === undefined || to === from) return false;
  if (from === 'ACTIVE')
    throw new AppError(
      'state_conflict',
      'An ACTIVE contract cannot go back to DRAFT; contracts only move from DRAFT to ACTIVE.',
    );
  return true;
}

export function cannotDeleteActive(): AppError {
  return new AppError(
    'state_conflict',
    'Only DRAFT contracts can be deleted; this contract is ACTIVE.',
  );
}

/** The derived columns as of `today`, stored at each write for the list filter. */
export function derivedColumns(
  endDate: string | null,
  advanced: ContractAdvanced | null,
  today: string,
): { cancellation_deadline: string | null; next_renewal_date: string | null } {
  const terms = computeTerms({ endDate, ...advanced }, today);
  return {
    cancellation_deadline: terms.cancellationDeadline,
    next_renewal_date: terms.nextRenewalDate,
  };
}
