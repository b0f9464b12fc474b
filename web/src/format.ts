/**
 * Numbers and money as people read them, in the account's `numberFormat` (the API always
 * answers JSON numbers). Kept small: Intl does the work, the account says which convention.
 */
export type NumberFormat = '1.234,56' | '1,234.56';

/** The Intl locale that writes numbers the way the account's format says. */
export function numberLocale(format: NumberFormat | undefined): string {
  return format === '1,234.56' ? 'en-GB' : 'de-DE';
}

export function formatMoney(amount: number, currency: string, format?: NumberFormat): string {
  return new Intl.NumberFormat(numberLocale(format), { style: 'currency', currency }).format(
    amount,
  );
}

/** A tax rate's percentage (19, 7.5) as `19 %` / `7,5 %`. */
export function formatPercent(rate: number, format?: NumberFormat): string {
  return new Intl.NumberFormat(numberLocale(format), {
    style: 'percent',
    maximumFractionDigits: 2,
  }).format(rate / 100);
}

/** A number for an input field, without grouping (`12,5` / `12.5`). */
export function formatDecimalInput(value: number, format?: NumberFormat): string {
  return new Intl.NumberFormat(numberLocale(format), {
    useGrouping: false,
    maximumFractionDigits: 20,
  }).format(value);
}

/**
 * Reads what a person typed (`1.234,56` or `1,234.56`, by the account's format) as a number;
 * null when it is no number at all. Range and decimals are the API's to judge.
 */
export function parseDecimal(text: string, format?: NumberFormat): number | null {
  const [group, decimal] = format === '1,234.56' ? [',', '.'] : ['.', ','];
  const plain = text.replace(/\s/g, '').split(group).join('').replace(decimal, '.');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : null;
}

/** A tax rate for a picker or a cell: its name, with the percentage unless the name says it. */
export function taxRateLabel(rate: { name: string; rate: number }, format?: NumberFormat): string {
  const percent = formatPercent(rate.rate, format);
  const plain = (text: string) => text.replace(/\s+/g, ' ');
  return plain(rate.name).includes(plain(percent)) ? rate.name : `${rate.name} (${percent})`;
}
