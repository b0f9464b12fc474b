/** The documents module's face: what the app and other modules may use. */
export {
  dunnableInvoices,
  findDocument,
  findInvoices,
  unpaidInvoiceIdsOfContracts,
  lockFinalDocument,
  lockForDunning,
  openFigures,
  recordDunnings,
  withPaymentFigures,
} from './documents.repository.js';
export type { DunnableInvoiceRow, LockedForDunning } from './documents.repository.js';
export { documentRoutes } from './documents.routes.js';
export { openMinor, payeeIbanOf } from './documents.presenter.js';
export { prepaidMinor } from './documents.deductions.js';
export {
  createDocument,
  insertFinalDocuments,
  prepareFinalDocuments,
  sendDocumentToPartner,
  type PreparedDocument,
} from './documents.service.js';
export {
  invoiceStandingsLater,
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
export { useDirectDebitNotices, type DirectDebitNoticeSource } from './documents.payment-notice.js';
