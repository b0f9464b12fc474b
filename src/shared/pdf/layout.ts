import { AppError } from '../errors.js';

/**
 * Page composition of a letter on A4, separate from the browser so it can be tested alone.
 *
 * - Content flows in the page area; `@page` margins leave room for header and footer.
 * - ALL_PAGES header/footer: Chromium's print header/footer templates, drawn in the top/bottom
 *   page margin of every page.
 * - FIRST_PAGE_ONLY header: the first block of the content flow, so it sits on page 1 only and
 *   pushes the text down by its real height.
 * - FIRST_PAGE_ONLY footer: `@page :first` reserves the bottom zone of page 1 only; the footer
 *   is rendered on a separate transparent A4 page (`firstPageOverlayHtml`) that the renderer
 *   stamps onto page 1.
 * - The logo belongs to the header zone and follows the header's visibility.
 */

export type Visibility = 'ALL_PAGES' | 'FIRST_PAGE_ONLY';
export type LogoPosition = 'TOP_LEFT' | 'TOP_RIGHT';

export interface LetterInput {
  /** Body of the letter (compiled, sanitised template HTML). */
  contentHtml: string;
  headerHtml?: string;
  footerHtml?: string;
  headerVisibility: Visibility;
  footerVisibility: Visibility;
  /** An inline image: `data:image/png|jpeg|webp;base64,…`. */
  logo?: { dataUri: string; position: LogoPosition };
  /** Document title (PDF metadata). */
  title?: string;
  /** BCP 47 language of the content; default `de`. */
  lang?: string;
}

/** Options for Chromium's `page.pdf`, as composed for one document. */
export interface PrintOptions {
  width: string;
  height: string;
  margin: { top: string; right: string; bottom: string; left: string };
  preferCSSPageSize: true;
  printBackground: true;
  displayHeaderFooter: boolean;
  headerTemplate: string;
  footerTemplate: string;
}

export interface LetterLayout {
  /** The main document, to be set with `page.setContent`. */
  documentHtml: string;
  print: PrintOptions;
  /** A one-page A4 document holding what appears on page 1 only, stamped onto page 1. */
  firstPageOverlay?: { html: string; print: PrintOptions };
}

/** Page geometry in millimetres (A4, DIN 5008-like margins). */
export const PAGE = {
  width: 210,
  height: 297,
  left: 25,
  right: 20,
  top: 20,
  bottom: 20,
  /** Top margin holding an ALL_PAGES header (and logo). */
  headerZone: 40,
  /** Where the header box starts inside its zone, and its largest height. */
  headerOffset: 10,
  headerMaxHeight: 28,
  /** Bottom margin holding a footer. */
  footerZone: 30,
  /** Distance of the footer box from the page bottom, and its largest height. */
  footerOffset: 8,
  footerMaxHeight: 20,
  /** Top margin of page 1 when the header is part of the content flow. */
  firstPageTop: 10,
  logoMaxHeight: 20,
  logoMaxWidth: 60,
} as const;

/** Largest accepted input (all HTML plus the logo), in characters. */
export const MAX_LETTER_CHARS = 10 * 1024 * 1024;

/** Only inline images and fonts; no scripts, frames, connections, forms or base URLs. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'";

export const FONT_STACK = `"Liberation Sans", Arial, Helvetica, "DejaVu Sans", sans-serif`;

const LOGO_PATTERN = /^data:image\/(png|jpeg|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

const mm = (value: number) => `${value}mm`;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The logo as a checked data URI: declared type must match the image's magic bytes. */
function checkLogo(dataUri: string): string {
  const match = LOGO_PATTERN.exec(dataUri.replace(/\s+/g, ''));
  if (!match)
    throw new AppError(
      'file_unprocessable',
      'The logo must be a base64 data URI of a PNG, JPEG or WebP image.',
    );
  const [, type, base64 = ''] = match;
  const head = Buffer.from(base64.slice(0, 24), 'base64');
  const matches =
    type === 'png'
      ? head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      : type === 'jpeg'
        ? head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff
        : head.subarray(0, 4).toString('latin1') === 'RIFF' &&
          head.subarray(8, 12).toString('latin1') === 'WEBP';
  if (!matches)
    throw new AppError('file_unprocessable', `The logo's bytes are not a ${type} image.`);
  return `data:image/${type};base64,${base64}`;
}

