import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { RecordMeta, VersionField } from '../../http/schemas.js';

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Name shown on documents, e.g. `USt 19 %`.',
  }),
  // "At most 2 decimals" is checked by the service through the decimal string: JSON Schema's
  // `multipleOf: 0.01` runs on binary floats in the validator and refuses values like 0.07.
  rate: Type.Number({
    minimum: 0,
    maximum: 100,
    description:
      'Percentage, 0–100 with at most 2 decimals (19 or 7.5); stored exactly as basis points.',
  }),
  isDefault: Type.Boolean({
    description:
      'The account’s default rate. Exactly one rate is the default: setting it here clears the previous one.',
  }),
};

export const TaxRateSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    rate: Type.Number({ description: 'Percentage, e.g. 19 or 7.5.' }),
    isDefault: Type.Boolean({ description: 'Whether this is the account’s default rate.' }),
  },
  { additionalProperties: false, description: 'A VAT rate of the account.' },
);
export type TaxRate = Static<typeof TaxRateSchema>;

export const CreateTaxRateBody = Type.Object(
  {
    name: fields.name,
    rate: fields.rate,
    isDefault: Type.Optional(fields.isDefault),
  },
  { additionalProperties: false },
);
export type CreateTaxRate = Static<typeof CreateTaxRateBody>;

/** Partial update: omitted fields stay. `isDefault: false` on the default is refused (409). */
export const UpdateTaxRateBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    rate: Type.Optional(fields.rate),
    isDefault: Type.Optional(fields.isDefault),
  },
  { additionalProperties: false },
);
export type UpdateTaxRate = Static<typeof UpdateTaxRateBody>;

export const ListTaxRatesQuery = Type.Object(
  {
    ...PageQuery,
    isDefault: Type.Optional(
      Type.Boolean({ description: 'Only the default rate (true) or only the others (false).' }),
    ),
  },
  { additionalProperties: false },
);
export type ListTaxRates = Static<typeof ListTaxRatesQuery>;
