import type { CustomerDocument } from '../documents/index.js';
import { textsFor, type PageTexts } from './customer-page.texts.js';

/** The customer page's HTML: server-rendered, no script, no inline style (a strict CSP). */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Text as HTML, safe in element content and in quoted attributes. */
export const esc = (value: string | number | null | undefined): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The stylesheet every customer page links (`/c/page.css`): served as a file, so no inline style. */
export const PAGE_CSS = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#5b6470;--line:#d9dde3;--accent:#0b5cad}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#f5f6f8}
main{max-width:52rem;margin:2rem auto;padding:2rem;background:#fff;border:1px solid var(--line);border-radius:8px}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .75rem}
.seller{color:var(--muted)}.muted{color:var(--muted);font-size:.9rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}dt{color:var(--muted)}dd{margin:0}
table{width:100%;border-collapse:collapse;margin-top:.5rem}th,td{padding:.4rem .5rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted)}.num{text-align:right;white-space:nowrap}
.totals td{border:0}.totals .sum td{font-weight:700;border-top:2px solid var(--ink)}
.open{font-size:1.25rem;font-weight:700}.notice{padding:.75rem 1rem;background:#eef6ee;border:1px solid #b7d9b7;border-radius:6px}
.pay{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}.pay img{width:180px;height:180px;image-rendering:pixelated}
a,button{color:var(--accent)}button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
label{display:block;margin:.5rem 0 .25rem}input[type=text]{font:inherit;padding:.4rem;width:100%;max-width:20rem;border:1px solid var(--line);border-radius:4px}
form.inline{display:inline-block;margin:.5rem 1rem .5rem 0}
ul.downloads{padding-left:1.2rem}
`.trim();

function shell(t: PageTexts, title: string, body: string): string {
  return `<!doctype html>
<html lang="${esc(t.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<link rel="stylesheet" href="/c/page.css">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** A page that only says something: not found, too many requests, refused. */
export function messagePage(
  language: string | undefined,
  kind: 'notFound' | 'tooMany' | 'unavailable' | 'refused' | 'quoteClosed',
  back?: string,
): string {
  const t = textsFor(language);
  const title = t[`${kind}Title`];
  const link = back ? `<p><a href="${esc(back)}">${esc(t.back)}</a></p>` : '';
  return shell(t, title, `<h1>${esc(title)}</h1>\n<p>${esc(t[kind])}</p>${link}`);
}

/** Where a quote stands for its customer (past its validity counts as EXPIRED). */
export type QuoteState = 'OPEN' | 'ACCEPTED' | 'DECLINED' | 'EXPIRED';

/** What the page shows beyond the document. */
export interface PageOptions {
  /** The page's own path (`/c/{token}`), the base of its links and forms. */
  base: string;
  /** The form token bound to the link. */
  csrf: string;
  /** Whether a GiroCode image is offered (`{base}/girocode.png`). */
  giroCode: boolean;
  /** Whether the pay-by-card form is shown. */
  card: boolean;
  /** A quote's state: OPEN shows the accept / decline forms, the others say how it ended. */
  quote?: QuoteState;
  notice?: 'paid' | 'decided';
}

/** Formatters by locale and currency: building an `Intl` formatter costs far more than using one. */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function formatter<T extends Intl.NumberFormat | Intl.DateTimeFormat>(
  key: string,
  make: () => T,
): T {
  let f = formatters.get(key) as T | undefined;
  if (!f) {
    f = make();
    if (formatters.size < 1000) formatters.set(key, f);
  }
  return f;
}

function money(t: PageTexts, amount: number, currency: string): string {
  try {
    return formatter(
      `m|${t.locale}|${currency}`,
      () => new Intl.NumberFormat(t.locale, { style: 'currency', currency }),
    ).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

const plain = (t: PageTexts, value: number) =>
  formatter(
    `n|${t.locale}`,
    () => new Intl.NumberFormat(t.locale, { maximumFractionDigits: 3 }),
  ).format(value);

function date(t: PageTexts, iso: string | null): string {
  if (!iso) return '';
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime())
    ? iso
    : formatter(
        `d|${t.locale}`,
        () => new Intl.DateTimeFormat(t.locale, { dateStyle: 'long', timeZone: 'UTC' }),
      ).format(d);
}

function titleOf(t: PageTexts, doc: CustomerDocument): string {
  const d = doc.document;
  const kind =
    d.invoiceType === 'CREDIT_NOTE'
      ? t.CREDIT_NOTE
      : d.documentType === 'INVOICE'
        ? t.INVOICE
        : (d.documentType as string) === 'QUOTE'
          ? t.QUOTE
          : t.document;
  return d.documentNumber ? `${kind} ${d.documentNumber}` : `${kind} ${d.name}`;
}

function linesTable(t: PageTexts, doc: CustomerDocument): string {
  const d = doc.document;
  const m = (v: number) => esc(money(t, v, d.currency));
  const rows = d.lineItems
    .map(
      (l) =>
        `<tr><td>${esc(l.description)}</td><td class="num">${esc(plain(t, l.quantity))}</td><td class="num">${m(l.unitPrice)}</td><td class="num">${m(l.netAmount)}</td></tr>`,
    )
    .join('\n');
  const taxes = d.taxes
    .map(
      (x) =>
        `<tr><td colspan="3" class="num">${esc(t.tax)} ${esc(plain(t, x.rate))} %</td><td class="num">${m(x.tax)}</td></tr>`,
    )
    .join('\n');
  return `<table>
<thead><tr><th scope="col">${esc(t.description)}</th><th scope="col" class="num">${esc(t.quantity)}</th><th scope="col" class="num">${esc(t.unitPrice)}</th><th scope="col" class="num">${esc(t.amount)}</th></tr></thead>
<tbody>
${rows}
</tbody>
<tbody class="totals">
<tr><td colspan="3" class="num">${esc(t.net)}</td><td class="num">${m(d.netTotal)}</td></tr>
${taxes}
<tr class="sum"><td colspan="3" class="num">${esc(t.gross)}</td><td class="num">${m(d.grossTotal)}</td></tr>
</tbody>
</table>`;
}

function paySection(t: PageTexts, doc: CustomerDocument, opts: PageOptions): string {
  const d = doc.document;
  if (doc.openMinor === null) return '';
  if (doc.openMinor === 0 || d.openAmount === null)
    return `<h2>${esc(t.pay)}</h2><p>${esc(t.paid)}</p>`;
  const bank = doc.seller.bankAccounts[0];
  const transfer = bank
    ? `<div><h3>${esc(t.bankTransfer)}</h3><dl><dt>IBAN</dt><dd>${esc(bank.iban)}</dd>${bank.bic ? `<dt>BIC</dt><dd>${esc(bank.bic)}</dd>` : ''}<dt>${esc(t.reference)}</dt><dd>${esc(d.documentNumber ?? '')}</dd></dl></div>`
    : '';
  const giro = opts.giroCode
    ? `<figure><img src="${esc(opts.base)}/girocode.png" alt="${esc(t.giroCodeAlt)}" width="180" height="180"><figcaption class="muted">${esc(t.giroCode)}</figcaption></figure>`
    : '';
  const card = opts.card
    ? `<form method="post" action="${esc(opts.base)}/pay"><input type="hidden" name="csrf" value="${esc(opts.csrf)}"><button type="submit">${esc(t.payByCard)}</button></form>`
    : '';
  return `<h2>${esc(t.pay)}</h2>
<p class="open">${esc(t.open)}: ${esc(money(t, d.openAmount, d.currency))}</p>
<div class="pay">${giro}${transfer}${card ? `<div>${card}</div>` : ''}</div>`;
}

function quoteSection(t: PageTexts, opts: PageOptions): string {
  if (!opts.quote) return '';
  if (opts.quote !== 'OPEN')
    return `<h2>${esc(t.quoteDecision)}</h2>\n<p>${esc(t[`quote${opts.quote}`])}</p>`;
  const form = (decision: 'ACCEPTED' | 'DECLINED', label: string, id: string) =>
    `<form method="post" action="${esc(opts.base)}/decision" class="inline"><input type="hidden" name="csrf" value="${esc(opts.csrf)}"><input type="hidden" name="decision" value="${decision}"><label for="${id}">${esc(t.yourName)}</label><input type="text" id="${id}" name="name" required maxlength="200" autocomplete="name"><p><button type="submit"${decision === 'DECLINED' ? ' class="secondary"' : ''}>${esc(label)}</button></p></form>`;
  return `<h2>${esc(t.quoteDecision)}</h2>
${form('ACCEPTED', t.accept, 'accept-name')}
${form('DECLINED', t.decline, 'decline-name')}`;
}

/** The page of one document. */
export function documentPage(doc: CustomerDocument, opts: PageOptions): string {
  const t = textsFor(doc.language);
  const d = doc.document;
  const title = titleOf(t, doc);
  const seller = doc.seller;
  const address = seller.address
    ? [
        seller.address.street,
        `${seller.address.postalCode ?? ''} ${seller.address.city ?? ''}`.trim(),
      ]
        .filter(Boolean)
        .map(esc)
        .join(', ')
    : '';
  const downloads = [
    doc.hasPdf ? `<li><a href="${esc(opts.base)}/pdf" download>${esc(t.pdf)}</a></li>` : '',
    doc.xrechnung
      ? `<li><a href="${esc(opts.base)}/xrechnung" download>${esc(t.xrechnung)}</a></li>`
      : '',
  ].join('');
  const notice = opts.notice
    ? `<p class="notice" role="status">${esc(opts.notice === 'paid' ? t.paymentPending : t.decided)}</p>`
    : '';
  const body = `<p class="seller">${esc(seller.legalName)}${address ? ` · ${address}` : ''}</p>
<h1>${esc(title)}</h1>
${notice}
<dl>
<dt>${esc(t.from)}</dt><dd>${esc(seller.legalName)}</dd>
${d.partnerName ? `<dt>${esc(t.to)}</dt><dd>${esc(d.partnerName)}</dd>` : ''}
<dt>${esc(t.date)}</dt><dd>${esc(date(t, d.creationDate))}</dd>
${d.dueDate ? `<dt>${esc(t.dueDate)}</dt><dd>${esc(date(t, d.dueDate))}</dd>` : ''}
</dl>
${linesTable(t, doc)}
${paySection(t, doc, opts)}
${quoteSection(t, opts)}
${downloads ? `<h2>${esc(t.downloads)}</h2><ul class="downloads">${downloads}</ul>` : ''}
<p class="muted">${esc(t.onlyThis)}${seller.email ? ` · <a href="mailto:${esc(seller.email)}">${esc(seller.email)}</a>` : ''}</p>`;
  return shell(t, `${title} – ${seller.legalName}`, body);
}