/**
 * Renames every `<meta` tag so it becomes an inert unknown element: a letter has no use for
 * one, and `<meta http-equiv="refresh">` is the one way HTML navigates without script.
 */
function neutraliseMeta(html: string): string {
  return html.replace(/<(\/?)meta/gi, '<$1kontor-meta');
}

function checkVisibility(value: unknown, field: string): Visibility {
  if (value !== 'ALL_PAGES' && value !== 'FIRST_PAGE_ONLY')
    throw new TypeError(`${field} must be ALL_PAGES or FIRST_PAGE_ONLY`);
  return value;
}

/** Typography shared by the document and the header/footer templates. */
const BASE_CSS = `
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; font-family: ${FONT_STACK}; font-size: 10.5pt; line-height: 1.4; color: #111; }
h1 { font-size: 16pt; margin: 0 0 4mm; } h2 { font-size: 13pt; margin: 5mm 0 3mm; }
h3 { font-size: 11pt; margin: 4mm 0 2mm; } p { margin: 0 0 3mm; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; vertical-align: top; padding: 1mm 2mm; }
thead { display: table-header-group; } tr, img { break-inside: avoid; } img { max-width: 100%; }
.k-header { display: flex; align-items: flex-start; gap: 8mm; font-size: 9pt; line-height: 1.3; }
.k-header.k-logo-right { flex-direction: row-reverse; }
.k-header-content { flex: 1 1 auto; min-width: 0; }
.k-logo { flex: 0 0 auto; line-height: 0; }
.k-logo img { max-height: ${mm(PAGE.logoMaxHeight)}; max-width: ${mm(PAGE.logoMaxWidth)}; }
`;

function headerBlock(input: LetterInput, logo: string | undefined): string | undefined {
  if (input.headerHtml === undefined && logo === undefined) return undefined;
  const right = input.logo?.position === 'TOP_RIGHT';
  const logoHtml = logo === undefined ? '' : `<div class="k-logo"><img src="${logo}" alt=""></div>`;
  return `<div class="k-header ${right ? 'k-logo-right' : 'k-logo-left'}">${logoHtml}<div class="k-header-content">${input.headerHtml ?? ''}</div></div>`;
}

/**
 * A Chromium header/footer template. Both templates are rendered into one document of their
 * own (not the letter's), so each carries its styles under its own class name;
 * `pageNumber`/`totalPages` spans are filled per page.
 */
function template(kind: 'header' | 'footer', inner: string, box: string): string {
  return `<style>${BASE_CSS} .k-${kind}-zone { font-family: ${FONT_STACK}; font-size: 9pt; line-height: 1.3; color: #111; box-sizing: border-box; width: 100%; overflow: hidden; ${box} }</style><div class="k-${kind}-zone">${inner}</div>`;
}

const EMPTY_TEMPLATE = '<span></span>';

function footerBox(): string {
  return `position: absolute; left: ${mm(PAGE.left)}; right: ${mm(PAGE.right)}; bottom: ${mm(PAGE.footerOffset)}; max-height: ${mm(PAGE.footerMaxHeight)}; overflow: hidden;`;
}

function documentShell(lang: string, title: string, css: string, body: string): string {
  return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}"><title>${escapeHtml(title)}</title><style>${css}</style></head><body>${body}</body></html>`;
}

