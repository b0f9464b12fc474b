/**
 * Typed search parameters from a small description: each field is free text (`'text'`, cut
 * to 100 characters), a calendar day (`'date'`, YYYY-MM-DD) or one of a list of values. What
 * does not fit is dropped, so a hand-edited link shows the unfiltered screen instead of an
 * error. One parser for every screen: it sits in the entry chunk with the router.
 */
type Field = 'text' | 'date' | readonly string[];

function parse(field: Field, value: unknown): string | undefined {
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string' || value === '') return undefined;
  if (field === 'text') return value.slice(0, 100);
  if (field === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  return field.includes(value) ? value : undefined;
}

/** A `validateSearch` for the router that keeps the fields of `spec` that parse. */
export function searchParser<T extends object>(spec: Record<keyof T & string, Field>) {
  return (search: Record<string, unknown>): T => {
    const out: Record<string, string> = {};
    for (const [name, field] of Object.entries<Field>(spec)) {
      const value = parse(field, search[name]);
      if (value !== undefined) out[name] = value;
    }
    return out as T;
  };
}
