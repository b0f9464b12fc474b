import { toMajor } from '../../shared/money.js';
import { billingOf, presentBilling } from './contract-billing.js';
import { computeTerms } from './contract-terms.js';
import type { ContractRow } from './contracts.repository.js';
import type { Contract, ContractAdvanced } from './contracts.schemas.js';

/** The stored ContractAdvanced JSON, or null. */
export function advancedOf(row: Pick<ContractRow, 'advanced'>): ContractAdvanced | null {
  return row.advanced === null ? null : (JSON.parse(row.advanced) as ContractAdvanced);
}

/** The terms as answered: the schema's fields that are set, and nothing else of the stored JSON. */
function presentAdvanced(stored: ContractAdvanced | null): ContractAdvanced | null {
  if (stored === null) return null;
  const answer: ContractAdvanced = {};
  if (stored.billingCycle !== undefined) answer.billingCycle = stored.billingCycle;
  if (stored.autoRenew !== undefined) answer.autoRenew = stored.autoRenew;
  if (stored.renewalMonths !== undefined) answer.renewalMonths = stored.renewalMonths;
  if (stored.noticePeriodDays !== undefined) answer.noticePeriodDays = stored.noticePeriodDays;
  if (stored.reminderDaysBefore !== undefined)
    answer.reminderDaysBefore = stored.reminderDaysBefore;
  if (stored.reminderEmail !== undefined) answer.reminderEmail = stored.reminderEmail;
  if (stored.paymentTermDays !== undefined) answer.paymentTermDays = stored.paymentTermDays;
  return answer;
}

/**
 * Row → response, field by field, the stored JSON (terms, billing plan) too: nothing reaches
 * the client that is not listed here, so the routes write it as built (`builtAnswers`). The
 * derived dates are recomputed against `today` (the stored columns date from the last write
 * and only serve the list filter), so an auto-renewing contract's next term shows on time.
 */
export function presentContract(row: ContractRow, today: string): Contract {
  const advanced = advancedOf(row);
  const terms = computeTerms({ endDate: row.end_date, ...advanced }, today);
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
    partnerType: row.partner_type as Contract['partnerType'],
    startDate: row.start_date,
    endDate: row.end_date,
    totalValue: toMajor(Number(row.total_value), row.currency),
    currency: row.currency,
    status: row.status as Contract['status'],
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    advanced: presentAdvanced(advanced),
    billing: presentBilling(billingOf(row)),
    cancellationDeadline: terms.cancellationDeadline,
    nextRenewalDate: terms.nextRenewalDate,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
