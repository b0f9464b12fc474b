/**
 * A small, strict XML reader for bank statements. fast-xml-parser reads about 7 MB/s here, so
 * a 50 000-entry camt.053 (~40 MB) took 5–6 s; this single-pass scanner builds the same
 * element tree an order of magnitude faster. It is deliberately narrow and safe:
 *
 * - no DOCTYPE, so no entity can be declared, expanded or fetched (no XXE, no billion laughs);
 *   only the five predefined entities and character references are decoded;
 * - well-formedness that matters is checked (tags nest and match, attributes are quoted, one
 *   document element, no stray text, depth-limited); violations are `XmlSyntaxError`s;
 * - namespace prefixes are removed from element names (`removeNSPrefix`), the document
 *   element's namespace URI is reported so callers can tell camt.053.001.02 from .08;
 * - an `onClose` hook lets the caller consume a finished element (e.g. each `Ntry`) and drop
 *   it, so a large statement never holds its whole tree in memory.
 */

export interface XmlElement {
  /** Local name, namespace prefix removed. */
  name: string;
  /**
   * Attributes as a flat list `name, value, name, value…`: local names (prefix removed),
   * except namespace declarations, which keep `xmlns` / `xmlns:prefix`. A list rather than
   * an object: no prototype keys, and cheap for the one attribute (`Ccy`) CAMT has.
   */
  attributes: string[] | undefined;
  children: XmlElement[];
  /** Character data directly inside the element, entities decoded, untrimmed. */
  text: string;
}

