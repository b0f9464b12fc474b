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
 *   it, so a large statement never holds its whole tree in memory;
 * - linear and bounded (issue 11): every step looks at each character a fixed number of times
 *   (duplicate attributes through a Set, references decoded in one loop, no regex that can
 *   backtrack over input), and `CAMT_XML_LIMITS` is checked while reading, so a hostile file
 *   is refused with `file_unprocessable` (422) naming the cap before it costs much.
 */

import { XML_LIMITS, xmlLimitExceeded, type XmlLimits } from '../../../shared/pdf/xml.js';

/**
 * The caps for bank statements. Text is short in CAMT (`Ustrd` is 140 characters), so one
 * text node or attribute value may hold 64 Ki characters; entries are consumed as they close,
 * so 250 000 elements held at once is far beyond any statement's header and balances; a
 * 50 000-entry file written with character references for umlauts may hold a few hundred
 * thousand references.
 */
export const CAMT_XML_LIMITS: Readonly<XmlLimits> = {
  ...XML_LIMITS,
  textChars: 64 * 1024,
  references: 1_000_000,
};

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
  /** Caps that differ from `CAMT_XML_LIMITS`. */
  limits?: Partial<XmlLimits>;
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** Longest reference name looked at (`#x10FFFF` and the predefined five fit). */
const MAX_REFERENCE = 12;
/** Attributes compared pairwise before a Set takes over (CAMT has one, `Ccy`). */
const FEW_ATTRIBUTES = 8;

/** What is left of the document's reference budget while it is read. */
interface Budget {
  references: number;
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The code point of a character reference body (`#228`, `#xE4`), or -1. */
function characterReference(ref: string): number {
  const hex = ref.charCodeAt(1) === 120; /* x */
  const digits = ref.slice(hex ? 2 : 1);
  if (digits === '' || digits.length > (hex ? 6 : 7)) return -1;
  for (let k = 0; k < digits.length; k++) {
    const c = digits.charCodeAt(k);
    const ok = (c >= 48 && c <= 57) || (hex && ((c >= 65 && c <= 70) || (c >= 97 && c <= 102)));
    if (!ok) return -1;
  }
  return parseInt(digits, hex ? 16 : 10);
}

/**
 * Decodes `source[start, end)`: predefined entities and character references, anything else
 * is not well-formed. One pass over the range (searched as its own slice, so that no search
 * runs past it): each `&` costs at most `MAX_REFERENCE` characters and one unit of the
 * document's reference budget.
 */
function decodeEntities(
  source: string,
  start: number,
  end: number,
  budget: Budget,
  limits: XmlLimits,
): string {
  const raw = source.slice(start, end);
  let amp = raw.indexOf('&');
  if (amp === -1) return raw;
  const n = raw.length;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    if (--budget.references < 0)
      throw xmlLimitExceeded(
        `More than ${limits.references} character or entity references (line ${lineAt(source, start + amp)})`,
      );
    let j = amp + 1;
    while (j < n && j - amp - 1 < MAX_REFERENCE) {
      const c = raw.charCodeAt(j);
      if (c === 59 /* ; */ || c === 38 /* & */ || c === 60 /* < */ || isWhitespace(c)) break;
      j++;
    }
    const terminated = raw.charCodeAt(j) === 59;
    let decoded: string | undefined;
    if (terminated) {
      const ref = raw.slice(amp + 1, j);
      if (Object.hasOwn(PREDEFINED, ref)) decoded = PREDEFINED[ref];
      else if (ref.charCodeAt(0) === 35 /* # */) {
        const code = characterReference(ref);
        if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff))
          decoded = String.fromCodePoint(code);
      }
    }
    if (decoded === undefined) {
      const whole = raw.slice(amp, terminated ? j + 1 : j);
      throw new XmlSyntaxError(
        `Unknown or malformed entity reference "${whole.slice(0, 16)}"`,
        lineAt(source, start + amp),
      );
    }
    out += raw.slice(from, amp) + decoded;
    from = j + 1;
    amp = raw.indexOf('&', from);
  }
  return out + raw.slice(from);
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

function textTooLong(text: string, at: number, limits: XmlLimits): never {
  throw xmlLimitExceeded(
    `An element text longer than ${limits.textChars} characters (line ${lineAt(text, at)})`,
  );
}

