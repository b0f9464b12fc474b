import { createHash } from 'node:crypto';

/**
 * The index of DATEV's document image import (XML-Schnittstelle online, "Verwaltungsdaten-
 * datei" `document.xml`, schema Document_v050): one `<document>` per invoice image, its
 * `guid` the one the booking's Beleglink names (`BEDI "<guid>"`), so DATEV links booking
 * and image after both are imported.
 */

/** Kontor's UUID namespace for document image GUIDs (fixed; changing it breaks links). */
const NAMESPACE = Buffer.from('6f1c2f0e8a5b4d7c9e3a1b2c3d4e5f60', 'hex');

/**
 * A name-based UUID (RFC 9562 version 5) of the document id: the same document answers the
 * same GUID in every export, so a re-import of a period does not duplicate its images.
 */
export function documentGuid(documentId: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(documentId).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface DocumentImage {
  guid: string;
  /** The file name inside the package. */
  fileName: string;
  /** Keywords DATEV shows and searches: the invoice number. */
  keywords: string;
}

const escapeXml = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // eslint-disable-next-line no-control-regex -- characters XML 1.0 cannot hold
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');

/**
 * `document.xml` (UTF-8): `type="2"` marks an outgoing invoice (Rechnungsausgang), as other
 * exporters write for sales invoices; `<header><date>` is the creation time in UTC.
 */
export function documentXml(createdAt: Date, images: readonly DocumentImage[]): string {
  const date = createdAt.toISOString().slice(0, 19);
  const documents = images.map(
    (image) =>
      `    <document guid="${image.guid}" type="2" processID="1">\n` +
      `      <keywords>${escapeXml(image.keywords)}</keywords>\n` +
      `      <extension xsi:type="File" name="${escapeXml(image.fileName)}"/>\n` +
      `    </document>\n`,
  );
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<archive xmlns="http://xml.datev.de/bedi/tps/document/v05.0" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xsi:schemaLocation="http://xml.datev.de/bedi/tps/document/v05.0 Document_v050.xsd" ' +
    'version="5.0" generatingSystem="Kontor">\n' +
    `  <header>\n    <date>${date}</date>\n    <description>Ausgangsrechnungen</description>\n  </header>\n` +
    `  <content>\n${documents.join('')}  </content>\n` +
    '</archive>\n'
  );
}
