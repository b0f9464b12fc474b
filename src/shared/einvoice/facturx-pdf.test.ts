import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFString,
} from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { analysePdf } from '../pdf/analyse.js';
import { quietLogger } from '../pdf/pdf.test-support.js';
import { PdfRenderer } from '../pdf/renderer.js';
import { embedFacturX, type FacturXMeta } from './facturx-pdf.js';
import { canValidate, describeErrors, validateAll } from './validator.test-support.js';

const EXAMPLES = path.resolve(process.cwd(), '../shared/validation/einvoice/examples/valid');
/**
 * The examples come with the e-invoice validator beside the checkout (`../shared`); a clone
 * without it skips this file and says so, and under `CI=true` the run fails instead.
 */
const hasExamples = existsSync(EXAMPLES);
if (!hasExamples) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${EXAMPLES} is missing`);
  process.stderr.write(`Factur-X embedding tests skipped: ${EXAMPLES} is missing\n`);
}
const example = (name: string) =>
  hasExamples ? readFileSync(path.join(EXAMPLES, name), 'utf8') : '';
/** CEN's EN 16931 CII example 1 (invoice 12115118) and KoSIT's XRechnung CII (123456XX). */
const en16931Xml = example('en16931-cii-invoice.xml');
const xrechnungXml = example('xrechnung-cii-invoice.xml');

const meta: FacturXMeta = {
  title: 'Rechnung 12115118',
  author: 'Müller & Söhne <GmbH>',
  subject: 'Rechnung an Kunde AG',
  createdAt: new Date('2025-01-15T10:30:00.000Z'),
};

const hasQpdf = spawnSync('qpdf', ['--version']).status === 0;

let chromiumPdf: Buffer;
let en16931: Uint8Array;
let xrechnung: Uint8Array;

beforeAll(async () => {
  if (!hasExamples) return;
  const renderer = new PdfRenderer(loadConfig({}), quietLogger);
  try {
    ({ pdf: chromiumPdf } = await renderer.render({
      contentHtml: '<h1>Rechnung 12115118</h1><p>Größe Äpfel – 12,50 €</p>',
      footerHtml: 'Müller &amp; Söhne GmbH',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
      title: 'Rechnung 12115118',
    }));
  } finally {
    await renderer.close();
  }
  en16931 = await embedFacturX(chromiumPdf, en16931Xml, meta);
  xrechnung = await embedFacturX(chromiumPdf, xrechnungXml, { ...meta, profile: 'XRECHNUNG' });
}, 60_000);

/** A stream object (pdf-lib's typed `lookup` knows only PDFStream, not the raw class). */
function rawStream(value: unknown): PDFRawStream {
  if (!(value instanceof PDFRawStream)) throw new Error('expected a stream');
  return value;
}

function decode(stream: PDFRawStream): string {
  return Buffer.from(decodePDFRawStream(stream).decode()).toString('utf8');
}

/** The parts of a hybrid PDF the checks below look at, read back with pdf-lib. */
async function inspect(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const { catalog, context } = doc;
  const af = catalog.lookup(PDFName.of('AF'), PDFArray);
  const fileSpec = af.lookup(0, PDFDict);
  const embedded = rawStream(fileSpec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')));
  const names = catalog
    .lookup(PDFName.of('Names'), PDFDict)
    .lookup(PDFName.of('EmbeddedFiles'), PDFDict)
    .lookup(PDFName.of('Names'), PDFArray);
  const metadata = rawStream(catalog.lookup(PDFName.of('Metadata')));
  const intent = catalog.lookup(PDFName.of('OutputIntents'), PDFArray).lookup(0, PDFDict);
  const icc = rawStream(intent.lookup(PDFName.of('DestOutputProfile')));
  const info = context.lookup(context.trailerInfo.Info, PDFDict);
  const infoText = (key: string) => {
    const value = info.lookup(PDFName.of(key));
    return value instanceof PDFString || value instanceof PDFHexString
      ? value.decodeText()
      : undefined;
  };
  return {
    doc,
    fileSpec,
    embedded,
    names,
    afTarget: af.get(0),
    metadata,
    xmp: decode(metadata),
    intent,
    icc,
    infoText,
    id: context.trailerInfo.ID,
  };
}

describe.skipIf(!hasExamples)('embedFacturX', () => {
  it('starts from a Chromium PDF', () => {
    expect(chromiumPdf.toString('latin1')).toContain('/Creator (Chromium)');
  });

  it('embeds factur-x.xml as an associated file with AFRelationship Alternative', async () => {
    const pdf = await inspect(en16931);
    expect(pdf.fileSpec.get(PDFName.of('AFRelationship'))).toBe(PDFName.of('Alternative'));
    expect(pdf.fileSpec.lookup(PDFName.of('F'), PDFString).decodeText()).toBe('factur-x.xml');
    expect(pdf.fileSpec.lookup(PDFName.of('UF'), PDFHexString).decodeText()).toBe('factur-x.xml');
    expect(pdf.fileSpec.lookup(PDFName.of('Desc'), PDFString).decodeText()).toMatch(/Factur-X/);
    expect(pdf.names.lookup(0, PDFString).decodeText()).toBe('factur-x.xml');
    expect(pdf.names.get(1)).toBe(pdf.afTarget);
    const dict = pdf.embedded.dict;
    expect(dict.get(PDFName.of('Subtype'))).toBe(PDFName.of('text/xml'));
    const params = dict.lookup(PDFName.of('Params'), PDFDict);
    expect(params.lookup(PDFName.of('ModDate'), PDFString).asString()).toBe(
      "D:20250115103000+00'00'",
    );
    expect(params.lookup(PDFName.of('Size'), PDFNumber).asNumber()).toBe(
      Buffer.byteLength(en16931Xml),
    );
    expect(decode(pdf.embedded)).toBe(en16931Xml);
    // The MIME type's slash is written escaped, as a PDF name must be.
    expect(Buffer.from(en16931).toString('latin1')).toContain('/Subtype /text#2Fxml');
  });

  it('declares PDF/A-3B and Factur-X EN 16931 in uncompressed XMP that matches the Info', async () => {
    const pdf = await inspect(en16931);
    expect(pdf.metadata.dict.get(PDFName.of('Subtype'))).toBe(PDFName.of('XML'));
    expect(pdf.metadata.dict.has(PDFName.of('Filter'))).toBe(false);
    const { xmp } = pdf;
    expect(XMLValidator.validate(xmp.replace(/^\uFEFF/, ''))).toBe(true);
    expect(xmp).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain(
      '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
    );
    for (const property of ['DocumentFileName', 'DocumentType', 'Version', 'ConformanceLevel'])
      expect(xmp).toContain(`<pdfaProperty:name>${property}</pdfaProperty:name>`);
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<fx:DocumentType>INVOICE</fx:DocumentType>');
    expect(xmp).toContain('<fx:Version>1.0</fx:Version>');
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    expect(xmp).toContain('Müller &#38; Söhne &#60;GmbH&#62;');
    expect(pdf.infoText('Author')).toBe(meta.author);
    expect(pdf.infoText('Title')).toBe(meta.title);
    expect(xmp).toContain(`<rdf:li xml:lang="x-default">${meta.title}</rdf:li>`);
    expect(pdf.infoText('Subject')).toBe(meta.subject);
    expect(xmp).toContain(`<pdf:Producer>${pdf.infoText('Producer')}</pdf:Producer>`);
    expect(xmp).toContain(`<xmp:CreatorTool>${pdf.infoText('Creator')}</xmp:CreatorTool>`);
    expect(pdf.infoText('CreationDate')).toBe("D:20250115103000+00'00'");
    expect(pdf.infoText('ModDate')).toBe("D:20250115103000+00'00'");
    for (const key of ['CreateDate', 'ModifyDate', 'MetadataDate'])
      expect(xmp).toContain(`<xmp:${key}>2025-01-15T10:30:00+00:00</xmp:${key}>`);
    expect(pdf.doc.context.header.toString()).toMatch(/^%PDF-1\.7\n%\x81{4}/);
    expect(pdf.id).toBeInstanceOf(PDFArray);
  });

  it('has an sRGB output intent whose ICC profile has /N 3', async () => {
    const { intent, icc } = await inspect(en16931);
    expect(intent.get(PDFName.of('S'))).toBe(PDFName.of('GTS_PDFA1'));
    expect(intent.lookup(PDFName.of('OutputConditionIdentifier'), PDFString).asString()).toBe(
      'sRGB IEC61966-2.1',
    );
    expect(icc.dict.lookup(PDFName.of('N'), PDFNumber).asNumber()).toBe(3);
    const profile = Buffer.from(decodePDFRawStream(icc).decode());
    expect(profile.readUInt32BE(0)).toBe(profile.length);
    expect(profile.toString('latin1', 12, 24)).toBe('mntrRGB XYZ ');
    expect(profile.toString('latin1', 36, 40)).toBe('acsp');
    expect(profile.readUInt8(8)).toBe(2);
  });

  it('names the XML xrechnung.xml for the XRECHNUNG profile', async () => {
    const pdf = await inspect(xrechnung);
    expect(pdf.fileSpec.lookup(PDFName.of('F'), PDFString).decodeText()).toBe('xrechnung.xml');
    expect(pdf.names.lookup(0, PDFString).decodeText()).toBe('xrechnung.xml');
    expect(pdf.xmp).toContain('<fx:DocumentFileName>xrechnung.xml</fx:DocumentFileName>');
    expect(pdf.xmp).toContain('<fx:ConformanceLevel>XRECHNUNG</fx:ConformanceLevel>');
  });

  it("is read back by Kontor's own PDF intake", async () => {
    const analysis = await analysePdf(en16931);
    expect(analysis.eInvoiceError).toBeUndefined();
    expect(analysis.eInvoiceFile).toBe('factur-x.xml');
    expect(analysis.eInvoice?.documentNumber).toBe('12115118');
    expect(analysis.text).toContain('Rechnung 12115118');
    const other = await analysePdf(xrechnung);
    expect(other.eInvoiceFile).toBe('xrechnung.xml');
    expect(other.eInvoice?.documentNumber).toBe('123456XX');
  });

  it('gives the same bytes for the same input', async () => {
    const again = await embedFacturX(chromiumPdf, en16931Xml, { ...meta });
    expect(Buffer.from(again).equals(Buffer.from(en16931))).toBe(true);
    const later = await embedFacturX(chromiumPdf, en16931Xml, {
      ...meta,
      createdAt: new Date('2025-01-16T00:00:00Z'),
    });
    expect(Buffer.from(later).equals(Buffer.from(en16931))).toBe(false);
  });

  it('leaves out Author and Subject when they are not given', async () => {
    const bytes = await embedFacturX(chromiumPdf, en16931Xml, {
      title: 'T',
      createdAt: meta.createdAt,
    });
    const pdf = await inspect(bytes);
    expect(pdf.infoText('Author')).toBeUndefined();
    expect(pdf.infoText('Subject')).toBeUndefined();
    expect(pdf.xmp).not.toContain('dc:creator');
    expect(pdf.xmp).not.toContain('dc:description');
  });

  it('rejects an invalid date', async () => {
    await expect(
      embedFacturX(chromiumPdf, en16931Xml, { title: 'T', createdAt: new Date('x') }),
    ).rejects.toThrow(RangeError);
  });

  it.skipIf(!hasQpdf)('passes qpdf --check', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kontor-facturx-'));
    try {
      for (const [name, bytes] of [
        ['en16931.pdf', en16931],
        ['xrechnung.pdf', xrechnung],
      ] as const) {
        const file = path.join(dir, name);
        writeFileSync(file, bytes);
        const r = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
        expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
        expect(r.stdout).toContain('No syntax or stream encoding errors found');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasExamples || !canValidate())('embedFacturX against the KoSIT rules', () => {
  it('makes hybrid PDFs whose embedded invoices are VALID', () => {
    const results = validateAll([
      { name: 'facturx-en16931.pdf', bytes: Buffer.from(en16931) },
      { name: 'zugferd-xrechnung.pdf', bytes: Buffer.from(xrechnung) },
    ]);
    for (const result of results) expect(result.valid, describeErrors(result)).toBe(true);
    expect(results.map((r) => r.scenario)).toEqual([
      expect.stringMatching(/EN16931/),
      expect.stringMatching(/XRechnung/),
    ]);
  }, 60_000);
});
