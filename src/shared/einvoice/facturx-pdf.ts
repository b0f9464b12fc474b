import { createHash } from 'node:crypto';
import {
  ParseSpeeds,
  PDFDict,
  PDFDocument,
  PDFHeader,
  PDFHexString,
  PDFName,
  PDFRef,
  PDFString,
} from 'pdf-lib';

/**
 * ZUGFeRD 2.3 / Factur-X 1.07 hybrid invoices: a rendered PDF plus its CII XML, written as
 * PDF/A-3B as far as it can be done without a PDF/A validator (see embedFacturX).
 */

/** Factur-X/ZUGFeRD profile, as written to the XMP `fx:ConformanceLevel`. */
export type FacturXProfile = 'EN 16931' | 'XRECHNUNG';

/** Document metadata; the Info dictionary and the XMP packet both carry it. */
export interface FacturXMeta {
  title: string;
  author?: string;
  subject?: string;
  /** Creation, modification and metadata date of the hybrid PDF (seconds precision). */
  createdAt: Date;
  /** Default `EN 16931`. */
  profile?: FacturXProfile;
  /** Default `INVOICE` (the only Factur-X document type of the `invoice:1p0` schema). */
  documentType?: 'INVOICE';
}

const PRODUCER = 'Kontor (pdf-lib)';
const CREATOR = 'Kontor';
const FX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
const SRGB = 'sRGB IEC61966-2.1';

/**
 * Returns `pdf` as a Factur-X/ZUGFeRD hybrid: `xml` embedded as `factur-x.xml` (profile
 * XRECHNUNG: `xrechnung.xml`, as Factur-X 1.07 prescribes) with AFRelationship Alternative
 * and referenced from the catalog's `/AF`; XMP metadata declaring PDF/A-3B and the Factur-X
 * extension schema; an sRGB output intent; Info consistent with the XMP; a trailer `/ID`.
 * Embedded files of the input are replaced. Deterministic: the same arguments give the
 * same bytes, since every date comes from `meta.createdAt` and the `/ID` from a hash.
 */
export async function embedFacturX(
  pdf: Uint8Array,
  xml: string,
  meta: FacturXMeta,
): Promise<Uint8Array> {
  if (Number.isNaN(meta.createdAt.getTime())) throw new RangeError('createdAt is not a date');
  const profile = meta.profile ?? 'EN 16931';
  const documentType = meta.documentType ?? 'INVOICE';
  const fileName = profile === 'XRECHNUNG' ? 'xrechnung.xml' : 'factur-x.xml';
  const xmlBytes = new TextEncoder().encode(xml);
  // updateMetadata: false keeps pdf-lib from stamping its own Producer and the current time.
  // Parsed and written in one go: pdf-lib otherwise yields to the event loop every 50/100
  // objects, which tripled the time of a one-page invoice under load (a few ms of CPU).
  const doc = await PDFDocument.load(pdf, {
    updateMetadata: false,
    parseSpeed: ParseSpeeds.Fastest,
  });
  const { context } = doc;
  // Associated files (/AF) are a PDF 2.0 feature that PDF/A-3 adopts on top of PDF 1.7.
  context.header = PDFHeader.forVersion(1, 7);
  const date = PDFString.of(pdfDate(meta.createdAt));

  attachInvoice(doc, fileName, xmlBytes, date, profile);
  declarePdfA(doc, xmpPacket({ ...meta, profile, documentType, fileName }));
  replaceInfo(doc, meta, date);

  const id = createHash('sha256')
    .update(pdf)
    .update(xmlBytes)
    .update(JSON.stringify([meta.title, meta.author, meta.subject, date.asString(), profile]))
    .digest('hex')
    .slice(0, 32);
  context.trailerInfo.ID = context.obj([PDFHexString.of(id), PDFHexString.of(id)]);

  // A classic cross-reference table: the trailer (with /ID) stays plain text for any reader.
  return doc.save({
    useObjectStreams: false,
    objectsPerTick: Infinity,
    addDefaultPage: false,
    updateFieldAppearances: false,
  });
}

/** The XML as an associated file (`/AF`, AFRelationship Alternative) and an embedded file. */
function attachInvoice(
  doc: PDFDocument,
  fileName: string,
  xmlBytes: Uint8Array,
  date: PDFString,
  profile: string,
): void {
  const { context, catalog } = doc;
  const embeddedFile = context.register(
    context.flateStream(xmlBytes, {
      Type: 'EmbeddedFile',
      Subtype: 'text/xml',
      Params: {
        ModDate: date,
        Size: xmlBytes.length,
        CheckSum: PDFHexString.of(createHash('md5').update(xmlBytes).digest('hex')),
      },
    }),
  );
  const fileSpec = context.register(
    context.obj({
      Type: 'Filespec',
      F: PDFString.of(fileName),
      UF: PDFHexString.fromText(fileName),
      Desc: PDFString.of(`${profile === 'XRECHNUNG' ? 'XRechnung' : 'Factur-X'} invoice (CII)`),
      AFRelationship: 'Alternative',
      EF: { F: embeddedFile, UF: embeddedFile },
    }),
  );
  catalog.set(PDFName.of('AF'), context.obj([fileSpec]));
  const embeddedFiles = context.obj({ Names: [PDFString.of(fileName), fileSpec] });
  const names = catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  if (names) names.set(PDFName.of('EmbeddedFiles'), embeddedFiles);
  else catalog.set(PDFName.of('Names'), context.obj({ EmbeddedFiles: embeddedFiles }));
}

