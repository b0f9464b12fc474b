/**
 * The e-invoice module's one face: reading incoming EN 16931 invoices (CII, UBL, ZUGFeRD,
 * Factur-X, XRechnung), the typed EN 16931 model, and its two serializers for Kontor's own
 * invoices: `toCii` (XRechnung CII, and the `factur-x.xml` of a ZUGFeRD EN 16931 PDF) and
 * `toUbl` (XRechnung UBL Invoice/CreditNote).
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
export { toCii } from './cii.js';
export { toUbl } from './ubl.js';
