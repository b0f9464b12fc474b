import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { TextDecoder } from 'node:util';
import { AppError } from '../errors.js';

/**
 * Safe XML reading for e-invoices: size-capped, DOCTYPE refused (so no entity can expand and
 * nothing external can be referenced — fast-xml-parser does no I/O anyway), checked for
 * well-formedness first, namespace prefixes removed, every value kept as a string. Before
 * fast-xml-parser sees a document, one linear pass (`scanXml`) checks the `XmlLimits`, so a
 * hostile shape (80 000 attributes, 100 000 levels, a million elements) is refused in
 * milliseconds instead of being handed to a parser whose cost on such shapes is not bounded.
 */

/** A parsed element: text under `#text`, CDATA under `#cdata`, attributes under `@_name`. */
export type XmlNode = { [key: string]: unknown };

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the five predefined entities and character references in one pass. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[ref] ?? whole;
  });
}

/** The `file_unprocessable` (422) refusal every XML reader answers with, saying why. */
export function refuse(reason: string): AppError {
  return new AppError('file_unprocessable', reason);
}

/**
 * Caps every XML reader checks while it reads, so that work and memory grow linearly with the
 * input and a hostile file is refused early instead of holding the event loop (issue 11).
 */
export interface XmlLimits {
  /** Attributes on one element (namespace declarations included). */
  attributes: number;
  /** Deepest element nesting. */
  depth: number;
  /** Characters of one element's text (CDATA included) or of one attribute value. */
  textChars: number;
  /** Elements held at once (a reader that consumes and drops elements counts only the rest). */
  elements: number;
  /** Character and entity references (`&#228;`, `&amp;`) in the whole document. */
  references: number;
}

/**
 * Limits for a document read whole, as an e-invoice is. Real invoices stay far below them:
 * the KoSIT test suite nests 12 levels deep and carries at most a few attributes per element;
 * the text cap leaves room for an attachment embedded as base64 (one text node).
 */
export const XML_LIMITS: Readonly<XmlLimits> = {
  attributes: 256,
  depth: 100,
  textChars: 16 * 1024 * 1024,
  elements: 250_000,
  references: 100_000,
};

/** The refusal for a document past one of the `XmlLimits`; `detail` names the cap. */
export function xmlLimitExceeded(detail: string): AppError {
  return refuse(`The XML exceeds a reading limit: ${detail}.`);
}

/** Bytes → text by BOM or the XML declaration's encoding; invalid bytes are refused. */
export function decodeXml(input: string | Buffer | Uint8Array): string {
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let encoding = 'utf-8';
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [encoding, start] = ['utf-16le', 2];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [encoding, start] = ['utf-16be', 2];
  else {
    const head = bytes.subarray(0, 200).toString('latin1');
    const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
    if (declared !== undefined) encoding = declared.toLowerCase();
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch {
    throw refuse(`The XML declares the unsupported encoding "${encoding}".`);
  }
  try {
    return decoder.decode(bytes.subarray(start));
  } catch {
    throw refuse(`The XML is not valid ${encoding.toUpperCase()} text.`);
  }
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  // Entities are decoded by `text`/`attr` below: only the predefined five and character
  // references exist once a DOCTYPE is refused.
  processEntities: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  // `scanXml` refuses deeper documents first, with a 422; this is only a backstop.
  maxNestedTags: XML_LIMITS.depth + 1,
});

export interface ParsedXml {
  /** Local name of the document element. */
  rootName: string;
  /** Namespace URI of the document element ('' when it has none). */
  rootNamespace: string;
  root: XmlNode;
}

/**
 * Parses an XML document, refusing DOCTYPEs, malformed XML, documents over `maxChars` and
 * documents past `limits`, each with `file_unprocessable`.
 */
