import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, TagsSchema, VersionField } from '../../http/schemas.js';
import { CURRENCIES } from '../../shared/money.js';

export const PRODUCT_TYPES = ['SERVICE', 'GOODS'] as const;

/** The largest unit price in major units; keeps minor units of every currency a safe integer. */
export const MAX_UNIT_PRICE = 1_000_000_000_000;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Product or service name.' }),
  type: Type.Enum(PRODUCT_TYPES, { description: 'SERVICE or GOODS (default SERVICE).' }),
  unitPrice: Type.Number({
    minimum: 0,
    maximum: MAX_UNIT_PRICE,
    description:
      'Net price of one unit in major units of `currency` (12.5 = 12.50 EUR), with no more ' +
      'decimals than the currency has (12.345 EUR and 1.5 JPY are refused); not negative.',
  }),
  currency: Type.Enum(CURRENCIES, { description: 'ISO 4217 currency code of `unitPrice`.' }),
  unit: Type.String({
    maxLength: 50,
    description:
      'Unit the price is for: best a UN/ECE Rec. 20 code (`HUR` hour, `DAY`, `MON`, `C62` one, `H87` piece, `KGM`, `LS` lump sum, …); common words are read as their code (`Std.`, `Stunde` → HUR, `Stück` → H87, `kg` → KGM, `pauschal` → LS). Invoice lines made from the product take that unit (`unitCode`) unless they name their own.',
  }),
  description: Type.String({ maxLength: 10_000, description: 'Free text.' }),
  photoFileId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Id of an uploaded image file (`fil_…`).',
  }),
  taxRateId: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'Id of a tax rate of this account (`txr_…`); another id answers 422 reference_not_found.',
  }),
};

export const ProductSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    type: fields.type,
    unitPrice: Type.Number({ description: 'Net price of one unit in major units of `currency`.' }),
    currency: Type.String({ description: 'ISO 4217 currency code of `unitPrice`.' }),
    unit: Nullable(Type.String(), 'Unit the price is for, as written, e.g. `HUR` or `Stunde`.'),
    unitCode: Nullable(
      Type.String(),
      'The UN/ECE Rec. 20 code invoice lines take from `unit` (BT-130), e.g. `HUR` for `Std.`; null when `unit` is empty or not recognised (lines then use `C62`).',
    ),
    description: Nullable(Type.String(), 'Free text.'),
    photoFileId: Nullable(Type.String(), 'Id of an uploaded image file (`fil_…`).'),
    taxRateId: Nullable(Type.String(), 'Id of the tax rate that applies (`txr_…`).'),
    tags: TagsSchema,
  },
  { additionalProperties: false, description: 'A service or a good the account sells.' },
);
export type Product = Static<typeof ProductSchema>;

export const CreateProductBody = Type.Object(
  {
    name: fields.name,
    type: Type.Optional(fields.type),
    unitPrice: fields.unitPrice,
    currency: fields.currency,
    unit: Type.Optional(fields.unit),
    description: Type.Optional(fields.description),
    photoFileId: Type.Optional(fields.photoFileId),
    taxRateId: Type.Optional(fields.taxRateId),
    tags: Type.Optional(TagsSchema),
  },
  { additionalProperties: false },
);
export type CreateProduct = Static<typeof CreateProductBody>;

/**
 * Partial update: omitted fields stay, `null` clears an optional one (decisions §6). A new
 * `currency` without `unitPrice` keeps the stored amount, which must fit the new currency.
 */
export const UpdateProductBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    type: Type.Optional(fields.type),
    unitPrice: Type.Optional(fields.unitPrice),
    currency: Type.Optional(fields.currency),
    unit: Type.Optional(Nullable(fields.unit, 'Unit; null clears it.')),
    description: Type.Optional(Nullable(fields.description, 'Free text; null clears it.')),
    photoFileId: Type.Optional(Nullable(fields.photoFileId, 'Photo file id; null clears it.')),
    taxRateId: Type.Optional(Nullable(fields.taxRateId, 'Tax rate id; null clears it.')),
    tags: Type.Optional(Nullable(TagsSchema, 'Tags; null clears them.')),
  },
  { additionalProperties: false },
);
export type UpdateProduct = Static<typeof UpdateProductBody>;

export const ListProductsQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.Enum(PRODUCT_TYPES, { description: 'Only products of this type.' })),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only products with this tag.' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case- and accent-insensitive search in the name.',
      }),
    ),
    taxRateId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only products with this tax rate (`txr_…`).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListProducts = Static<typeof ListProductsQuery>;