/** PDF/A-3B: the XMP metadata stream and an sRGB output intent. */
function declarePdfA(doc: PDFDocument, xmp: string): void {
  const { context, catalog } = doc;
  catalog.set(
    PDFName.of('Metadata'),
    // PDF/A forbids filters on the metadata stream: it must stay readable without a PDF parser.
    context.register(
      context.stream(new TextEncoder().encode(xmp), { Type: 'Metadata', Subtype: 'XML' }),
    ),
  );
  const iccProfile = context.register(context.flateStream(srgbProfile(), { N: 3 }));
  catalog.set(
    PDFName.of('OutputIntents'),
    context.obj([
      {
        Type: 'OutputIntent',
        S: 'GTS_PDFA1',
        OutputConditionIdentifier: PDFString.of(SRGB),
        RegistryName: PDFString.of('http://www.color.org'),
        Info: PDFString.of(SRGB),
        DestOutputProfile: iccProfile,
      },
    ]),
  );
}

/** PDF/A requires every Info entry to match its XMP twin, so Chromium's entries go. */
function replaceInfo(doc: PDFDocument, meta: FacturXMeta, date: PDFString): void {
  const { context } = doc;
  const info = context.obj({
    Title: PDFHexString.fromText(meta.title),
    ...(meta.author !== undefined && { Author: PDFHexString.fromText(meta.author) }),
    ...(meta.subject !== undefined && { Subject: PDFHexString.fromText(meta.subject) }),
    Creator: PDFString.of(CREATOR),
    Producer: PDFString.of(PRODUCER),
    CreationDate: date,
    ModDate: date,
  });
  const infoRef = context.trailerInfo.Info;
  if (infoRef instanceof PDFRef) context.assign(infoRef, info);
  else context.trailerInfo.Info = context.register(info);
}

/** `D:YYYYMMDDHHmmSS+00'00'` in UTC. */
function pdfDate(date: Date): string {
  return `D:${isoSeconds(date).replace(/[-:T]/g, '')}+00'00'`;
}

