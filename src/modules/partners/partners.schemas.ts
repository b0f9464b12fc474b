import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, TagsSchema, VersionField } from '../../http/schemas.js';
import { AddressesSchema, ElectronicAddressSchema } from '../account/index.js';

export const PARTNER_TYPES = ['CUSTOMER', 'VENDOR'] as const;

/**
 * How invoices to the partner are delivered: ZUGFeRD (PDF with the EN 16931 XML inside, the
 * default), XRechnung as CII or UBL XML (required by German public buyers), or a plain PDF.
 */
export const EINVOICE_FORMATS = ['ZUGFERD', 'XRECHNUNG_CII', 'XRECHNUNG_UBL', 'PDF'] as const;
export type EinvoiceFormat = (typeof EINVOICE_FORMATS)[number];

/** Languages of documents and mails to the partner. */
export const PARTNER_LANGUAGES = ['de', 'en'] as const;

const VAT_ID_TEXT =
  'The buyer’s VAT identification number (USt-IdNr., BT-48), e.g. `ATU13585627`; checked against its country’s syntax (for DE also the check digit) and stored upper-case without spaces. Needed for reverse charge and intra-community supplies.';
const BUYER_REFERENCE_TEXT =
  'Buyer reference (Käuferreferenz, BT-10) put on every invoice to the partner, e.g. the Leitweg-ID of a public buyer. A value starting like a Leitweg-ID (2–12 digits and a hyphen) must be a valid one (format and check digits), e.g. `04011000-12345-03`.';

const PARTNER_NUMBER_TEXT =
  'The partner’s number: its customer number (Kundennummer) as a CUSTOMER, its vendor number (Lieferantennummer) as a VENDOR; printed on invoices and written to e-invoices as the buyer identifier (BT-46). Unique in the account (409 `duplicate` when another partner has it). Omitted on create: the next number of the type’s sequence (`GET /v1/partners/numbering`; customers 10001…, vendors 70001… unless configured). Letters, digits and `. _ / -`, starting with a letter or digit, at most 30 characters.';

/** A partner number as written: no spaces, nothing a CSV, XML or DATEV field would trip over. */
export const PartnerNumber = Type.String({
  minLength: 1,
  maxLength: 30,
  pattern: '^[0-9A-Za-z][0-9A-Za-z._/-]*$',
  description: PARTNER_NUMBER_TEXT,
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Company or person name.' }),
  type: Type.Enum(PARTNER_TYPES, { description: 'CUSTOMER or VENDOR (default CUSTOMER).' }),
  description: Type.String({ maxLength: 10_000, description: 'Free text.' }),
  website: Type.String({
    maxLength: 500,
    pattern: '^https?://[^\\s]+$',
    description: 'http(s) URL.',
  }),
  logoFileId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Id of an uploaded image file (`fil_…`).',
  }),
  vatId: Type.String({ minLength: 1, maxLength: 20, description: VAT_ID_TEXT }),
  buyerReference: Type.String({ minLength: 1, maxLength: 200, description: BUYER_REFERENCE_TEXT }),
  electronicAddress: ElectronicAddressSchema,
  einvoiceFormat: Type.Enum(EINVOICE_FORMATS, {
    description:
      'E-invoice format (E-Rechnungsformat) of invoices to the partner: `ZUGFERD` (default; PDF with EN 16931 XML), `XRECHNUNG_CII`, `XRECHNUNG_UBL` (XML, e.g. for public buyers) or `PDF` (no e-invoice).',
  }),
  language: Type.Enum(PARTNER_LANGUAGES, {
    description:
      'Language (Sprache) of documents and mails to the partner: `de` (default) or `en`.',
  }),
  dunningBlocked: Type.Boolean({
    description:
      'Blocked from dunning (Mahnsperre): dunning runs send the partner no payment reminder or dunning letter. Default false.',
  }),
  consumer: Type.Boolean(),
};

const CONSUMER_TEXT =
  'Whether the partner is a consumer (Verbraucher, §13 BGB) rather than a business. Sets the default interest of dunning letters (§288 BGB: base rate + 5 points for consumers, + 9 for businesses) and whether the EUR 40 flat fee of §288 (5) BGB may be claimed (businesses only). Unset: treated as a consumer, the reading that never claims too much.';

