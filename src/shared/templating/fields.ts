/**
 * TemplateField: the extra placeholders a template declares, and how their values are
 * resolved for a render (supplied value, default, sample) and checked against their type.
 */
import { isIsoDate } from '../dates.js';
import { toMinor } from '../money.js';
import type { Formats } from './filters.js';
import type { TemplatePart, TemplateProblem } from './problems.js';

export const FIELD_TYPES = ['text', 'number', 'date', 'money'] as const;
export type TemplateFieldType = (typeof FIELD_TYPES)[number];

/** An extra placeholder a template declares (TemplateField). `default` is in API units. */
export interface TemplateField {
  key: string;
  label: string;
  type: TemplateFieldType;
  required?: boolean;
  default?: string | number | null;
}

function sampleFieldValue(field: TemplateField, today: string): unknown {
  switch (field.type) {
    case 'text':
      return `[${field.label}]`;
    case 'number':
      return 42;
    case 'date':
      return today;
    case 'money':
      return 100;
  }
}

/**
 * A field's value in the render: the supplied one, else its default, else (compiling with
 * sample data) a sample. Money becomes integer minor units of the account currency, dates
 * must be `YYYY-MM-DD`; wrong values and missing required ones are problems.
 */
export function resolveFields(
  defs: TemplateField[],
  supplied: Record<string, unknown>,
  mode: 'sample' | 'strict',
  formats: Formats,
  usedIn: (key: string) => TemplatePart[],
): { values: Record<string, unknown>; problems: TemplateProblem[] } {
  const values: Record<string, unknown> = {};
  const problems: TemplateProblem[] = [];
  for (const field of defs) {
    const given = Object.hasOwn(supplied, field.key) ? supplied[field.key] : undefined;
    let value: unknown = given ?? field.default ?? undefined;
    const placeholder = `fields.${field.key}`;
    if (value === undefined && mode === 'sample') value = sampleFieldValue(field, formats.today);
    if (value === undefined) {
      values[field.key] = null;
      if (field.required)
        for (const part of usedIn(field.key))
          problems.push({
            part,
            code: 'missing_required_field',
            message: `The required field "${field.label}" (${field.key}) has no value and no default.`,
            placeholder,
          });
      continue;
    }
    const converted = convertFieldValue(field.type, value, formats.currency);
    if (converted === undefined) {
      values[field.key] = null;
      for (const part of usedIn(field.key))
        problems.push({
          part,
          code: 'invalid_field_value',
          message: `The value of "${field.label}" (${field.key}) is not a valid ${field.type}${field.type === 'date' ? ' (YYYY-MM-DD)' : field.type === 'money' ? ` in ${formats.currency}` : ''}.`,
          placeholder,
        });
      continue;
    }
    values[field.key] = converted;
  }
  return { values, problems };
}

/** A field value in render units, or undefined when it does not fit the type. */
export function convertFieldValue(
  type: TemplateFieldType,
  value: unknown,
  currency: string,
): string | number | undefined {
  switch (type) {
    case 'text':
      return typeof value === 'string' ? value : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'date':
      return typeof value === 'string' && isIsoDate(value) ? value : undefined;
    case 'money':
      return typeof value === 'number' ? toMinor(value, currency) : undefined;
  }
}