/** `YYYY-MM-DDTHH:mm:ss` in UTC. */
function isoSeconds(date: Date): string {
  return date.toISOString().slice(0, 19);
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface XmpValues extends FacturXMeta {
  profile: FacturXProfile;
  documentType: 'INVOICE';
  fileName: string;
}

/** The Factur-X properties, for the PDF/A extension schema that PDF/A requires for `fx:`. */
const FX_PROPERTIES: [name: string, description: string][] = [
  ['DocumentFileName', 'File name of the embedded invoice XML'],
  ['DocumentType', 'Type of the embedded document: INVOICE'],
  ['Version', 'Version of the Factur-X XML schema'],
  ['ConformanceLevel', 'Factur-X profile the embedded XML conforms to'],
];

function xmpPacket(v: XmpValues): string {
  const date = `${isoSeconds(v.createdAt)}+00:00`;
  const alt = (text: string) =>
    `<rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(text)}</rdf:li></rdf:Alt>`;
  const properties = FX_PROPERTIES.map(
    ([name, description]) => `
     <rdf:li rdf:parseType="Resource">
      <pdfaProperty:name>${name}</pdfaProperty:name>
      <pdfaProperty:valueType>Text</pdfaProperty:valueType>
      <pdfaProperty:category>external</pdfaProperty:category>
      <pdfaProperty:description>${description}</pdfaProperty:description>
     </rdf:li>`,
  ).join('');
  // The byte-order mark in `begin` is what the XMP spec asks for; PDF/A forbids the
  // `bytes` and `encoding` attributes, so the packet header carries nothing else.
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
   <pdfaid:part>3</pdfaid:part>
   <pdfaid:conformance>B</pdfaid:conformance>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
   <dc:format>application/pdf</dc:format>
   <dc:title>${alt(v.title)}</dc:title>${
     v.author === undefined
       ? ''
       : `
   <dc:creator><rdf:Seq><rdf:li>${escapeXml(v.author)}</rdf:li></rdf:Seq></dc:creator>`
   }${
     v.subject === undefined
       ? ''
       : `
   <dc:description>${alt(v.subject)}</dc:description>`
   }
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
   <xmp:CreatorTool>${CREATOR}</xmp:CreatorTool>
   <xmp:CreateDate>${date}</xmp:CreateDate>
   <xmp:ModifyDate>${date}</xmp:ModifyDate>
   <xmp:MetadataDate>${date}</xmp:MetadataDate>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
   <pdf:Producer>${PRODUCER}</pdf:Producer>
  </rdf:Description>
  <rdf:Description rdf:about=""
    xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
    xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"
    xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
   <pdfaExtension:schemas>
    <rdf:Bag>
     <rdf:li rdf:parseType="Resource">
      <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
      <pdfaSchema:namespaceURI>${FX_NAMESPACE}</pdfaSchema:namespaceURI>
      <pdfaSchema:prefix>fx</pdfaSchema:prefix>
      <pdfaSchema:property>
       <rdf:Seq>${properties}
       </rdf:Seq>
      </pdfaSchema:property>
     </rdf:li>
    </rdf:Bag>
   </pdfaExtension:schemas>
  </rdf:Description>
  <rdf:Description rdf:about="" xmlns:fx="${FX_NAMESPACE}">
   <fx:DocumentType>${v.documentType}</fx:DocumentType>
   <fx:DocumentFileName>${v.fileName}</fx:DocumentFileName>
   <fx:Version>1.0</fx:Version>
   <fx:ConformanceLevel>${v.profile}</fx:ConformanceLevel>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="r"?>`;
}

let srgbCache: Uint8Array | undefined;

/**
 * A small sRGB display profile (ICC v2, matrix/TRC, 2.6 kB). PDF/A needs an ICC profile in
 * its output intent, and no package on our registry ships one under a permissive licence,
 * so the bytes are built here from the published sRGB numbers: the primaries adapted to the
 * D50 profile connection space (Bradford), D50 white, and the IEC 61966-2-1 transfer curve
 * sampled at 1024 points (closer to sRGB than a pure 2.2 gamma). Fixed header date, no
 * profile ID (v2 has none): the same bytes on every run.
 */
function srgbProfile(): Uint8Array {
  if (srgbCache) return srgbCache;
  const trc = curve(1024, (x) => (x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
  const tags: [signature: string, data: Uint8Array][] = [
    ['desc', textDescription('sRGB IEC61966-2.1 (Kontor)')],
    ['cprt', text('No copyright, use freely')],
    ['wtpt', xyz(0.9642, 1, 0.8249)],
    ['rXYZ', xyz(0.4360747, 0.2225045, 0.0139322)],
    ['gXYZ', xyz(0.3850649, 0.7168786, 0.0971045)],
    ['bXYZ', xyz(0.1430804, 0.0606169, 0.7141733)],
    // One curve serves all three channels: ICC allows tags to share their data.
    ['rTRC', trc],
    ['gTRC', trc],
    ['bTRC', trc],
  ];
  const offsets = new Map<Uint8Array, number>();
  let size = 128 + 4 + 12 * tags.length;
  for (const [, data] of tags) {
    if (offsets.has(data)) continue;
    offsets.set(data, size);
    size += (data.length + 3) & ~3; // tag data starts on a 4-byte boundary
  }
  const { bytes, view } = block(size, 'mntr', 12);
  view.setUint32(0, size);
  view.setUint32(8, 0x02100000); // version 2.1
  ascii(bytes, 16, 'RGB XYZ ');
  [2025, 1, 1, 0, 0, 0].forEach((n, i) => view.setUint16(24 + 2 * i, n));
  ascii(bytes, 36, 'acsp');
  setXyz(view, 68, 0.9642, 1, 0.8249); // PCS illuminant D50
  view.setUint32(128, tags.length);
  tags.forEach(([signature, data], i) => {
    const offset = offsets.get(data) ?? 0;
    ascii(bytes, 132 + 12 * i, signature);
    view.setUint32(136 + 12 * i, offset);
    view.setUint32(140 + 12 * i, data.length);
    bytes.set(data, offset);
  });
  srgbCache = bytes;
  return bytes;
}

/** A zeroed byte block with an ASCII type signature at `at`. */
function block(size: number, signature: string, at = 0) {
  const bytes = new Uint8Array(size);
  ascii(bytes, at, signature);
  return { bytes, view: new DataView(bytes.buffer) };
}

function ascii(bytes: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) bytes[offset + i] = text.charCodeAt(i);
}

function setXyz(view: DataView, offset: number, x: number, y: number, z: number): void {
  [x, y, z].forEach((v, i) => view.setInt32(offset + 4 * i, Math.round(v * 65536)));
}

function xyz(x: number, y: number, z: number): Uint8Array {
  const { bytes, view } = block(20, 'XYZ ');
  setXyz(view, 8, x, y, z);
  return bytes;
}

function curve(points: number, f: (x: number) => number): Uint8Array {
  const { bytes, view } = block(12 + 2 * points, 'curv');
  view.setUint32(8, points);
  for (let i = 0; i < points; i++)
    view.setUint16(12 + 2 * i, Math.round(65535 * f(i / (points - 1))));
  return bytes;
}

/** textType: the signature, 4 reserved bytes, NUL-terminated ASCII. */
function text(value: string): Uint8Array {
  const { bytes } = block(8 + value.length + 1, 'text');
  ascii(bytes, 8, value);
  return bytes;
}

/** textDescriptionType (ICC v2): ASCII part only; empty Unicode and ScriptCode parts. */
function textDescription(value: string): Uint8Array {
  const { bytes, view } = block(12 + value.length + 1 + 4 + 4 + 2 + 1 + 67, 'desc');
  view.setUint32(8, value.length + 1);
  ascii(bytes, 12, value);
  return bytes;
}