export const PartnerSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    type: fields.type,
    description: Nullable(Type.String(), 'Free text.'),
    website: Nullable(Type.String(), 'http(s) URL.'),
    logoFileId: Nullable(Type.String(), 'Id of an uploaded image file (`fil_…`).'),
    addresses: AddressesSchema,
    tags: TagsSchema,
    vatId: Nullable(Type.String(), 'The buyer’s VAT identification number (USt-IdNr., BT-48).'),
    buyerReference: Nullable(
      Type.String(),
      'Buyer reference (Käuferreferenz, BT-10), e.g. a Leitweg-ID.',
    ),
    electronicAddress: Nullable(
      ElectronicAddressSchema,
      'Electronic address of the buyer (elektronische Adresse des Käufers, BT-49).',
    ),
    einvoiceFormat: Type.Enum(EINVOICE_FORMATS, {
      description: 'E-invoice format of invoices to the partner; `ZUGFERD` unless set.',
    }),
    language: Type.Enum(PARTNER_LANGUAGES, {
      description: 'Language of documents and mails to the partner; `de` unless set.',
    }),
    dunningBlocked: Type.Boolean({ description: 'Blocked from dunning (Mahnsperre).' }),
    consumer: Nullable(
      Type.Boolean(),
      'A consumer (§13 BGB) or a business; null: not known, dunning treats the partner as a consumer.',
    ),
    partnerNumber: Nullable(
      Type.String(),
      'Customer number (Kundennummer) of a CUSTOMER, vendor number (Lieferantennummer) of a VENDOR; unique in the account. Every partner created through the API has one.',
    ),
  },
  { additionalProperties: false, description: 'A customer or vendor.' },
);
export type Partner = Static<typeof PartnerSchema>;

export const CreatePartnerBody = Type.Object(
  {
    name: fields.name,
    type: Type.Optional(fields.type),
    description: Type.Optional(fields.description),
    website: Type.Optional(fields.website),
    logoFileId: Type.Optional(fields.logoFileId),
    addresses: Type.Optional(AddressesSchema),
    tags: Type.Optional(TagsSchema),
    vatId: Type.Optional(Nullable(fields.vatId, VAT_ID_TEXT)),
    buyerReference: Type.Optional(Nullable(fields.buyerReference, BUYER_REFERENCE_TEXT)),
    electronicAddress: Type.Optional(
      Nullable(
        fields.electronicAddress,
        'Electronic address of the buyer (elektronische Adresse des Käufers, BT-49) for e-invoices; required by XRechnung.',
      ),
    ),
    einvoiceFormat: Type.Optional(fields.einvoiceFormat),
    language: Type.Optional(fields.language),
    dunningBlocked: Type.Optional(fields.dunningBlocked),
    consumer: Type.Optional(Nullable(fields.consumer, CONSUMER_TEXT)),
    partnerNumber: Type.Optional(PartnerNumber),
  },
  { additionalProperties: false },
);
export type CreatePartner = Static<typeof CreatePartnerBody>;

/** Partial update: omitted fields stay, `null` clears an optional one (decisions §6). */
export const UpdatePartnerBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    type: Type.Optional(fields.type),
    description: Type.Optional(Nullable(fields.description, 'Free text; null clears it.')),
    website: Type.Optional(Nullable(fields.website, 'http(s) URL; null clears it.')),
    logoFileId: Type.Optional(Nullable(fields.logoFileId, 'Logo file id; null clears it.')),
    addresses: Type.Optional(Nullable(AddressesSchema, 'Addresses; null clears them.')),
    tags: Type.Optional(Nullable(TagsSchema, 'Tags; null clears them.')),
    vatId: Type.Optional(Nullable(fields.vatId, 'Buyer VAT id (BT-48); null clears it.')),
    buyerReference: Type.Optional(
      Nullable(
        fields.buyerReference,
        'Buyer reference (BT-10), e.g. a Leitweg-ID; null clears it.',
      ),
    ),
    electronicAddress: Type.Optional(
      Nullable(fields.electronicAddress, 'Electronic address (BT-49); null clears it.'),
    ),
    einvoiceFormat: Type.Optional(
      Nullable(fields.einvoiceFormat, 'E-invoice format; null resets it to `ZUGFERD`.'),
    ),
    language: Type.Optional(Nullable(fields.language, 'Language; null resets it to `de`.')),
    dunningBlocked: Type.Optional(fields.dunningBlocked),
    consumer: Type.Optional(Nullable(fields.consumer, 'Consumer or business; null: not known.')),
    partnerNumber: Type.Optional(PartnerNumber),
  },
  { additionalProperties: false },
);
export type UpdatePartner = Static<typeof UpdatePartnerBody>;

export const ListPartnersQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.Enum(PARTNER_TYPES, { description: 'Only partners of this type.' })),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only partners with this tag.' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Case- and accent-insensitive search in the name; also finds partners whose number starts with it.',
      }),
    ),
    partnerNumber: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 30,
        description: 'Only the partner with exactly this number (customer or vendor number).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListPartners = Static<typeof ListPartnersQuery>;
