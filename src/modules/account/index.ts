/** The account module's face: what the app and other modules may use. */
export {
  findAccount,
  findAccountLater,
  insertAccount,
  lockAccount,
  newAccountRow,
  setAccountPlan,
} from './account.repository.js';
export type { AccountRow } from './account.repository.js';
export { accountRoutes } from './account.routes.js';
export {
  AddressSchema,
  AddressesSchema,
  DashboardWidgetSettingsSchema,
} from './account.schemas.js';
export type { Address } from './account.schemas.js';
export { electronicAddressError, readCompany, throwFieldErrors, vatIdError } from './company.js';
export { ElectronicAddressSchema } from './company.schemas.js';
export type { Company, ElectronicAddress } from './company.schemas.js';