/** Composes the documents and print options for one letter; throws AppErrors on bad input. */
export function composeLetter(input: LetterInput): LetterLayout {
  const headerVisibility = checkVisibility(input.headerVisibility, 'headerVisibility');
  const footerVisibility = checkVisibility(input.footerVisibility, 'footerVisibility');
  const size =
    input.contentHtml.length +
    (input.headerHtml?.length ?? 0) +
    (input.footerHtml?.length ?? 0) +
    (input.logo?.dataUri.length ?? 0);
  if (size > MAX_LETTER_CHARS)
    throw new AppError(
      'payload_too_large',
      `The letter has ${size} characters of HTML and logo; at most ${MAX_LETTER_CHARS} are rendered.`,
    );
  input = {
    ...input,
    contentHtml: neutraliseMeta(input.contentHtml),
    ...(input.headerHtml !== undefined && { headerHtml: neutraliseMeta(input.headerHtml) }),
    ...(input.footerHtml !== undefined && { footerHtml: neutraliseMeta(input.footerHtml) }),
  };
  const lang =
    input.lang !== undefined && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(input.lang)
      ? input.lang
      : 'de';
  const logo = input.logo === undefined ? undefined : checkLogo(input.logo.dataUri);
  const header = headerBlock(input, logo);
  const footer = input.footerHtml;

  const headerAll = header !== undefined && headerVisibility === 'ALL_PAGES';
  const headerFirst = header !== undefined && headerVisibility === 'FIRST_PAGE_ONLY';
  const footerAll = footer !== undefined && footerVisibility === 'ALL_PAGES';
  const footerFirst = footer !== undefined && footerVisibility === 'FIRST_PAGE_ONLY';

  const top = headerAll ? PAGE.headerZone : PAGE.top;
  const bottom = footerAll ? PAGE.footerZone : PAGE.bottom;
  const firstTop = headerFirst ? PAGE.firstPageTop : top;
  const firstBottom = footerFirst ? PAGE.footerZone : bottom;

  const pageCss = `
@page { size: ${mm(PAGE.width)} ${mm(PAGE.height)}; margin: ${mm(top)} ${mm(PAGE.right)} ${mm(bottom)} ${mm(PAGE.left)}; }
@page :first { margin-top: ${mm(firstTop)}; margin-bottom: ${mm(firstBottom)}; }
.k-header-first { margin-bottom: 8mm; }
`;
  const body = `${headerFirst ? `<header class="k-header-first">${header}</header>` : ''}<main class="k-content">${input.contentHtml}</main>`;
  const title = input.title ?? '';

  const print: PrintOptions = {
    width: mm(PAGE.width),
    height: mm(PAGE.height),
    margin: { top: mm(top), right: mm(PAGE.right), bottom: mm(bottom), left: mm(PAGE.left) },
    preferCSSPageSize: true,
    printBackground: true,
    displayHeaderFooter: headerAll || footerAll,
    headerTemplate: headerAll
      ? template(
          'header',
          header,
          `padding: ${mm(PAGE.headerOffset)} ${mm(PAGE.right)} 0 ${mm(PAGE.left)}; max-height: ${mm(PAGE.headerOffset + PAGE.headerMaxHeight)};`,
        )
      : EMPTY_TEMPLATE,
    footerTemplate: footerAll ? template('footer', footer, footerBox()) : EMPTY_TEMPLATE,
  };

  const layout: LetterLayout = {
    documentHtml: documentShell(lang, title, BASE_CSS + pageCss, body),
    print,
  };
  if (footerFirst) {
    const overlayCss = `${BASE_CSS} @page { size: ${mm(PAGE.width)} ${mm(PAGE.height)}; margin: 0; } html, body { background: transparent; } .k-footer-zone { font-size: 9pt; line-height: 1.3; ${footerBox()} }`;
    layout.firstPageOverlay = {
      html: documentShell(lang, title, overlayCss, `<div class="k-footer-zone">${footer}</div>`),
      print: {
        ...print,
        margin: { top: '0mm', right: '0mm', bottom: '0mm', left: '0mm' },
        displayHeaderFooter: false,
        headerTemplate: EMPTY_TEMPLATE,
        footerTemplate: EMPTY_TEMPLATE,
      },
    };
  }
  return layout;
}
