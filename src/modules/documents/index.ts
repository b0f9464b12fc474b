/** The documents module's face: what the app and other modules may use. */
export {
  dunnableInvoices,
  findDocument,
  lockFinalDocument,
  openFigures,
  recordDunning,
  withPaymentFigures,
} from './documents.repository.js';
export type { DunnableInvoiceRow } from './documents.repository.js';
export { openMinor } from './documents.presenter.js';
export { documentRoutes } from './documents.routes.js';
export { createDocument, sendDocumentToPartner } from './documents.service.js';
export {
  invoiceStandings,
  recordSettlement,
  type EventContext,
  type InvoiceStanding,
} from './documents.settlement.js';
export { announceOverdue, startOverdueSchedule } from './documents.overdue.js';
export {
  decideQuote,
  expireQuotes,
  startQuoteExpirySchedule,
  type QuoteDecision,
} from './documents.quotes.js';
export type { CreateDocument, DocumentView } from './documents.schemas.js';
export {
  customerDocument,
  customerDocumentFile,
  customerDocumentXRechnung,
  type CustomerDocument,
} from './documents.customer-view.js';
