import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, VersionField } from '../../http/schemas.js';
import { VAT_CATEGORIES } from '../../shared/einvoice/model.js';

/**
 * VAT categories (UNTDID 5305 subset of EN 16931, BT-118/BT-151) a rate belongs to: `S`
 * standard rate, `Z` zero rate, `E` exempt (e.g. §19 UStG small business, §4 UStG), `AE`
 * reverse charge (§13b UStG), `K` intra-community supply (§4 Nr. 1b, §6a UStG), `G` export
 * outside the EU (§4 Nr. 1a, §6 UStG), `O` not subject to VAT (nicht steuerbar).
 */
export const TAX_CATEGORIES = VAT_CATEGORIES;
export type TaxCategory = (typeof TAX_CATEGORIES)[number];

const CATEGORY_TEXT =
  'VAT category (Steuerkategorie, BT-118/BT-151): `S` standard rate (rate above 0), `Z` zero rate, `E` exempt (steuerbefreit, e.g. §19 UStG Kleinunternehmer), `AE` reverse charge (§13b UStG), `K` intra-community supply (innergemeinschaftliche Lieferung), `G` export outside the EU (Ausfuhr), `O` not subject to VAT (nicht steuerbar). Every category but S needs rate 0; every category but S and Z needs an `exemptionReason` (422 otherwise).';
const REASON_TEXT =
  'Why no VAT is charged (Befreiungsgrund, BT-120), printed on invoices, e.g. `Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)`; required for every category but S and Z, and must be null for those.';
const CODE_TEXT =
  'Exemption reason code (BT-121) of the CEF VATEX list, e.g. `VATEX-EU-AE` reverse charge, `VATEX-EU-IC` intra-community supply, `VATEX-EU-G` export, `VATEX-EU-O` not subject to VAT, `VATEX-EU-79-C`, `VATEX-EU-132`; must be null for S and Z.';

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
  category: Type.Enum(TAX_CATEGORIES, { description: CATEGORY_TEXT }),
  exemptionReason: Type.String({ minLength: 1, maxLength: 500, description: REASON_TEXT }),
  exemptionCode: Type.String({
    maxLength: 30,
    pattern: '^VATEX-[A-Z0-9-]+$',
    description: CODE_TEXT,
  }),
};

export const TaxRateSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    rate: Type.Number({ description: 'Percentage, e.g. 19 or 7.5.' }),
    isDefault: Type.Boolean({ description: 'Whether this is the account’s default rate.' }),
    category: fields.category,
    exemptionReason: Nullable(Type.String(), 'Why no VAT is charged (BT-120); null for S and Z.'),
    exemptionCode: Nullable(Type.String(), 'VATEX exemption reason code (BT-121), or null.'),
  },
  { additionalProperties: false, description: 'A VAT rate of the account.' },
);
export type TaxRate = Static<typeof TaxRateSchema>;

export const CreateTaxRateBody = Type.Object(
  {
    name: fields.name,
    rate: fields.rate,
    isDefault: Type.Optional(fields.isDefault),
    category: Type.Optional(
      Type.Enum(TAX_CATEGORIES, {
        description: `${CATEGORY_TEXT} Omitted: \`S\`, or \`Z\` when the rate is 0.`,
      }),
    ),
    exemptionReason: Type.Optional(Nullable(fields.exemptionReason, REASON_TEXT)),
    exemptionCode: Type.Optional(Nullable(fields.exemptionCode, CODE_TEXT)),
  },
  { additionalProperties: false },
);
export type CreateTaxRate = Static<typeof CreateTaxRateBody>;

/**
 * Partial update: omitted fields stay. `isDefault: false` on the default is refused (409). The
 * category rules apply to the rate as it is after the update.
 */
export const UpdateTaxRateBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    rate: Type.Optional(fields.rate),
    isDefault: Type.Optional(fields.isDefault),
    category: Type.Optional(fields.category),
    exemptionReason: Type.Optional(
      Nullable(fields.exemptionReason, `${REASON_TEXT} Null clears it.`),
    ),
    exemptionCode: Type.Optional(Nullable(fields.exemptionCode, `${CODE_TEXT} Null clears it.`)),
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
