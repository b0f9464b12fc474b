/** The contracts module's face: what the app and other modules may use. */
export { addDays, addMonths, computeTerms } from './contract-terms.js';
export {
  billingOf,
  duePeriod,
  isBillable,
  shiftDate,
  type BillingPeriod,
  type StoredBilling,
} from './contract-billing.js';
export { advanceBilling } from './contracts.billing.js';
export { advancedOf, presentContract } from './contracts.presenter.js';
export {
  directDebitContractIds,
  dueForBilling,
  findContract,
  findContractLater,
} from './contracts.repository.js';
export type { ContractRow } from './contracts.repository.js';
export { contractRoutes } from './contracts.routes.js';
export { BILLING_CYCLES, ContractAdvancedSchema } from './contracts.schemas.js';
export type { ContractAdvanced } from './contracts.schemas.js';
