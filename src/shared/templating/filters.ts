/**
 * The filters a document needs besides Liquid's own: `date`, `money` and `number` in the
 * account's formats (decisions §6), and `newline_to_br` that escapes first. The formats are
 * read from the render scope under a symbol, so no template can name or change them.
 */
import type { Context, Liquid } from 'liquidjs';
import {
  formatDisplayDate,
  formatMoney,
  formatNumber,
  type DateFormat,
  type NumberFormat,
} from './format.js';

/** Formatting settings the filters read; kept under a symbol no template can name. */
export const FORMATS = Symbol('formats');
export interface Formats {
  dateFormat: DateFormat;
  numberFormat: NumberFormat;
  currency: string;
  today: string;
}

function formatsOf(ctx: Context): Formats {
  return (ctx.environments as { [FORMATS]: Formats })[FORMATS];
}

const escapeMap: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapeMap[c]!);
/** Strings and scalars as text; objects and nothing print nothing. */
export const text = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
      ? String(value)
      : '';

/** Adds the document filters to `liquid` (replacing Liquid's own `date`). */
export function registerFilters(liquid: Liquid): void {
  liquid.registerFilter(
    'date',
    function (this: { context: Context }, value: unknown, style?: unknown) {
      if (style !== undefined && style !== 'short' && style !== 'long')
        throw new Error('date takes no argument, "short" or "long"');
      const f = formatsOf(this.context);
      const input = value === 'now' || value === 'today' ? f.today : value;
      return (
        formatDisplayDate(input, f.dateFormat, style === 'long' ? 'long' : 'short') ?? text(value)
      );
    },
  );
  liquid.registerFilter(
    'money',
    function (this: { context: Context }, value: unknown, currency?: unknown) {
      const f = formatsOf(this.context);
      const code = typeof currency === 'string' && currency !== '' ? currency : f.currency;
      return formatMoney(value, code, f.numberFormat) ?? text(value);
    },
  );
  liquid.registerFilter(
    'number',
    function (this: { context: Context }, value: unknown, places?: unknown) {
      const f = formatsOf(this.context);
      const digits =
        typeof places === 'number' && Number.isInteger(places) && places >= 0 && places <= 10
          ? places
          : undefined;
      if (places !== undefined && digits === undefined)
        throw new Error('number takes the count of decimals, 0 to 10');
      return formatNumber(value, f.numberFormat, digits) ?? text(value);
    },
  );
  // Line breaks of a text field as <br>: the text itself is escaped first.
  liquid.registerFilter('newline_to_br', {
    raw: true,
    handler(value: unknown) {
      return escapeHtml(text(value)).replace(/\r?\n/g, '<br />\n');
    },
  });
}
