/**
 * The allow-list every rendered template passes before it is stored, shown or printed
 * (decisions §9). What survives is inert markup for a letter or an offer:
 *
 * - structural and text tags, lists, tables, `img`, `a`, and `<style>` blocks;
 * - attributes from a per-tag list; `style` (attribute and element) without anything that
 *   can fetch or run: `url(`, `image-set(`, `@import`, `src:`, `expression(`, `behavior`,
 *   `-moz-binding`, `javascript:`, CSS escapes;
 * - `href` only `https:`, `mailto:`, `tel:` or a `#fragment` (a link in a PDF is followed
 *   only when a reader clicks it; nothing is loaded while rendering);
 * - `img src` only inline `data:image/png|jpeg|webp;base64,…` (no SVG, no remote image:
 *   the renderer never makes a request).
 *
 * No script, iframe, object, embed, form, link, meta, base, no `on*` handler. Removed tags
 * and removed attributes that could act or load something are reported, so a compile can
 * tell the author (`unsafe_markup_removed`); harmless extras (`data-*`, `aria-*`,
 * `target`) are dropped quietly.
 */
import sanitizeHtml from 'sanitize-html';

const ALLOWED_TAGS = [
  'a',
  'abbr',
  'address',
  'article',
  'aside',
  'b',
  'blockquote',
  'br',
  'caption',
  'cite',
  'code',
  'col',
  'colgroup',
  'dd',
  'del',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'i',
  'img',
  'ins',
  'li',
  'main',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'section',
  'small',
  'span',
  'strong',
  'style',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'u',
  'ul',
];
const ALLOWED = new Set(ALLOWED_TAGS);

/** Wrappers of a whole HTML document: unwrapped without a complaint. */
const UNWRAPPED = new Set(['html', 'head', 'body']);

const CELL = ['colspan', 'rowspan', 'valign', 'width', 'height', 'scope', 'headers'];
const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  '*': ['class', 'id', 'style', 'title', 'lang', 'dir', 'align'],
  a: ['href'],
  img: ['src', 'alt', 'width', 'height'],
  table: ['width', 'border', 'cellpadding', 'cellspacing', 'summary'],
  td: CELL,
  th: CELL,
  col: ['span', 'width'],
  colgroup: ['span', 'width'],
  ol: ['start', 'type', 'reversed'],
  ul: ['type'],
  li: ['value'],
  time: ['datetime'],
  blockquote: ['cite'],
  q: ['cite'],
};

/** Attributes that run script or load something: their removal is reported. */
const RISKY_ATTRIBUTE =
  /^(on|xmlns|xlink)|^(href|src|srcset|action|formaction|background|poster|data|codebase|ping|style|lowsrc|dynsrc)$/i;
const SAFE_HREF = /^(https:\/\/|mailto:|tel:|#)/i;
const DATA_IMAGE = /^data:image\/(png|jpeg|webp);base64,[a-z0-9+/=\s]+$/i;
/** CSS that can load something or run something. Comments are removed before this check. */
const UNSAFE_CSS =
  /url\s*\(|image-set\s*\(|image\s*\(|cross-fade\s*\(|element\s*\(|@import|\bsrc\s*:|expression\s*\(|behavior\s*:|-moz-binding|javascript:|vbscript:|\\/i;
const UNSAFE_DECLARATION = new RegExp(`[^;{}]*(?:${UNSAFE_CSS.source})[^;{}]*;?`, 'gi');

/** CSS without anything that loads or runs; `removed` says whether something went. */
export function sanitizeCss(css: string): { css: string; removed: boolean } {
  const uncommented = css.replace(/\/\*[\s\S]*?(\*\/|$)/g, '');
  if (!UNSAFE_CSS.test(uncommented)) return { css: uncommented, removed: false };
  const cleaned = uncommented.replace(UNSAFE_DECLARATION, '');
  // Belt and braces: whatever the cut left behind must be clean, else nothing is kept.
  return { css: UNSAFE_CSS.test(cleaned) ? '' : cleaned, removed: true };
}

function describe(value: string): string {
  const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(short);
}

export interface SanitizedHtml {
  html: string;
  /** What was taken out, e.g. `<script>`, `onerror attribute`, `href "javascript:…"`. */
  removed: string[];
}

/** Sanitises rendered template HTML to the allow-list above. */
export function sanitizeTemplateHtml(html: string): SanitizedHtml {
  const removed = new Set<string>();
  const filterAttributes = (tagName: string, attribs: sanitizeHtml.Attributes) => {
    const allowed = [...ALLOWED_ATTRIBUTES['*']!, ...(ALLOWED_ATTRIBUTES[tagName] ?? [])];
    const out: sanitizeHtml.Attributes = {};
    for (const [name, raw] of Object.entries(attribs)) {
      const value = raw.trim();
      if (!allowed.includes(name)) {
        // Harmless extras (data-*, aria-*, target …) go quietly; what can act or load is reported.
        if (RISKY_ATTRIBUTE.test(name)) removed.add(`${name} attribute on <${tagName}>`);
      } else if (name === 'style') {
        const css = sanitizeCss(value);
        if (css.removed) removed.add(`style ${describe(value)}`);
        if (css.css.trim()) out.style = css.css.trim();
      } else if (name === 'href' && !SAFE_HREF.test(value)) {
        removed.add(`href ${describe(value)} (only https:, mailto:, tel: and #)`);
      } else if (name === 'src' && !DATA_IMAGE.test(value)) {
        removed.add(`src ${describe(value)} (only inline PNG, JPEG or WebP data: URLs)`);
      } else {
        out[name] = value;
      }
    }
    return out;
  };

  const clean = sanitizeHtml(html, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedSchemes: ['https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['data'] },
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
    allowProtocolRelative: false,
    allowVulnerableTags: true, // <style>: its text is filtered below
    disallowedTagsMode: 'discard',
    nonTextTags: [
      'script',
      'textarea',
      'option',
      'noscript',
      'noembed',
      'noframes',
      'template',
      'iframe',
      'object',
      'title',
      'xmp',
      'svg',
      'math',
    ],
    transformTags: {
      '*': (tagName, attribs) => {
        if (!ALLOWED.has(tagName)) {
          if (!UNWRAPPED.has(tagName)) removed.add(`<${tagName}>`);
          return { tagName, attribs };
        }
        return { tagName, attribs: filterAttributes(tagName, attribs) };
      },
    },
  });

  // A <style> element's text is raw (never escaped), so it is filtered as CSS here; any
  // `<style` in the output is a real element: text and attribute values are escaped.
  const html2 = clean.replace(
    /(<style\b[^>]*>)([\s\S]*?)(<\/style\s*>|$)/gi,
    (_m, open: string, css: string, close: string) => {
      const safe = sanitizeCss(css);
      if (safe.removed) removed.add('<style> rules that load or run something');
      return open + safe.css + close;
    },
  );
  return { html: html2, removed: [...removed] };
}
