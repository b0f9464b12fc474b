import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import {
  composeLetter,
  CONTENT_SECURITY_POLICY,
  MAX_LETTER_CHARS,
  PAGE,
  type LetterInput,
} from './layout.js';

// A 1×1 PNG, a JPEG header and a WebP header: enough for the magic-number check.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString(
  'base64',
);
const WEBP = Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1').toString('base64');

const letter = (overrides: Partial<LetterInput> = {}): LetterInput => ({
  contentHtml: '<p>Sehr geehrte Damen und Herren,</p>',
  headerHtml: '<b>Muster GmbH</b>',
  footerHtml: 'Bankverbindung',
  headerVisibility: 'ALL_PAGES',
  footerVisibility: 'ALL_PAGES',
  ...overrides,
});

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('composeLetter', () => {
  it('puts the strict CSP first in the head, before any content', () => {
    const { documentHtml } = composeLetter(letter({ contentHtml: '<p>x</p>' }));
    const csp = documentHtml.indexOf('Content-Security-Policy');
    expect(csp).toBeGreaterThan(-1);
    expect(csp).toBeLessThan(documentHtml.indexOf('<p>x</p>'));
    expect(documentHtml).toContain(`content="${CONTENT_SECURITY_POLICY}"`);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain('img-src data:');
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src|http/);
  });

  it('ALL_PAGES header and footer: Chromium templates and reserved margins on every page', () => {
    const layout = composeLetter(letter());
    expect(layout.print.displayHeaderFooter).toBe(true);
    expect(layout.print.headerTemplate).toContain('Muster GmbH');
    expect(layout.print.footerTemplate).toContain('Bankverbindung');
    expect(layout.print.margin.top).toBe(`${PAGE.headerZone}mm`);
    expect(layout.print.margin.bottom).toBe(`${PAGE.footerZone}mm`);
    expect(layout.documentHtml).not.toContain('Muster GmbH');
    expect(layout.firstPageOverlay).toBeUndefined();
    // Both templates share one document: their styles must not collide.
    expect(layout.print.headerTemplate).toContain('k-header-zone');
    expect(layout.print.footerTemplate).toContain('k-footer-zone');
    expect(layout.print.headerTemplate).not.toContain('k-footer-zone');
  });

  it('FIRST_PAGE_ONLY header flows on page 1; the footer goes into a page-1 overlay', () => {
    const layout = composeLetter(
      letter({ headerVisibility: 'FIRST_PAGE_ONLY', footerVisibility: 'FIRST_PAGE_ONLY' }),
    );
    expect(layout.print.displayHeaderFooter).toBe(false);
    expect(layout.documentHtml).toMatch(/<header class="k-header-first">.*Muster GmbH/);
    expect(layout.documentHtml).not.toContain('Bankverbindung');
    expect(layout.firstPageOverlay?.html).toContain('Bankverbindung');
    expect(layout.firstPageOverlay?.print.margin.top).toBe('0mm');
    // Page 1 reserves the footer zone; later pages keep the plain margin.
    expect(layout.documentHtml).toContain(`margin-bottom: ${PAGE.footerZone}mm; }`);
    expect(layout.documentHtml).toContain(
      `@page { size: 210mm 297mm; margin: ${PAGE.top}mm ${PAGE.right}mm ${PAGE.bottom}mm ${PAGE.left}mm; }`,
    );
  });

  it('mixes visibilities: header on all pages, footer on the first only', () => {
    const layout = composeLetter(letter({ footerVisibility: 'FIRST_PAGE_ONLY' }));
    expect(layout.print.displayHeaderFooter).toBe(true);
    expect(layout.print.headerTemplate).toContain('Muster GmbH');
    expect(layout.print.footerTemplate).not.toContain('Bankverbindung');
    expect(layout.firstPageOverlay?.html).toContain('Bankverbindung');
  });

  it('without header and footer there are no templates and no overlay', () => {
    const layout = composeLetter({
      contentHtml: '<p>x</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'FIRST_PAGE_ONLY',
    });
    expect(layout.print.displayHeaderFooter).toBe(false);
    expect(layout.firstPageOverlay).toBeUndefined();
    expect(layout.print.margin.top).toBe(`${PAGE.top}mm`);
  });

  it('places the logo left or right in the header, following its visibility', () => {
    const left = composeLetter(
      letter({ logo: { dataUri: `data:image/png;base64,${PNG}`, position: 'TOP_LEFT' } }),
    );
    expect(left.print.headerTemplate).toContain('k-logo-left');
    expect(left.print.headerTemplate).toContain(`src="data:image/png;base64,${PNG}"`);
    const right = composeLetter(
      letter({
        headerVisibility: 'FIRST_PAGE_ONLY',
        logo: { dataUri: `data:image/jpeg;base64,${JPEG}`, position: 'TOP_RIGHT' },
      }),
    );
    expect(right.documentHtml).toContain('k-logo-right');
    expect(right.documentHtml).toContain('.k-header.k-logo-right { flex-direction: row-reverse; }');
    const webpOnly = composeLetter({
      contentHtml: '<p>x</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
      logo: { dataUri: `data:image/webp;base64,${WEBP}`, position: 'TOP_LEFT' },
    });
    expect(webpOnly.print.headerTemplate).toContain('data:image/webp');
  });

  it('refuses a logo that is not an inline PNG, JPEG or WebP, or whose bytes lie', () => {
    for (const dataUri of [
      'http://127.0.0.1/logo.png',
      'file:///etc/passwd',
      `data:image/svg+xml;base64,${PNG}`,
      `data:image/png,${PNG}`,
      'data:image/png;base64,"><script>x</script>',
    ]) {
      const error = refusal(() =>
        composeLetter(letter({ logo: { dataUri, position: 'TOP_LEFT' } })),
      );
      expect(error.code).toBe('file_unprocessable');
      expect(error.message).toMatch(/logo/);
    }
    const lie = refusal(() =>
      composeLetter(
        letter({ logo: { dataUri: `data:image/png;base64,${JPEG}`, position: 'TOP_LEFT' } }),
      ),
    );
    expect(lie.message).toBe("The logo's bytes are not a png image.");
  });

  it('escapes the title and falls back to German for an odd language tag', () => {
    const { documentHtml } = composeLetter(
      letter({ title: '</title><script>alert(1)</script>', lang: 'de"><x' }),
    );
    expect(documentHtml).toContain('<title>&lt;/title&gt;&lt;script&gt;');
    expect(documentHtml).toContain('<html lang="de">');
    expect(composeLetter(letter({ lang: 'en-GB' })).documentHtml).toContain('lang="en-GB"');
  });

  it('defuses <meta> in content, header and footer (meta refresh navigates without script)', () => {
    const refresh = '<META http-equiv="refresh" content="0;url=http://127.0.0.1/x"><meta/>';
    const layout = composeLetter(
      letter({ contentHtml: refresh, headerHtml: refresh, footerHtml: refresh }),
    );
    for (const html of [
      layout.documentHtml,
      layout.print.headerTemplate,
      layout.print.footerTemplate,
    ]) {
      expect(html).not.toMatch(/<meta[^>]*refresh/i);
      expect(html).toContain('<kontor-meta http-equiv="refresh"');
    }
    // Our own head keeps its charset and CSP.
    expect(layout.documentHtml).toContain('<meta charset="utf-8">');
  });

  it('refuses oversized input with 413', () => {
    const error = refusal(() =>
      composeLetter(letter({ contentHtml: 'x'.repeat(MAX_LETTER_CHARS + 1) })),
    );
    expect(error.code).toBe('payload_too_large');
    expect(error.status).toBe(413);
  });

  it('rejects an unknown visibility as a programming error', () => {
    expect(() => composeLetter(letter({ headerVisibility: 'SOMETIMES' as 'ALL_PAGES' }))).toThrow(
      TypeError,
    );
  });
});