export function parseXml(
  text: string,
  maxChars: number,
  limits: XmlLimits = XML_LIMITS,
): ParsedXml {
  if (text.length > maxChars)
    throw refuse(`The XML has ${text.length} characters; at most ${maxChars} are read.`);
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw refuse('The XML contains a DOCTYPE or entity declaration, which is not accepted.');
  const { qualified, attributes } = scanXml(text, limits);
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw refuse(`The XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}).`);
  const colon = qualified.indexOf(':');
  const binding = colon === -1 ? 'xmlns' : `xmlns:${qualified.slice(0, colon)}`;
  let rootNamespace = '';
  for (let k = 0; k < attributes.length; k += 2)
    if (attributes[k] === binding) rootNamespace = decodeEntities(attributes[k + 1]!);
  const rootName = qualified.slice(colon + 1);
  let parsed: XmlNode;
  try {
    parsed = parser.parse(text) as XmlNode;
  } catch (error) {
    // Validated and bounded above, so this is not expected; if it happens it is the file's
    // fault and answers 422, not 500.
    throw refuse(`The XML could not be read: ${error instanceof Error ? error.message : ''}`);
  }
  const root = parsed[rootName];
  return { rootName, rootNamespace, root: isNode(root) ? root : {} };
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** How many `&` the range `text[start, end)` holds, searched as its own slice. */
function ampersands(text: string, start: number, end: number): number {
  const range = text.slice(start, end);
  let count = 0;
  for (let i = range.indexOf('&'); i !== -1; i = range.indexOf('&', i + 1)) count++;
  return count;
}

/**
 * One linear pass over the markup: every search starts where the previous one ended, except
 * those confined to one attribute value or text run. Checks `limits` and finds the document
 * element's qualified name and attributes (`name, value, …`, values raw). Syntax it cannot
 * follow is refused as not well-formed; the finer checks are left to `XMLValidator`.
 */
function scanXml(text: string, limits: XmlLimits): { qualified: string; attributes: string[] } {
  return new XmlScan(text, limits).scan();
}

/** The state of one `scanXml` pass. */
class XmlScan {
  private references = 0;
  // Text characters of each open element (CDATA included); index 0 is outside the root.
  private readonly textChars: number[] = [0];
  private elements = 0;
  private root: { qualified: string; attributes: string[] } | undefined;

  constructor(
    private readonly text: string,
    private readonly limits: XmlLimits,
  ) {}

  scan(): { qualified: string; attributes: string[] } {
    const { text } = this;
    const n = text.length;
    let pos = 0;
    while (pos < n) {
      const lt = text.indexOf('<', pos);
      const end = lt === -1 ? n : lt;
      if (end > pos) {
        this.addText(end - pos, pos);
        this.countReferences(pos, end);
      }
      if (lt === -1) break;
      pos = this.markup(lt);
    }
    if (this.root === undefined) throw refuse('The XML has no document element.');
    return this.root;
  }

  /** The markup at `lt` (a tag, comment, CDATA section or instruction); answers the index after it. */
  private markup(lt: number): number {
    const { text } = this;
    const next = text.charCodeAt(lt + 1);
    if (next === 47 /* / */) {
      const gt = text.indexOf('>', lt + 2);
      if (gt === -1) this.malformed('an end tag is not closed', lt);
      if (this.textChars.length === 1) this.malformed('an end tag without a start tag', lt);
      this.textChars.pop();
      return gt + 1;
    }
    if (next === 63 /* ? */) {
      const close = text.indexOf('?>', lt + 2);
      if (close === -1) this.malformed('a processing instruction is not closed', lt);
      return close + 2;
    }
    if (text.startsWith('!--', lt + 1)) {
      const close = text.indexOf('-->', lt + 4);
      if (close === -1) this.malformed('a comment is not closed', lt);
      return close + 3;
    }
    if (text.startsWith('![CDATA[', lt + 1)) {
      const close = text.indexOf(']]>', lt + 9);
      if (close === -1) this.malformed('a CDATA section is not closed', lt);
      this.addText(close - lt - 9, lt);
      return close + 3;
    }
    if (next === 33 /* ! */) this.malformed('a markup declaration', lt);
    return this.startTag(lt);
  }

  /** The start tag at `lt`: name, attributes, `>` or `/>`; answers the index after it. */
  private startTag(lt: number): number {
    const { text, limits } = this;
    const n = text.length;
    let i = lt + 1;
    while (i < n) {
      const code = text.charCodeAt(i);
      if (isSpace(code) || code === 62 /* > */ || code === 47 /* / */ || code === 60 /* < */) break;
      i++;
    }
    if (i === lt + 1) this.malformed('a start tag without a name', lt);
    const qualified = text.slice(lt + 1, i);
    if (++this.elements > limits.elements) this.breach(`More than ${limits.elements} elements`, lt);
    const attributes: string[] = [];
    for (;;) {
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      if (i >= n) this.malformed('a start tag is not closed', lt);
      const code = text.charCodeAt(i);
      if (code === 62 /* > */ || (code === 47 /* / */ && text.charCodeAt(i + 1) === 62)) break;
      if (attributes.length >= 2 * limits.attributes)
        this.breach(`An element with more than ${limits.attributes} attributes`, lt);
      i = this.attribute(i, attributes);
    }
    const selfClosing = text.charCodeAt(i) === 47;
    if (this.textChars.length === 1) {
      if (this.root !== undefined) this.malformed('more than one document element', lt);
      this.root = { qualified, attributes };
    }
    if (!selfClosing) {
      if (this.textChars.length > limits.depth)
        this.breach(`Elements nested deeper than ${limits.depth} levels`, lt);
      this.textChars.push(0);
    }
    return i + (selfClosing ? 2 : 1);
  }

  /** The attribute at `i` (`name = "value"`), added to `attributes`; answers the index after it. */
  private attribute(start: number, attributes: string[]): number {
    const { text, limits } = this;
    const n = text.length;
    let i = start;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 61 /* = */ || isSpace(c) || c === 62 || c === 47 || c === 60) break;
      i++;
    }
    const name = text.slice(start, i);
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (name === '' || text.charCodeAt(i) !== 61) this.malformed('an attribute without a value', i);
    i++;
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    const quote = text.charCodeAt(i);
    if (quote !== 34 && quote !== 39) this.malformed(`attribute ${name} is not quoted`, i);
    const close = text.indexOf(quote === 34 ? '"' : "'", i + 1);
    if (close === -1) this.malformed('an attribute value is not closed', i);
    if (close - i - 1 > limits.textChars)
      this.breach(`An attribute value longer than ${limits.textChars} characters`, i);
    this.countReferences(i + 1, close);
    attributes.push(name, text.slice(i + 1, close));
    return close + 1;
  }

  private countReferences(start: number, end: number): void {
    this.references += ampersands(this.text, start, end);
    if (this.references > this.limits.references)
      this.breach(`More than ${this.limits.references} character or entity references`, start);
  }

  private addText(chars: number, at: number): void {
    const total = (this.textChars[this.textChars.length - 1] ?? 0) + chars;
    if (total > this.limits.textChars)
      this.breach(`An element text longer than ${this.limits.textChars} characters`, at);
    this.textChars[this.textChars.length - 1] = total;
  }

  private malformed(what: string, at: number): never {
    throw refuse(`The XML is not well-formed: ${what} (line ${lineAt(this.text, at)}).`);
  }

  private breach(what: string, at: number): never {
    throw xmlLimitExceeded(`${what} (line ${lineAt(this.text, at)})`);
  }
}

