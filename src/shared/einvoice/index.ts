/**
 * The e-invoice module's one face: reading incoming EN 16931 invoices (CII, UBL, ZUGFeRD,
 * Factur-X, XRechnung) and the typed EN 16931 model Kontor's own invoices are written from.
 */
export {
  MAX_EINVOICE_CHARS,
  looksLikeEInvoice,
  parseEInvoiceXml,
  type EInvoice,
  type EInvoiceAddress,
  type EInvoiceParty,
  type EInvoiceTotals,
} from './read.js';
export * from './model.js';
