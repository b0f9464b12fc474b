import { readCii } from './read-cii.js';
import { readUbl } from './read-ubl.js';
import type { EInvoice } from './read-support.js';
import { decodeXml, parseXml, refuse } from '../pdf/xml.js';

export type { EInvoice, EInvoiceAddress, EInvoiceParty, EInvoiceTotals } from './read-support.js';

/**
 * Reads the invoice data of an electronic invoice (EN 16931 and its German/French flavours):
 * UN/CEFACT CII (ZUGFeRD 2.x, Factur-X, XRechnung CII; also ZUGFeRD 1.0's
 * `CrossIndustryDocument`) and UBL 2.1 `Invoice`/`CreditNote` (XRechnung UBL, Peppol).
 * Amounts become integer minor units from their decimal strings; the EN 16931 sums are checked
 * so that a file whose totals do not add up is refused instead of booked.
 */

/** Largest XML read, in characters (the KoSIT test suite's largest message is ~1.3 MB). */
export const MAX_EINVOICE_CHARS = 20 * 1024 * 1024;

const NAMESPACES = {
  cii: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  zugferd1: 'urn:ferd:CrossIndustryDocument:invoice:1p0',
  ublInvoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  ublCreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
} as const;

/**
 * Parses an e-invoice XML. Anything that is not a readable CII or UBL invoice — malformed XML,
 * another root element, missing mandatory data, amounts with more decimals than the currency,
 * totals that do not add up — is refused with AppError `file_unprocessable` saying why.
 */
export function parseEInvoiceXml(xml: string | Buffer | Uint8Array): EInvoice {
  const { rootName, rootNamespace, root } = parseXml(decodeXml(xml), MAX_EINVOICE_CHARS);
  if (rootName === 'CrossIndustryInvoice' && rootNamespace === NAMESPACES.cii)
    return readCii(root, 'D16B');
  if (rootName === 'CrossIndustryDocument' && rootNamespace === NAMESPACES.zugferd1)
    return readCii(root, 'ZUGFeRD1');
  if (rootName === 'Invoice' && rootNamespace === NAMESPACES.ublInvoice)
    return readUbl(root, 'Invoice');
  if (rootName === 'CreditNote' && rootNamespace === NAMESPACES.ublCreditNote)
    return readUbl(root, 'CreditNote');
  const where = rootNamespace === '' ? 'without a namespace' : `in namespace ${rootNamespace}`;
  throw refuse(
    `The XML's root element is ${rootName} ${where}; an e-invoice is a CII CrossIndustryInvoice, a ZUGFeRD 1.0 CrossIndustryDocument or a UBL Invoice/CreditNote.`,
  );
}

/** True when the XML looks like an e-invoice (used to pick candidates among PDF attachments). */
export function looksLikeEInvoice(xml: string): boolean {
  const head = xml.slice(0, 4096);
  return (
    /<([\w.-]+:)?(CrossIndustryInvoice|CrossIndustryDocument|Invoice|CreditNote)[\s>]/.test(head) &&
    Object.values(NAMESPACES).some((ns) => head.includes(ns))
  );
}
