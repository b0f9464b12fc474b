/** The billing module's face: what the app and other modules may use. */
export { billingRoutes } from './billing.routes.js';
export { BankAccountSchema, CardSchema } from './billing.schemas.js';
