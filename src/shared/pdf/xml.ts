import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { TextDecoder } from 'node:util';
import { AppError } from '../../http/errors.js';

/**
 * Safe XML reading for e-invoices: size-capped, DOCTYPE refused (so no entity can expand and
 * nothing external can be referenced — fast-xml-parser does no I/O anyway), checked for
 * well-formedness first, namespace prefixes removed, every value kept as a string.
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

export function refuse(reason: string): AppError {
  return new AppError('file_unprocessable', reason);
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
  maxNestedTags: 200,
});

export interface ParsedXml {
  /** Local name of the document element. */
  rootName: string;
  /** Namespace URI of the document element ('' when it has none). */
  rootNamespace: string;
  root: XmlNode;
}

/** Parses an XML document, refusing DOCTYPEs, malformed XML and documents over `maxChars`. */
export function parseXml(text: string, maxChars: number): ParsedXml {
  if (text.length > maxChars)
    throw refuse(`The XML has ${text.length} characters; at most ${maxChars} are read.`);
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw refuse('The XML contains a DOCTYPE or entity declaration, which is not accepted.');
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw refuse(`The XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}).`);
  const rootTag = /<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s[^>]*)?)\/?>/.exec(
    text.replace(/<!--[\s\S]*?-->/g, '').replace(/<\?[\s\S]*?\?>/g, ''),
  );
  if (!rootTag) throw refuse('The XML has no document element.');
  const [qualified = '', attributes = ''] = [rootTag[1], rootTag[2]];
  const prefix = qualified.includes(':') ? qualified.split(':')[0] : undefined;
  const nsPattern =
    prefix === undefined
      ? /\sxmlns\s*=\s*(["'])(.*?)\1/
      : new RegExp(`\\sxmlns:${prefix.replace(/[.-]/g, '\\$&')}\\s*=\\s*(["'])(.*?)\\1`);
  const rootNamespace = nsPattern.exec(attributes)?.[2] ?? '';
  const rootName = qualified.includes(':')
    ? qualified.slice(qualified.indexOf(':') + 1)
    : qualified;
  const parsed = parser.parse(text) as XmlNode;
  const root = parsed[rootName];
  return { rootName, rootNamespace, root: isNode(root) ? root : {} };
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
