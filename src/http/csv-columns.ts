import { ISO_DATE_PATTERN } from '../shared/dates.js';
import { isCurrency, minorDigits } from '../shared/money.js';
import { defuseFormula } from '../shared/spreadsheet.js';

/**
 * The columns and cells of the CSV lists (src/http/csv.ts, docs/api-conventions.md "CSV"):
 * which columns a list's item schema gives, and how each value is written for a German
 * spreadsheet.
 */

type Json = Record<string, unknown>;

export type Kind = 'value' | 'money' | 'date' | 'timestamp' | 'list' | 'json';

/** A step into a record: a property, or the first element of a list whose `key` is `equals`. */
export type Step = string | { key: string; equals: string };

export interface Column {
  name: string;
  path: Step[];
  kind: Kind;
  /** Money: where the record states its currency (the digits of the amount follow it). */
  currency?: Step[];
}

export interface ColumnOptions {
  /** Top-level properties left out (lists with an export of their own: a document's lines). */
  omit?: readonly string[];
}

const isPrimitive = (s: Json) =>
  s.enum !== undefined ||
  s.const !== undefined ||
  [s.type].flat().some((t) => t === 'string' || t === 'number' || t === 'integer');

/** Amount fields are decimal numbers in a record with a currency, except rates and percents. */
const NOT_MONEY = /rate$|percent|quantity/i;

/** The values of a string enum (`enum` or a union of `const`s), or undefined. */
function enumValues(s: Json | undefined): string[] | undefined {
  if (!s) return undefined;
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return s.enum;
  const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (branches?.every((b) => typeof b.const === 'string'))
    return branches.map((b) => b.const as string);
  return undefined;
}

/** Is `items` the shared `Address` schema (by reference or by its `$id`)? */
function isAddress(ref: Json | undefined, items: Json): boolean {
  const name = typeof ref?.$ref === 'string' ? ref.$ref.split('/').at(-1) : items.$id;
  return name === 'Address';
}

const stepName = (step: Step) => (typeof step === 'string' ? step : step.equals);

interface Walk {
  resolve: (ref: string) => Json | undefined;
  options: ColumnOptions;
}

/**
 * The columns of `schema`, in the order of its properties: nested objects flattened into
 * dotted names (`electronicAddress.scheme`); a list of addresses as one group of columns per
 * address type, filled from the first address of that type (`addresses.BILLING.city`); lists of plain values as one cell; anything else (other lists
 * of objects, free-form objects) as JSON in one cell.
 */
export function csvColumns(
  schema: Json,
  resolve: (ref: string) => Json | undefined,
  options: ColumnOptions = {},
): Column[] {
  return columnsOf(schema, { resolve, options }, [], undefined);
}

function deref(schema: Json | undefined, resolve: Walk['resolve']): Json {
  let s = schema ?? {};
  for (let i = 0; typeof s.$ref === 'string' && i < 10; i++) s = resolve(s.$ref) ?? {};
  return s;
}

