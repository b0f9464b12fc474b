/** The recurring-invoices module's face: what the app and the server use. */
export { recurringInvoiceRoutes, startBillingSchedule } from './recurring-invoices.routes.js';
