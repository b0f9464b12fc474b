/** The payments module's face: what the app and other modules may use. */
export {
  assertDocumentCurrency,
  bodyPath,
  createPaymentRecord,
  findPayment,
  findPayments,
  findPaymentByProviderId,
  insertImportedPayments,
  markPaymentsImported,
  newPaymentRow,
  paymentSearchText,
  resolveLinks,
  updatePaymentRecord,
} from './payments.api.js';
export type { FieldPath, LinkInput, Links, PaymentRow } from './payments.api.js';
export { accountExists, accountOfPartner } from './payments.repository.js';
export { paymentRoutes } from './payments.routes.js';
export { CreatePaymentBody } from './payments.schemas.js';
export type { CreatePayment, PaymentDirection, PaymentMethod } from './payments.schemas.js';