function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** All children named `name` (0, 1 or many), as nodes or strings. */
export function all(node: XmlNode | undefined, name: string): unknown[] {
  const value = node?.[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** The first child element `name`, following a path of names. */
export function child(node: XmlNode | undefined, ...path: string[]): XmlNode | undefined {
  let current: XmlNode | undefined = node;
  for (const name of path) {
    const first = all(current, name)[0];
    if (first === undefined) return undefined;
    current = isNode(first) ? first : { '#text': first };
  }
  return current;
}

/** All child elements `name` as nodes. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return all(node, name).map((v) => (isNode(v) ? v : { '#text': v }));
}

/** Text content of a node (or of the path below it), trimmed; undefined when empty. */
export function text(node: XmlNode | undefined, ...path: string[]): string | undefined {
  const target = path.length === 0 ? node : child(node, ...path);
  if (target === undefined) return undefined;
  const raw = target['#text'];
  const cdata = target['#cdata'];
  const parts = [
    typeof raw === 'string' ? decodeEntities(raw) : '',
    ...(Array.isArray(cdata) ? cdata : [cdata]).filter((c): c is string => typeof c === 'string'),
  ];
  const joined = parts.join('').trim();
  return joined === '' ? undefined : joined;
}

/** An attribute of a node, entity-decoded. */
export function attr(node: XmlNode | undefined, name: string): string | undefined {
  const value = node?.[`@_${name}`];
  return typeof value === 'string' ? decodeEntities(value).trim() : undefined;
}
