import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { SepaXml } from './xml.js';

describe('SepaXml', () => {
  it('writes the declaration, indents, escapes markup and leaves out empty leaves', () => {
    const xml = new SepaXml()
      .open('Document', { xmlns: 'urn:x', note: 'a"b' })
      .leaf('Nm', 'A & B <C> "D"')
      .leaf('Empty', '')
      .leaf('Missing', undefined)
      .leaf('InstdAmt', '1.00', { Ccy: 'EUR' })
      .close('Document')
      .toString();
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<Document xmlns="urn:x" note="a&quot;b">\n' +
        '  <Nm>A &amp; B &lt;C&gt; &quot;D&quot;</Nm>\n' +
        '  <InstdAmt Ccy="EUR">1.00</InstdAmt>\n' +
        '</Document>\n',
    );
    expect(XMLValidator.validate(xml)).toBe(true);
  });
});