function columnsOf(schema: Json, walk: Walk, path: Step[], currency: Step[] | undefined): Column[] {
  const s = deref(schema, walk.resolve);
  const name = path.map(stepName).join('.') || 'value';
  const branches = ((s.anyOf ?? s.oneOf) as Json[] | undefined)?.filter((b) => b.type !== 'null');
  if (branches && enumValues(s) === undefined) {
    // A nullable object (`Nullable(X)`) is X whose cells are empty when it is null.
    if (branches.length === 1) return columnsOf(branches[0]!, walk, path, currency);
    return [{ name, path, kind: 'value' }];
  }
  const types = [s.type].flat().filter((t) => t !== 'null');
  const properties = s.properties as Record<string, Json> | undefined;
  if (properties && path.length < 4 && Object.keys(properties).length > 0) {
    const own = deref(properties.currency, walk.resolve);
    const here = [own.type].flat().includes('string') ? [...path, 'currency'] : currency;
    return Object.entries(properties)
      .filter(([key]) => path.length > 0 || !walk.options.omit?.includes(key))
      .flatMap(([key, p]) => columnsOf(p, walk, [...path, key], here));
  }
  if (types.includes('object')) return [{ name, path, kind: 'json' }];
  if (types.includes('array')) {
    const items = deref(s.items as Json | undefined, walk.resolve);
    if (isPrimitive(items)) return [{ name, path, kind: 'list' }];
    const itemProperties = items.properties as Record<string, Json> | undefined;
    const kinds = enumValues(deref(itemProperties?.type, walk.resolve));
    if (
      itemProperties &&
      kinds &&
      isAddress(s.items as Json | undefined, items) &&
      path.length < 3
    ) {
      const { type: _type, ...rest } = itemProperties;
      const item = { ...items, properties: rest };
      return kinds.flatMap((equals) =>
        columnsOf(item, walk, [...path, { key: 'type', equals }], currency),
      );
    }
    return [{ name, path, kind: 'json' }];
  }
  const last = path.at(-1);
  const key = typeof last === 'string' ? last : '';
  const described = typeof s.description === 'string' ? s.description : '';
  // Response schemas often state a date only in words or in the name (`paymentDate`,
  // `markedAt`); the value is converted only when it has the shape (see csvCell).
  if (s.format === 'date-time' || /[a-z]At$/.test(key)) return [{ name, path, kind: 'timestamp' }];
  if (
    s.format === 'date' ||
    s.pattern === ISO_DATE_PATTERN ||
    described.includes('YYYY-MM-DD') ||
    /^date$|[a-z]Date$/.test(key)
  )
    return [{ name, path, kind: 'date' }];
  if (currency && types.includes('number') && !NOT_MONEY.test(key))
    return [{ name, path, kind: 'money', currency }];
  return [{ name, path, kind: 'value' }];
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `2025-03-01` → `01.03.2025`; anything else stays as it is. */
function germanDate(value: string): string {
  const m = ISO_DAY.exec(value);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : value;
}

/**
 * A timestamp as ISO 8601 in UTC to the second (`2026-11-28T08:15:00Z`): the zone stays in
 * the cell. Text that is no timestamp stays as it is.
 */
function utcTimestamp(value: string | Date): string {
  // Some `…At` fields hold a day (`lastDunnedAt`): written as the dates are.
  if (typeof value === 'string' && ISO_DAY.test(value)) return germanDate(value);
  if (typeof value === 'string' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return value;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An amount with the decimals of its currency (two when unknown) and a decimal comma. */
function moneyCell(value: number, currency: unknown): string {
  const digits = typeof currency === 'string' && isCurrency(currency) ? minorDigits(currency) : 2;
  return value.toFixed(digits).replace('.', ',');
}

/** Text as one cell: a formula-like start defused with `'`, quoted where it needs to be. */
export function textCell(text: string): string {
  const safe = defuseFormula(text);
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * One value as a cell: numbers with a decimal comma (and no guard: `-5` stays a number),
 * amounts (`money`) with the digits of `currency` (`1179,90`).
 */
export function csvCell(value: unknown, kind: Kind = 'value', currency?: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return '';
    return kind === 'money' ? moneyCell(value, currency) : String(value).replace('.', ',');
  }
  if (typeof value === 'boolean') return value ? 'ja' : 'nein';
  if (value instanceof Date) return utcTimestamp(value);
  if (kind === 'list' && Array.isArray(value))
    return textCell(value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', '));
  if (typeof value !== 'string') return textCell(JSON.stringify(value) ?? '');
  const text = value;
  if (kind === 'date') return textCell(germanDate(text));
  if (kind === 'timestamp') return textCell(utcTimestamp(text));
  return textCell(text);
}

/** The value at `path` in `record`: undefined where a step finds nothing. */
function valueAt(record: unknown, path: Step[]): unknown {
  let value: unknown = record;
  for (const step of path) {
    if (typeof step === 'string')
      value = typeof value === 'object' && value !== null ? (value as Json)[step] : undefined;
    else
      value = Array.isArray(value)
        ? (value as unknown[]).find(
            (v) => typeof v === 'object' && v !== null && (v as Json)[step.key] === step.equals,
          )
        : undefined;
  }
  return value;
}

/** The line of one record (CRLF included). */
export function csvLine(columns: Column[], record: unknown): string {
  return (
    columns
      .map((c) =>
        csvCell(
          valueAt(record, c.path),
          c.kind,
          c.currency ? valueAt(record, c.currency) : undefined,
        ),
      )
      .join(';') + '\r\n'
  );
}