export class XmlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} (line ${line})`);
  }
}

export class XmlDoctypeError extends Error {}

export interface XmlDocument {
  root: XmlElement;
  /** Namespace URI of the document element ('' when it has none). */
  rootNamespace: string;
  /** Every namespace URI declared in the first four levels (envelopes wrap the message). */
  namespaces: string[];
}

export interface ReadXmlOptions {
  /**
   * Called when an element closes, with the chain of open ancestors (document element first).
   * Answer `true` to keep the element out of its parent's children (the caller consumed it).
   */
  onClose?: (element: XmlElement, ancestors: readonly XmlElement[]) => boolean;
  /** Deepest nesting accepted; deeper documents are refused. */
  maxDepth?: number;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const ENTITY = /&([^;&<\s]{0,12});?/g;

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Decodes predefined entities and character references; anything else is not well-formed. */
function decodeEntities(raw: string, source: string, position: number): string {
  if (raw.indexOf('&') === -1) return raw;
  return raw.replace(ENTITY, (whole: string, ref: string) => {
    if (whole.endsWith(';')) {
      const predefined = PREDEFINED[ref];
      if (predefined !== undefined) return predefined;
      const code = /^#x[0-9a-fA-F]{1,6}$/.test(ref)
        ? parseInt(ref.slice(2), 16)
        : /^#[0-9]{1,7}$/.test(ref)
          ? parseInt(ref.slice(1), 10)
          : -1;
      if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff))
        return String.fromCodePoint(code);
    }
    throw new XmlSyntaxError(
      `Unknown or malformed entity reference "${whole.slice(0, 16)}"`,
      lineAt(source, position),
    );
  });
}

function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function isNameStart(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 58 ||
    code > 127
  );
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon === -1 ? qualified : qualified.slice(colon + 1);
}

function fail(text: string, message: string, at: number): never {
  throw new XmlSyntaxError(message, lineAt(text, at));
}

/**
 * Reads the attributes of the start tag at `lt` from `i` to its `>` or `/>`. Answers the
 * index after the tag, negated when the tag closes itself. A separate function on purpose:
 * inside `readXml` this loop kept V8 from optimising the main loop (5× slower).
 */
function readAttributes(text: string, start: number, lt: number, element: XmlElement): number {
  const n = text.length;
  let i = start;
  for (;;) {
    while (i < n && isWhitespace(text.charCodeAt(i))) i++;
    if (i >= n) fail(text, 'Unterminated start tag', lt);
    const code = text.charCodeAt(i);
    if (code === 62 /* > */) return i + 1;
    if (code === 47 /* / */) {
      if (text.charCodeAt(i + 1) !== 62) fail(text, 'Malformed start tag', lt);
      return -(i + 2);
    }
    const eq = text.indexOf('=', i);
    if (eq === -1) fail(text, 'Malformed attribute', i);
    const attrName = text.slice(i, eq).trimEnd();
    if (attrName === '' || !isNameStart(attrName.charCodeAt(0)) || /[\s<>"'/]/.test(attrName))
      fail(text, 'Malformed attribute', i);
    i = eq + 1;
    while (i < n && isWhitespace(text.charCodeAt(i))) i++;
    const quote = text.charCodeAt(i);
    if (quote !== 34 && quote !== 39) fail(text, `Attribute ${attrName} is not quoted`, i);
    const close = text.indexOf(quote === 34 ? '"' : "'", i + 1);
    if (close === -1) fail(text, 'Unterminated attribute value', i);
    const raw = text.slice(i + 1, close);
    if (raw.includes('<')) fail(text, `Attribute ${attrName} contains "<"`, i);
    const value = decodeEntities(raw, text, i);
    i = close + 1;
    const next = text.charCodeAt(i);
    if (i < n && !isWhitespace(next) && next !== 62 && next !== 47)
      fail(text, 'Attributes must be separated by whitespace', i);
    const name = attrName.startsWith('xmlns') ? attrName : localName(attrName);
    const attributes = (element.attributes ??= []);
    for (let k = 0; k < attributes.length; k += 2)
      if (attributes[k] === name) fail(text, `Duplicate attribute ${attrName}`, i);
    attributes.push(name, value);
  }
}

/** Namespace URIs declared on an element, and the one bound to its own prefix. */
function declarations(qualified: string, attributes: string[]): { own: string; all: string[] } {
  const colon = qualified.indexOf(':');
  const binding = colon === -1 ? 'xmlns' : `xmlns:${qualified.slice(0, colon)}`;
  let own = '';
  const all: string[] = [];
  for (let k = 0; k < attributes.length; k += 2) {
    const name = attributes[k]!;
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    all.push(attributes[k + 1]!);
    if (name === binding) own = attributes[k + 1]!;
  }
  return { own, all };
}

/** Parses a whole XML document (already decoded to text) into an element tree. */
export function readXml(text: string, options: ReadXmlOptions = {}): XmlDocument {
  const maxDepth = options.maxDepth ?? 100;
  const onClose = options.onClose;
  const n = text.length;
  const stack: XmlElement[] = [];
  const qualifiedNames: string[] = [];
  let root: XmlElement | undefined;
  let rootNamespace = '';
  const namespaces: string[] = [];
  let pos = 0;

  while (pos < n) {
    const lt = text.indexOf('<', pos);
    const end = lt === -1 ? n : lt;
    if (end > pos) {
      const current = stack[stack.length - 1];
      let blank = true;
      for (let i = pos; i < end; i++) {
        if (!isWhitespace(text.charCodeAt(i))) {
          blank = false;
          break;
        }
      }
      if (!blank) {
        if (current === undefined) fail(text, 'Text outside the document element', pos);
        else current.text += decodeEntities(text.slice(pos, end), text, pos);
      }
    }
    if (lt === -1) break;
    const next = text.charCodeAt(lt + 1);

    if (next === 47 /* / */) {
      const gt = text.indexOf('>', lt + 2);
      if (gt === -1) fail(text, 'Unterminated end tag', lt);
      const name = text.slice(lt + 2, gt).trimEnd();
      const open = qualifiedNames.pop();
      if (open !== name) {
        fail(
          text,
          open === undefined
            ? `End tag </${name}> without a start tag`
            : `End tag </${name}> does not match <${open}>`,
          lt,
        );
      }
      const element = stack.pop()!;
      const parent = stack[stack.length - 1];
      if (parent !== undefined && !(onClose?.(element, stack) ?? false))
        parent.children.push(element);
      pos = gt + 1;
      continue;
    }

    if (next === 63 /* ? */) {
      const close = text.indexOf('?>', lt + 2);
      if (close === -1) fail(text, 'Unterminated processing instruction', lt);
      pos = close + 2;
      continue;
    }

    if (next === 33 /* ! */) {
      if (text.startsWith('!--', lt + 1)) {
        const close = text.indexOf('-->', lt + 4);
        if (close === -1) fail(text, 'Unterminated comment', lt);
        pos = close + 3;
      } else if (text.startsWith('![CDATA[', lt + 1)) {
        const close = text.indexOf(']]>', lt + 9);
        if (close === -1) fail(text, 'Unterminated CDATA section', lt);
        const current = stack[stack.length - 1];
        if (current === undefined) fail(text, 'CDATA outside the document element', lt);
        else current.text += text.slice(lt + 9, close);
        pos = close + 3;
      } else if (/^!(DOCTYPE|ENTITY)/i.test(text.slice(lt + 1, lt + 9))) {
        throw new XmlDoctypeError('The XML contains a DOCTYPE or entity declaration.');
      } else {
        fail(text, 'Malformed markup declaration', lt);
      }
      continue;
    }

    // Start tag: name, attributes, `>` or `/>`.
    if (!isNameStart(next)) fail(text, 'Malformed start tag', lt);
    let i = lt + 1;
    for (; i < n; i++) {
      const code = text.charCodeAt(i);
      if (isWhitespace(code) || code === 62 /* > */ || code === 47 /* / */) break;
    }
    const qualified = text.slice(lt + 1, i);
    const element: XmlElement = {
      name: localName(qualified),
      attributes: undefined,
      children: [],
      text: '',
    };
    let selfClosing = false;
    const after = text.charCodeAt(i);
    if (after === 62 /* > */) {
      i++; // the common case: no attributes
    } else if (after === 47 /* / */ && text.charCodeAt(i + 1) === 62) {
      i += 2;
      selfClosing = true;
    } else {
      const end = readAttributes(text, i, lt, element);
      selfClosing = end < 0;
      i = Math.abs(end);
      if (stack.length < 4 && element.attributes !== undefined) {
        const { own, all } = declarations(qualified, element.attributes);
        if (stack.length === 0) rootNamespace = own;
        namespaces.push(...all);
      }
    }
    pos = i;

    if (stack.length === 0) {
      if (root !== undefined) fail(text, 'More than one document element', lt);
      root = element;
    }
    if (selfClosing) {
      const parent = stack[stack.length - 1];
      if (parent !== undefined && !(onClose?.(element, stack) ?? false))
        parent.children.push(element);
    } else {
      if (stack.length >= maxDepth)
        fail(text, `Elements nested deeper than ${maxDepth} levels`, lt);
      stack.push(element);
      qualifiedNames.push(qualified);
    }
  }

  if (stack.length > 0)
    fail(text, `Element <${qualifiedNames[qualifiedNames.length - 1]}> is not closed`, n);
  if (root === undefined) throw new XmlSyntaxError('The document has no element', lineAt(text, n));
  return { root, rootNamespace, namespaces };
}

/** The first child element named `name`, following a path of names. */
export function child(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let current = element;
  for (const name of path) {
    if (current === undefined) return undefined;
    let found: XmlElement | undefined;
    for (const candidate of current.children) {
      if (candidate.name === name) {
        found = candidate;
        break;
      }
    }
    current = found;
  }
  return current;
}

/** All child elements named `name`. */
export function children(element: XmlElement | undefined, name: string): XmlElement[] {
  if (element === undefined) return [];
  return element.children.filter((candidate) => candidate.name === name);
}

/** Trimmed text of the element at `path` below `element`; undefined when absent or empty. */
export function text(element: XmlElement | undefined, ...path: string[]): string | undefined {
  const target = path.length === 0 ? element : child(element, ...path);
  if (target === undefined) return undefined;
  const value = target.text.trim();
  return value === '' ? undefined : value;
}

/** An attribute by local name. */
export function attribute(element: XmlElement | undefined, name: string): string | undefined {
  const attributes = element?.attributes;
  if (attributes === undefined) return undefined;
  for (let k = 0; k < attributes.length; k += 2)
    if (attributes[k] === name) return attributes[k + 1];
  return undefined;
}
