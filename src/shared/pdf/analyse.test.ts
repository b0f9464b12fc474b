import { AFRelationship, PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { analysePdf } from './analyse.js';
import { ciiSample, pngDataUri, rejection } from './pdf.test-support.js';

interface BuildOptions {
  pages?: string[];
  attachments?: { name: string; bytes: Uint8Array | string; mimeType?: string }[];
  /** Factur-X XMP metadata declaring `factur-x.xml` at this conformance level. */
  xmpLevel?: string;
}

/** A PDF built with pdf-lib: Helvetica text pages, embedded files, optional Factur-X XMP. */
async function buildPdf(options: BuildOptions = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of options.pages ?? ['Rechnung RE-2025-0042', 'Seite zwei']) {
    const page = doc.addPage([595, 842]);
    page.drawText(text, { x: 50, y: 780, size: 14, font });
  }
  for (const file of options.attachments ?? [])
    await doc.attach(
      typeof file.bytes === 'string' ? Buffer.from(file.bytes) : file.bytes,
      file.name,
      {
        mimeType: file.mimeType ?? 'text/xml',
        description: `Anhang ${file.name}`,
        afRelationship: AFRelationship.Alternative,
      },
    );
  if (options.xmpLevel !== undefined) {
    const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
<fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
<fx:Version>1.0</fx:Version><fx:ConformanceLevel>${options.xmpLevel}</fx:ConformanceLevel>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  }
  return doc.save();
}

