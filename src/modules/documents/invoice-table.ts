import { escapeHtml } from '../../shared/pdf/layout.js';
import {
  formatDisplayDate,
  formatMoney,
  formatNumber,
  INVOICE_LABELS,
  unitName,
  type DateFormat,
  type NumberFormat,
} from '../../shared/templating/index.js';
import type { DocumentRow, StoredLine, StoredTaxLine } from './documents.repository.js';

/**
 * The standard table of an invoice's lines, VAT per rate and totals, appended to a generated
 * invoice whose template does not lay the lines out itself (decisions §9: the PDF of an
 * invoice shows what it bills). Every figure is written from integer minor units, quantities
 * (thousandths) and rates (basis points) with the templating module's formatters, in the
 * account's formats; every text is escaped. A rate of another VAT category than S names its
 * category, and the exemption reasons follow the totals (§ 14 (4) Nr. 9 UStG); a credit note
 * has no due date line. The system invoice layout does all this and more in the partner's
 * language; this table is the German fallback for templates of their own.
 */

/** A template lays out the lines itself when one of its sources reads `document.lineItems`. */
const LINE_ITEMS_USE = /\bdocument\s*(?:\.\s*lineItems\b|\[\s*(['"])lineItems\1\s*\])/;

export function templateShowsLines(sources: (string | null)[]): boolean {
  return sources.some((s) => s !== null && LINE_ITEMS_USE.test(s));
}

/** `value / 10^places` as a decimal string, built from the integer's digits. */
function decimal(value: number, places: number): string {
  const abs = Math.abs(value)
    .toString()
    .padStart(places + 1, '0');
  return `${value < 0 ? '-' : ''}${abs.slice(0, -places)}.${abs.slice(-places)}`;
}

export interface TableFormats {
  numberFormat: NumberFormat;
  dateFormat: DateFormat;
}

const CELL = 'padding:1.2mm 1.5mm;vertical-align:top;';
const RIGHT = `${CELL}text-align:right;white-space:nowrap;`;
const HEAD = 'border-bottom:0.3mm solid #333;font-weight:bold;';

/** The HTML of the table, or undefined when the document is no invoice or has no lines. */
export function invoiceTableHtml(row: DocumentRow, formats: TableFormats): string | undefined {
  if (row.document_type !== 'INVOICE') return undefined;
  const lines = JSON.parse(row.line_items) as StoredLine[];
  if (lines.length === 0) return undefined;
  const taxes = JSON.parse(row.tax_breakdown) as StoredTaxLine[];
  const { numberFormat } = formats;
  const currency = row.currency;
  const money = (minor: number | string) => {
    const n = Number(minor);
    return escapeHtml(formatMoney(n, currency, numberFormat) ?? `${n} ${currency}`);
  };
  const num = (text: string) => escapeHtml(formatNumber(text, numberFormat) ?? text);
  const percent = (bp: number) => `${num(decimal(bp, 2))} %`;

  const quantity = (l: StoredLine) => {
    const unit = unitName(l.unitCode ?? null, l.quantityMilli / 1000, 'de');
    return num(decimal(l.quantityMilli, 3)) + (unit ? ` ${escapeHtml(unit)}` : '');
  };
  const category = (t: StoredTaxLine) => {
    const name = t.category && t.category !== 'S' ? INVOICE_LABELS.de.category[t.category] : '';
    return name ? ` (${escapeHtml(name)})` : '';
  };
  const reasons = [
    ...new Set(taxes.flatMap((t) => (t.exemptionReason ? [t.exemptionReason] : []))),
  ];

  const body = lines
    .map(
      (l, i) =>
        `<tr style="page-break-inside:avoid;border-bottom:0.2mm solid #ccc">` +
        `<td style="${RIGHT}">${i + 1}</td>` +
        `<td style="${CELL}">${escapeHtml(l.description)}</td>` +
        `<td style="${RIGHT}">${quantity(l)}</td>` +
        `<td style="${RIGHT}">${money(l.unitPriceMinor)}</td>` +
        `<td style="${RIGHT}">${percent(l.rateBp)}</td>` +
        `<td style="${RIGHT}">${money(l.netMinor)}</td></tr>`,
    )
    .join('');
  const head =
    `<tr><th style="${RIGHT}${HEAD}">Pos.</th><th style="${CELL}${HEAD}text-align:left">Beschreibung</th>` +
    `<th style="${RIGHT}${HEAD}">Menge</th><th style="${RIGHT}${HEAD}">Einzelpreis</th>` +
    `<th style="${RIGHT}${HEAD}">USt.</th><th style="${RIGHT}${HEAD}">Netto</th></tr>`;
  const totals = [
    `<tr><td style="${CELL}">Nettobetrag</td><td style="${RIGHT}">${money(row.net_total)}</td></tr>`,
    ...taxes.map(
      (t) =>
        `<tr><td style="${CELL}">zzgl. ${percent(t.rateBp)} USt.${category(t)} auf ${money(t.netMinor)}</td>` +
        `<td style="${RIGHT}">${money(t.taxMinor)}</td></tr>`,
    ),
    `<tr style="font-weight:bold;border-top:0.3mm solid #333"><td style="${CELL}">Gesamtbetrag</td>` +
      `<td style="${RIGHT}">${money(row.gross_total)}</td></tr>`,
  ].join('');
  const due =
    row.due_date && row.invoice_type !== 'CREDIT_NOTE'
      ? formatDisplayDate(row.due_date, formats.dateFormat)
      : undefined;
  return (
    `<div class="k-invoice" style="margin-top:8mm">` +
    `<table class="k-invoice-lines" style="width:100%;border-collapse:collapse;font-size:9.5pt">` +
    `<thead>${head}</thead><tbody>${body}</tbody></table>` +
    `<table class="k-invoice-totals" style="width:60%;margin:4mm 0 0 auto;border-collapse:collapse;font-size:9.5pt;page-break-inside:avoid">` +
    `<tbody>${totals}</tbody></table>` +
    reasons.map((r) => `<p style="margin-top:3mm">${escapeHtml(r)}</p>`).join('') +
    (due ? `<p style="margin-top:4mm">Zahlbar bis ${escapeHtml(due)}.</p>` : '') +
    `</div>`
  );
}