/**
 * Reads the attributes of the start tag at `lt` from `i` to its `>` or `/>`. Answers the
 * index after the tag, negated when the tag closes itself. A separate function on purpose:
 * inside `readXml` this loop kept V8 from optimising the main loop (5× slower).
 */
function readAttributes(
  text: string,
  start: number,
  lt: number,
  element: XmlElement,
  budget: Budget,
  limits: XmlLimits,
): number {
  const n = text.length;
  let i = start;
  // Names seen so far once there are more than a few: a pairwise check would be quadratic.
  let seen: Set<string> | undefined;
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
    if (close - i - 1 > limits.textChars)
      throw xmlLimitExceeded(
        `An attribute value longer than ${limits.textChars} characters (line ${lineAt(text, i)})`,
      );
    // Only within the value: an `indexOf` from here could run far past it, once per attribute.
    if (text.slice(i + 1, close).includes('<')) fail(text, `Attribute ${attrName} contains "<"`, i);
    const value = decodeEntities(text, i + 1, close, budget, limits);
    i = close + 1;
    const next = text.charCodeAt(i);
    if (i < n && !isWhitespace(next) && next !== 62 && next !== 47)
      fail(text, 'Attributes must be separated by whitespace', i);
    const name = attrName.startsWith('xmlns') ? attrName : localName(attrName);
    const attributes = (element.attributes ??= []);
    if (attributes.length >= 2 * limits.attributes)
      throw xmlLimitExceeded(
        `An element with more than ${limits.attributes} attributes (line ${lineAt(text, lt)})`,
      );
    if (seen !== undefined) {
      if (seen.has(name)) fail(text, `Duplicate attribute ${attrName}`, i);
      seen.add(name);
    } else {
      for (let k = 0; k < attributes.length; k += 2)
        if (attributes[k] === name) fail(text, `Duplicate attribute ${attrName}`, i);
      if (attributes.length >= 2 * FEW_ATTRIBUTES) {
        seen = new Set();
        for (let k = 0; k < attributes.length; k += 2) seen.add(attributes[k]!);
        seen.add(name);
      }
    }
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

/**
 * Parses a whole XML document (already decoded to text) into an element tree. Malformed XML is
 * an `XmlSyntaxError`, a DOCTYPE an `XmlDoctypeError`, a document past one of the limits an
 * `AppError` `file_unprocessable` naming the cap.
 */
export function readXml(text: string, options: ReadXmlOptions = {}): XmlDocument {
  return new XmlReader(text, { ...CAMT_XML_LIMITS, ...options.limits }, options.onClose).read();
}

/** One pass over a document: the open elements, what the tree holds, the namespaces seen. */
class XmlReader {
  private readonly budget: Budget;
  private readonly stack: XmlElement[] = [];
  private readonly qualifiedNames: string[] = [];
  // Elements held in the tree, and how many were held when each open element started: an
  // element the caller consumes takes its whole subtree with it, so the count goes back.
  private held = 0;
  private readonly heldBefore: number[] = [];
  private root: XmlElement | undefined;
  private rootNamespace = '';
  private readonly namespaces: string[] = [];

  constructor(
    private readonly text: string,
    private readonly limits: XmlLimits,
    private readonly onClose: ReadXmlOptions['onClose'],
  ) {
    this.budget = { references: limits.references };
  }

  read(): XmlDocument {
    const text = this.text;
    const n = text.length;
    let pos = 0;
    while (pos < n) {
      const lt = text.indexOf('<', pos);
      const end = lt === -1 ? n : lt;
      if (end > pos) this.characters(pos, end);
      if (lt === -1) break;
      const next = text.charCodeAt(lt + 1);
      if (next === 47 /* / */) pos = this.endTag(lt);
      else if (next === 63 /* ? */) pos = this.processingInstruction(lt);
      else if (next === 33 /* ! */) pos = this.markupDeclaration(lt);
      else pos = this.startTag(lt, next);
    }
    if (this.stack.length > 0)
      fail(
        text,
        `Element <${this.qualifiedNames[this.qualifiedNames.length - 1]}> is not closed`,
        n,
      );
    if (this.root === undefined)
      throw new XmlSyntaxError('The document has no element', lineAt(text, n));
    return { root: this.root, rootNamespace: this.rootNamespace, namespaces: this.namespaces };
  }

  /** Text between two tags: added to the open element's text unless it is blank. */
  private characters(pos: number, end: number): void {
    const { text, limits } = this;
    for (let i = pos; i < end; i++) {
      if (isWhitespace(text.charCodeAt(i))) continue;
      const current = this.stack[this.stack.length - 1];
      if (current === undefined) fail(text, 'Text outside the document element', pos);
      // Checked before decoding, so an oversized node costs no more than finding its end.
      if (current.text.length + (end - pos) > limits.textChars) textTooLong(text, pos, limits);
      current.text += decodeEntities(text, pos, end, this.budget, limits);
      return;
    }
  }

  /** `</name>`: closes the open element, which must carry that name. Answers where to go on. */
  private endTag(lt: number): number {
    const text = this.text;
    const gt = text.indexOf('>', lt + 2);
    if (gt === -1) fail(text, 'Unterminated end tag', lt);
    const name = text.slice(lt + 2, gt).trimEnd();
    const open = this.qualifiedNames.pop();
    if (open !== name) {
      fail(
        text,
        open === undefined
          ? `End tag </${name}> without a start tag`
          : `End tag </${name}> does not match <${open}>`,
        lt,
      );
    }
    this.closed(this.stack.pop()!, this.heldBefore.pop()!);
    return gt + 1;
  }

  /** An element just closed goes to its parent, unless the caller consumed it (`onClose`). */
  private closed(element: XmlElement, heldBefore: number): void {
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined && !(this.onClose?.(element, this.stack) ?? false))
      parent.children.push(element);
    else this.held = heldBefore;
  }

  /** `<?…?>`: skipped. */
  private processingInstruction(lt: number): number {
    const close = this.text.indexOf('?>', lt + 2);
    if (close === -1) fail(this.text, 'Unterminated processing instruction', lt);
    return close + 2;
  }

  /** `<!--…-->` is skipped, `<![CDATA[…]]>` is text; a DOCTYPE or an entity is refused. */
  private markupDeclaration(lt: number): number {
    const text = this.text;
    if (text.startsWith('!--', lt + 1)) {
      const close = text.indexOf('-->', lt + 4);
      if (close === -1) fail(text, 'Unterminated comment', lt);
      return close + 3;
    }
    if (text.startsWith('![CDATA[', lt + 1)) {
      const close = text.indexOf(']]>', lt + 9);
      if (close === -1) fail(text, 'Unterminated CDATA section', lt);
      const current = this.stack[this.stack.length - 1];
      if (current === undefined) fail(text, 'CDATA outside the document element', lt);
      if (current.text.length + (close - lt - 9) > this.limits.textChars)
        textTooLong(text, lt, this.limits);
      current.text += text.slice(lt + 9, close);
      return close + 3;
    }
    if (/^!(DOCTYPE|ENTITY)/i.test(text.slice(lt + 1, lt + 9)))
      throw new XmlDoctypeError('The XML contains a DOCTYPE or entity declaration.');
    return fail(text, 'Malformed markup declaration', lt);
  }

  /** A start tag (name, attributes, `>` or `/>`): a new element, open or closed at once. */
  private startTag(lt: number, next: number): number {
    const { text, limits, stack } = this;
    if (!isNameStart(next)) fail(text, 'Malformed start tag', lt);
    let i = lt + 1;
    for (; i < text.length; i++) {
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
      const end = readAttributes(text, i, lt, element, this.budget, limits);
      selfClosing = end < 0;
      i = Math.abs(end);
      if (stack.length < 4 && element.attributes !== undefined) {
        const { own, all } = declarations(qualified, element.attributes);
        if (stack.length === 0) this.rootNamespace = own;
        this.namespaces.push(...all);
      }
    }

    if (stack.length === 0) {
      if (this.root !== undefined) fail(text, 'More than one document element', lt);
      this.root = element;
    }
    if (++this.held > limits.elements)
      throw xmlLimitExceeded(
        `More than ${limits.elements} elements held at once (line ${lineAt(text, lt)})`,
      );
    if (selfClosing) {
      this.closed(element, this.held - 1);
    } else {
      if (stack.length >= limits.depth)
        throw xmlLimitExceeded(
          `Elements nested deeper than ${limits.depth} levels (line ${lineAt(text, lt)})`,
        );
      stack.push(element);
      this.qualifiedNames.push(qualified);
      this.heldBefore.push(this.held - 1);
    }
    return i;
  }
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
