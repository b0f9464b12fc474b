/**
 * The small HTML pages people see after following a newsletter link: self-contained (no
 * external assets, inline style only), every dynamic value escaped.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Headers for every link page: nothing external may load, and the token must not leak on. */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  vary: 'Accept',
};

export function page(title: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Kontor</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f5f5f4;color:#1c1917;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.1);padding:2rem 2.5rem;max-width:32rem;margin:1rem}
h1{font-size:1.4rem;margin:0 0 .75rem}
p{line-height:1.5;margin:0}
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
</main>
</body>
</html>
`;
}

interface MediaRange {
  type: string;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').flatMap((part, order) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!type) return [];
    let q = 1;
    for (const p of params) {
      const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p);
      if (m) q = Number(m[1]);
    }
    return [{ type, q, order }];
  });
}

/** The most specific range matching `type` (exact, then `major/*`, then `*\/*`). */
function match(ranges: MediaRange[], type: string): MediaRange | undefined {
  const major = `${type.split('/')[0]}/*`;
  return (
    ranges.find((r) => r.type === type) ??
    ranges.find((r) => r.type === major) ??
    ranges.find((r) => r.type === '*/*')
  );
}

/**
 * Whether the client prefers JSON over HTML: a higher quality for `application/json`, or the
 * same quality with JSON listed first. No Accept header, or a browser's, means HTML.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const json = match(ranges, 'application/json');
  if (!json || json.q === 0) return false;
  const html = match(ranges, 'text/html');
  if (!html || html.q === 0) return true;
  if (json.q !== html.q) return json.q > html.q;
  return json.type !== '*/*' && json.order < html.order;
}
