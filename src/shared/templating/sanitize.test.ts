import { describe, expect, it } from 'vitest';
import { giroCodeDataUri, giroCodePayload } from '../girocode.js';
import { sanitizeCss, sanitizeTemplateHtml } from './sanitize.js';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk';

describe('template sanitiser', () => {
  it('keeps the markup a letter needs', () => {
    const html =
      '<div class="letter" style="font-size: 11pt"><h1>Titel</h1><p align="right"><strong>fett</strong>, <em>kursiv</em>, <u>unterstrichen</u><br />Zeile</p>' +
      '<table border="1" cellpadding="2"><thead><tr><th scope="col">A</th></tr></thead><tbody><tr><td colspan="2" style="width: 20mm">1</td></tr></tbody></table>' +
      `<ul><li>eins</li></ul><ol start="3"><li>drei</li></ol><img src="${PNG}" alt="Logo" width="80" />` +
      '<a href="https://kontor.example/agb">AGB</a> <a href="mailto:info@kontor.example">Mail</a> <a href="tel:+4930123">Tel</a> <a href="#anhang">Anhang</a>' +
      '<style>.letter p { margin: 0 0 4mm; color: #333 }</style></div>';
    const result = sanitizeTemplateHtml(html);
    expect(result.removed).toEqual([]);
    expect(result.html).toContain('<div class="letter" style="font-size:11pt">');
    expect(result.html).toContain('<p align="right"><strong>fett</strong>');
    expect(result.html).toContain('<td colspan="2" style="width:20mm">1</td>');
    expect(result.html).toContain(`<img src="${PNG}" alt="Logo" width="80" />`);
    expect(result.html).toContain('<a href="https://kontor.example/agb">AGB</a>');
    expect(result.html).toContain('<a href="mailto:info@kontor.example">');
    expect(result.html).toContain('<a href="tel:+4930123">');
    expect(result.html).toContain('<a href="#anhang">');
    expect(result.html).toContain('<style>.letter p { margin: 0 0 4mm; color: #333 }</style>');
  });

  it('lets the GiroCode of an invoice through as it is: a PNG data URI, pixelated', async () => {
    const uri = await giroCodeDataUri(
      giroCodePayload({
        name: 'Kontor GmbH',
        iban: 'DE02120300000000202051',
        amountMinor: 118_984,
        currency: 'EUR',
        reference: '2026-0001',
      }),
    );
    expect(uri).toMatch(/^data:image\/png;base64,/);
    const html = `<div class="giro"><img src="${uri}" alt="GiroCode" style="image-rendering: pixelated" /></div>`;
    const result = sanitizeTemplateHtml(html);
    expect(result.removed).toEqual([]);
    expect(result.html).toContain(`<img src="${uri}" alt="GiroCode"`);
  });

  it.each([
    ['script', '<p>a</p><script>alert(1)</script>', '<p>a</p>', '<script>'],
    ['iframe', '<iframe src="https://evil.example">x</iframe><p>b</p>', '<p>b</p>', '<iframe>'],
    ['object and embed', '<object data="x.swf"></object><embed src="x.swf" />', '', '<object>'],
    ['form', '<form action="https://evil.example"><input name="a" /></form>', '', '<form>'],
    [
      'link, meta, base',
      '<link rel="stylesheet" href="https://evil.example/a.css" /><meta http-equiv="refresh" content="0" /><base href="https://evil.example/" />',
      '',
      '<link>',
    ],
    ['svg with script', '<svg><script>alert(1)</script></svg><p>c</p>', '<p>c</p>', '<svg>'],
    ['onerror', '<img src="x" onerror="alert(1)" />', '<img />', 'onerror attribute on <img>'],
    ['onclick', '<p onclick="alert(1)">d</p>', '<p>d</p>', 'onclick attribute on <p>'],
    [
      'javascript: link',
      '<a href="javascript:alert(1)">e</a>',
      '<a>e</a>',
      'href "javascript:alert(1)"',
    ],
    [
      'entity-encoded javascript: link',
      '<a href="jav&#x61;script:alert(1)">e</a>',
      '<a>e</a>',
      'href "javascript:alert(1)"',
    ],
    [
      'http link',
      '<a href="http://plain.example">f</a>',
      '<a>f</a>',
      'href "http://plain.example"',
    ],
    [
      'protocol-relative link',
      '<a href="//evil.example">g</a>',
      '<a>g</a>',
      'href "//evil.example"',
    ],
    [
      'remote image',
      '<img src="https://evil.example/pixel.png" />',
      '<img />',
      'src "https://evil.example/pixel.png"',
    ],
    [
      'SVG data image',
      '<img src="data:image/svg+xml;base64,PHN2Zz4=" />',
      '<img />',
      'src "data:image/svg+xml;base64,PHN2Zz4="',
    ],
    [
      'srcset',
      `<img src="${PNG}" srcset="https://evil.example/a.png 2x" />`,
      `<img src="${PNG}" />`,
      'srcset attribute on <img>',
    ],
  ])('removes %s and says so', (_label, html, expected, reported) => {
    const result = sanitizeTemplateHtml(html);
    expect(result.html).toBe(expected);
    expect(result.removed.join(' | ')).toContain(reported);
  });

  it('strips <style> rules and style attributes that load or run something', () => {
    const result = sanitizeTemplateHtml(
      '<style>@import url(https://evil.example/x.css); @import "https://evil.example/y.css"; p { color: red; background: url(https://evil.example/p.png) } .x { width: expression(alert(1)) } .y { b\\61ckground: u\\72l(https://evil.example) } @font-face { font-family: X; src: local(Arial) }</style>' +
        '<p style="color: blue; background-image: url(https://evil.example/q.png)">h</p>' +
        '<p style="width: expr/**/ession(alert(1))">i</p>',
    );
    expect(result.html).not.toMatch(/url\(|@import|expression|evil|\\/i);
    expect(result.html).toContain('p { color: red;');
    expect(result.html).toContain('<p style="color:blue">h</p>');
    expect(result.html).toContain('<p>i</p>');
    expect(result.removed).toEqual(
      expect.arrayContaining([
        '<style> rules that load or run something',
        expect.stringContaining('style "color: blue; background-image'),
        expect.stringContaining('style "width: expr'),
      ]),
    );
  });

  it('filters CSS text by declaration and never lets a fetch survive', () => {
    expect(sanitizeCss('a { color: red }')).toEqual({ css: 'a { color: red }', removed: false });
    const cut = sanitizeCss('a{color:red;background:URL( "https://x" )}b{margin:0}');
    expect(cut.removed).toBe(true);
    expect(cut.css).toBe('a{color:red;}b{margin:0}');
    expect(sanitizeCss('a{background:u/**/rl(https://x)}').css).not.toContain('url');
    expect(sanitizeCss('a{background-image:image-set("https://x" 1x)}').css).not.toContain('https');
  });

  it('drops harmless unknown attributes quietly', () => {
    const result = sanitizeTemplateHtml(
      '<p data-x="1" aria-label="a" contenteditable="true">j</p><a href="https://a.example" target="_blank" rel="noopener">k</a>',
    );
    expect(result).toEqual({ html: '<p>j</p><a href="https://a.example">k</a>', removed: [] });
  });

  it('unwraps a whole HTML document without complaint but drops its head', () => {
    const result = sanitizeTemplateHtml(
      '<html><head><title>T</title></head><body><p>Brief</p></body></html>',
    );
    expect(result.html).toBe('<p>Brief</p>');
    expect(result.removed).toEqual(['<title>']);
  });
});
