/**
 * A minimal streaming XML writer for the e-invoice serializers: elements in the order they are
 * written, two-space indentation, every text and attribute escaped. It exists so that `cii.ts`
 * and `ubl.ts` read like the element trees they produce and cannot emit malformed XML.
 */

/**
 * Characters XML 1.0 does not allow (C0 controls except tab, line feed and carriage return;
 * U+FFFE/U+FFFF; unpaired surrogates), plus DEL and the C1 controls, which XML allows but which
 * are never meaningful in an invoice and which some receivers reject.
 */
const DROPPED =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  // A literal CR would be normalised to LF by every parser (XML 1.0 §2.11), tab and LF inside
  // an attribute to spaces (§3.3.3); character references keep them as written.
  '\r': '&#13;',
  '\t': '&#9;',
  '\n': '&#10;',
};

/** Text content escaped for XML; tab and line feed stay literal (Skonto lines need the LF). */
export function escapeText(value: string): string {
  return value.replace(DROPPED, '').replace(/[&<>"\r]/g, (c) => ENTITIES[c]!);
}

/** An attribute value escaped for a double-quoted attribute. */
export function escapeAttribute(value: string): string {
  return value.replace(DROPPED, '').replace(/[&<>"\r\t\n]/g, (c) => ENTITIES[c]!);
}

/** Attributes of one element; an undefined value omits the attribute. */
export type Attributes = Record<string, string | undefined>;

function attributes(attrs: Attributes | undefined): string {
  if (attrs === undefined) return '';
  let out = '';
  for (const [name, value] of Object.entries(attrs))
    if (value !== undefined) out += ` ${name}="${escapeAttribute(value)}"`;
  return out;
}

/** Writes one XML document; `toString()` returns it with the XML declaration. */
export class XmlWriter {
  private readonly parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  private depth = 0;

  /**
   * An element with text content; nothing when the value is undefined or empty, as EN 16931
   * receivers reject empty elements (PEPPOL-EN16931-R008).
   */
  leaf(name: string, value: string | undefined, attrs?: Attributes): void {
    if (value === undefined || value === '') return;
    this.parts.push(
      `${'  '.repeat(this.depth)}<${name}${attributes(attrs)}>${escapeText(value)}</${name}>\n`,
    );
  }

  /**
   * An element whose children `body` writes. When `body` writes nothing the element is left
   * out, unless `keepEmpty` is set (CII's mandatory `ram:ApplicableHeaderTradeDelivery`).
   */
  group(
    name: string,
    body: () => void,
    options: { attrs?: Attributes; keepEmpty?: boolean } = {},
  ): void {
    const indent = '  '.repeat(this.depth);
    const start = this.parts.length;
    this.parts.push(`${indent}<${name}${attributes(options.attrs)}>\n`);
    this.depth += 1;
    body();
    this.depth -= 1;
    if (this.parts.length > start + 1) this.parts.push(`${indent}</${name}>\n`);
    else if (options.keepEmpty === true)
      this.parts[start] = `${indent}<${name}${attributes(options.attrs)}/>\n`;
    else this.parts.pop();
  }

  /** The document written so far. */
  toString(): string {
    return this.parts.join('');
  }
}
