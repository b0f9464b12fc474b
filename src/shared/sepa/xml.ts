/**
 * The small XML writer of the SEPA files: elements in the order written, two-space
 * indentation, one string grown by concatenation. The e-invoice `XmlWriter` keeps every line
 * as an array entry and strips control characters from each value; a 10,000-debit file has
 * some 400,000 elements, and here every value is already in the SEPA character set (texts
 * transliterated, ids, dates, IBANs and amounts checked), so this writer only escapes what
 * XML requires and stays several times cheaper in time and garbage.
 */

const INDENT = Array.from({ length: 20 }, (_, depth) => '  '.repeat(depth));
const MARKUP = /[&<>"]/;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escape(value: string): string {
  return MARKUP.test(value) ? value.replace(/[&<>"]/g, (c) => ENTITIES[c]!) : value;
}

export class SepaXml {
  private out = '<?xml version="1.0" encoding="UTF-8"?>\n';
  private depth = 0;

  /** `<name attr="…">` on its own line; `close` ends it. */
  open(name: string, attrs?: Record<string, string>): this {
    let tag = `<${name}`;
    if (attrs !== undefined)
      for (const [key, value] of Object.entries(attrs)) tag += ` ${key}="${escape(value)}"`;
    this.out += `${INDENT[this.depth]!}${tag}>\n`;
    this.depth += 1;
    return this;
  }

  close(name: string): this {
    this.depth -= 1;
    this.out += `${INDENT[this.depth]!}</${name}>\n`;
    return this;
  }

  /** `<name>value</name>`; nothing when the value is undefined (SEPA has no empty elements). */
  leaf(name: string, value: string | undefined, attrs?: Record<string, string>): this {
    if (value === undefined || value === '') return this;
    let tag = `<${name}`;
    if (attrs !== undefined)
      for (const [key, v] of Object.entries(attrs)) tag += ` ${key}="${escape(v)}"`;
    this.out += `${INDENT[this.depth]!}${tag}>${escape(value)}</${name}>\n`;
    return this;
  }

  toString(): string {
    return this.out;
  }
}