describe('analysePdf', () => {
  it('reads pages, text, attachments and the embedded Factur-X invoice', async () => {
    const xml = ciiSample();
    const pdf = await buildPdf({
      attachments: [{ name: 'factur-x.xml', bytes: xml }],
      xmpLevel: 'XRECHNUNG',
    });
    const analysis = await analysePdf(pdf);
    expect(analysis.pageCount).toBe(2);
    expect(analysis.text.split('\f')).toEqual(['Rechnung RE-2025-0042', 'Seite zwei']);
    expect(analysis.textTruncated).toBe(false);
    expect(analysis.attachments).toHaveLength(1);
    expect(analysis.attachments[0]).toMatchObject({
      name: 'factur-x.xml',
      mimeType: 'application/xml',
      description: 'Anhang factur-x.xml',
    });
    expect(analysis.attachments[0]!.bytes.toString('utf8')).toBe(xml);
    expect(analysis.eInvoiceFile).toBe('factur-x.xml');
    expect(analysis.eInvoiceError).toBeUndefined();
    expect(analysis.eInvoice).toMatchObject({
      syntax: 'CII',
      profileName: 'XRECHNUNG',
      documentNumber: 'RE-2025-0042',
      issueDate: '2025-01-15',
      seller: { name: 'Müller & Söhne GmbH', vatId: 'DE123456789' },
      totals: { netMinor: 32500, taxMinor: 5875, grossMinor: 38375, dueMinor: 38375 },
    });
  });

  it('finds an invoice XML by its content and keeps other attachments', async () => {
    const logo = Buffer.from(pngDataUri(4, 4, '#ff0000').split(',')[1]!, 'base64');
    const pdf = await buildPdf({
      attachments: [
        { name: 'notes.xml', bytes: '<notes><n>nur Notizen</n></notes>' },
        { name: 'logo.png', bytes: logo, mimeType: 'image/png' },
        { name: 'beleg.xml', bytes: ciiSample({ number: 'BY-CONTENT-1' }) },
      ],
    });
    const analysis = await analysePdf(pdf);
    expect(analysis.attachments.map((a) => [a.name, a.mimeType])).toEqual([
      ['notes.xml', 'application/xml'],
      ['logo.png', 'image/png'],
      ['beleg.xml', 'application/xml'],
    ]);
    expect(analysis.attachments[1]!.bytes.equals(logo)).toBe(true);
    expect(analysis.eInvoiceFile).toBe('beleg.xml');
    expect(analysis.eInvoice?.documentNumber).toBe('BY-CONTENT-1');
  });

  it('prefers the standard file name over other invoice XMLs', async () => {
    const pdf = await buildPdf({
      attachments: [
        { name: 'copy.xml', bytes: ciiSample({ number: 'COPY' }) },
        { name: 'ZUGFeRD-invoice.xml', bytes: ciiSample({ number: 'ZUGFERD' }) },
      ],
    });
    expect((await analysePdf(pdf)).eInvoice?.documentNumber).toBe('ZUGFERD');
  });

  it('analyses a PDF whose embedded invoice is broken and says why', async () => {
    const pdf = await buildPdf({
      attachments: [{ name: 'factur-x.xml', bytes: ciiSample({ due: '1.00' }) }],
    });
    const analysis = await analysePdf(pdf);
    expect(analysis.pageCount).toBe(2);
    expect(analysis.eInvoice).toBeUndefined();
    expect(analysis.eInvoiceFile).toBe('factur-x.xml');
    expect(analysis.eInvoiceError).toMatch(
      /^factur-x\.xml: The e-invoice totals do not add up \(BR-CO-16\)/,
    );
  });

  it('checks what the XMP metadata declares', async () => {
    const missing = await analysePdf(await buildPdf({ xmpLevel: 'EN 16931' }));
    expect(missing.eInvoiceError).toBe(
      "The PDF's XMP metadata declares the embedded e-invoice factur-x.xml, but the PDF contains no such file.",
    );
    const nonsense = await analysePdf(
      await buildPdf({
        attachments: [{ name: 'factur-x.xml', bytes: ciiSample() }],
        xmpLevel: 'no thing',
      }),
    );
    expect(nonsense.eInvoice).toBeUndefined();
    expect(nonsense.eInvoiceError).toMatch(/declares the conformance level "no thing"/);
  });

  it('reports a plain PDF without invoice and without error', async () => {
    const analysis = await analysePdf(await buildPdf());
    expect(analysis).toEqual({
      pageCount: 2,
      text: 'Rechnung RE-2025-0042\fSeite zwei',
      textTruncated: false,
      attachments: [],
      attachmentsOmitted: 0,
    });
  });

  it('caps text, attachments, pages, size and time', async () => {
    const pdf = await buildPdf({
      pages: ['a'.repeat(60), 'b'.repeat(60), 'c'.repeat(60)],
      attachments: [
        { name: 'factur-x.xml', bytes: ciiSample() },
        { name: 'big.xml', bytes: 'x'.repeat(50_000) },
      ],
    });
    const capped = await analysePdf(pdf, { maxTextChars: 70, maxAttachmentBytes: 20_000 });
    expect(capped.text).toBe(`${'a'.repeat(60)}\f${'b'.repeat(9)}`);
    expect(capped.textTruncated).toBe(true);
    expect(capped.attachments.map((a) => a.name)).toEqual(['factur-x.xml']);
    expect(capped.attachmentsOmitted).toBe(1);

    const pages = await rejection(analysePdf(pdf, { maxPages: 2 }));
    expect(pages.status).toBe(422);
    expect(pages.message).toBe('The PDF has 3 pages; at most 2 are analysed.');
    const size = await rejection(analysePdf(pdf, { maxBytes: 1000 }));
    expect(size.status).toBe(413);
    const time = await rejection(analysePdf(pdf, { timeoutMs: 1 }));
    expect(time.status).toBe(422);
    expect(time.message).toMatch(/^Analysing the PDF took longer than 1 ms/);
  });

  it('refuses what is not a readable PDF with 422', async () => {
    const pdf = await buildPdf();
    for (const bytes of [Buffer.alloc(0), Buffer.from('%PDF-1.4'), pdf.subarray(0, 300)]) {
      const error = await rejection(analysePdf(bytes));
      expect(error.code).toBe('file_unprocessable');
    }
  });
});
