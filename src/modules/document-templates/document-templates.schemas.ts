import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, VersionField } from '../../http/schemas.js';
import { FIELD_TYPES } from '../../shared/templating/index.js';

export const TEMPLATE_DOCUMENT_TYPES = ['LETTER', 'OFFER', 'INVOICE'] as const;
export const VISIBILITIES = ['ALL_PAGES', 'FIRST_PAGE_ONLY'] as const;
export const LOGO_POSITIONS = ['TOP_LEFT', 'TOP_RIGHT'] as const;
export const TEMPLATE_STATUSES = ['DRAFT', 'PUBLISHED'] as const;
export const SYSTEM_KEYS = [
  'TERMINATION',
  'NOTICE',
  'INVOICE',
  'CREDIT_NOTE',
  'PAYMENT_REMINDER',
  'DUNNING',
  'QUOTE',
  'ORDER_CONFIRMATION',
] as const;
export type SystemKey = (typeof SYSTEM_KEYS)[number];

/** Template sources are capped at 200 KiB each (decisions §6), measured in UTF-8 bytes. */
export const MAX_SOURCE_BYTES = 200 * 1024;
/** Field keys: identifiers, so `{{ fields.key }}` and `{{ key }}` both work. */
export const FIELD_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,63}$';

const templateFieldProperties = {
  key: Type.String({
    pattern: FIELD_KEY_PATTERN,
    description:
      'Placeholder name: a letter, then letters, digits or `_` (up to 64); unique within the template. Read it as `{{ fields.<key> }}` or `{{ <key> }}`. Not one of account, company, partner, contract, document, invoice, today, fields.',
  }),
  label: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'What people see, e.g. `Kündigungsgrund`.',
  }),
  type: Type.Enum(FIELD_TYPES, {
    description:
      'text (a string), number (a JSON number), date (YYYY-MM-DD; print with `| date`) or money (major units of the account currency in the API; integer minor units in the template, print with `| money`).',
  }),
  required: Type.Optional(
    Type.Boolean({
      description: 'A document cannot be generated without a value (default false).',
    }),
  ),
  default: Type.Optional(
    Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Null()], {
      description: 'Used when no value is supplied; must fit `type`. null: no default.',
    }),
  ),
};

/** TemplateField as a shared component (`$ref: TemplateField`), listed in SHARED_SCHEMAS. */
export const TemplateFieldSchema = Type.Object(templateFieldProperties, {
  $id: 'TemplateField',
  additionalProperties: false,
  description: 'TemplateField: an extra placeholder the template declares.',
});

const TemplateFieldItem = Type.Ref('TemplateField');

const source = (what: string) =>
  Type.String({
    maxLength: MAX_SOURCE_BYTES,
    description: `${what}: HTML with Liquid placeholders (\`{{ partner.name }}\`, \`{% if %}\`, \`{% for %}\`); at most 200 KiB.`,
  });

const compiled = (what: string) =>
  Type.String({
    maxLength: 4 * MAX_SOURCE_BYTES,
    description: `${what}, computed by the server from the sources with sample data; a value sent by the client is ignored.`,
  });

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the template.' }),
  documentType: Type.Enum(TEMPLATE_DOCUMENT_TYPES, {
    description:
      'LETTER, OFFER or INVOICE (default LETTER). INVOICE: a layout for invoices and credit notes that reads `document` and `invoice`.',
  }),
  contentSource: Type.String({
    minLength: 1,
    maxLength: MAX_SOURCE_BYTES,
    description:
      'The body: HTML with Liquid placeholders (`{{ partner.name }}`, `{% if %}`, `{% for %}`); at most 200 KiB. The context offers account, company (the seller), partner, contract, document, invoice (labels in the partner’s language, tax notes, amount due, GiroCode), today and the fields; filters `date`, `money`, `number` write the account’s formats.',
  }),
  fields: Type.Array(TemplateFieldItem, {
    maxItems: 50,
    description: 'Extra placeholders (TemplateField), at most 50, keys unique.',
  }),
  headerSource: source('Page header'),
  headerVisibility: Type.Enum(VISIBILITIES, {
    description: 'Header on ALL_PAGES or FIRST_PAGE_ONLY (default ALL_PAGES).',
  }),
  footerSource: source('Page footer'),
  footerVisibility: Type.Enum(VISIBILITIES, {
    description: 'Footer on ALL_PAGES or FIRST_PAGE_ONLY (default ALL_PAGES).',
  }),
  showLogo: Type.Boolean({ description: 'Print the account logo (default false).' }),
  logoPosition: Type.Enum(LOGO_POSITIONS, {
    description: 'Where the logo goes: TOP_LEFT or TOP_RIGHT (default TOP_RIGHT).',
  }),
  status: Type.Enum(TEMPLATE_STATUSES, {
    description:
      'DRAFT or PUBLISHED (default DRAFT). Only PUBLISHED templates generate documents, and a PUBLISHED template must compile without any problem.',
  }),
  systemKey: Type.Enum(SYSTEM_KEYS, {
    description:
      'Set only on the system templates every account is seeded with (TERMINATION, NOTICE, INVOICE, CREDIT_NOTE, PAYMENT_REMINDER, DUNNING, QUOTE, ORDER_CONFIRMATION); clients cannot create one with a systemKey nor change it.',
  }),
  compiledHeaderHtml: compiled('Rendered header'),
  compiledContentHtml: compiled('Rendered body'),
  compiledFooterHtml: compiled('Rendered footer'),
};

export const DocumentTemplateSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    documentType: fields.documentType,
    contentSource: Type.String({ description: 'The body source (HTML with Liquid placeholders).' }),
    fields: Type.Array(TemplateFieldItem, { description: 'Extra placeholders (TemplateField).' }),
    headerSource: Nullable(Type.String(), 'Page header source, or null.'),
    headerVisibility: fields.headerVisibility,
    footerSource: Nullable(Type.String(), 'Page footer source, or null.'),
    footerVisibility: fields.footerVisibility,
    showLogo: fields.showLogo,
    logoPosition: fields.logoPosition,
    status: fields.status,
    systemKey: Nullable(
      Type.Enum(SYSTEM_KEYS),
      'TERMINATION, NOTICE, INVOICE, CREDIT_NOTE, PAYMENT_REMINDER, DUNNING, QUOTE or ORDER_CONFIRMATION on a system template; else null.',
    ),
    compiledHeaderHtml: Nullable(
      Type.String(),
      'Header rendered with sample data and sanitised; null without a header.',
    ),
    compiledContentHtml: Type.String({
      description: 'Body rendered with sample data and sanitised.',
    }),
    compiledFooterHtml: Nullable(
      Type.String(),
      'Footer rendered with sample data and sanitised; null without a footer.',
    ),
  },
  { additionalProperties: false, description: 'A letter, offer or invoice template.' },
);
export type DocumentTemplate = Static<typeof DocumentTemplateSchema>;

/** The template body fields of create and compile (decisions: the same shape). */
export const bodyFields = {
  name: fields.name,
  documentType: Type.Optional(fields.documentType),
  contentSource: fields.contentSource,
  fields: Type.Optional(fields.fields),
  headerSource: Type.Optional(fields.headerSource),
  headerVisibility: Type.Optional(fields.headerVisibility),
  footerSource: Type.Optional(fields.footerSource),
  footerVisibility: Type.Optional(fields.footerVisibility),
  showLogo: Type.Optional(fields.showLogo),
  logoPosition: Type.Optional(fields.logoPosition),
  status: Type.Optional(fields.status),
  systemKey: Type.Optional(fields.systemKey),
  compiledHeaderHtml: Type.Optional(
    Nullable(fields.compiledHeaderHtml, 'Ignored: the server computes it.'),
  ),
  compiledContentHtml: Type.Optional(
    Nullable(fields.compiledContentHtml, 'Ignored: the server computes it.'),
  ),
  compiledFooterHtml: Type.Optional(
    Nullable(fields.compiledFooterHtml, 'Ignored: the server computes it.'),
  ),
};

export const CreateDocumentTemplateBody = Type.Object(bodyFields, {
  additionalProperties: false,
  description:
    'A new template. `systemKey` is refused (400): system templates are seeded by the server. The compiled HTML is computed; values sent for it are ignored.',
});
export type CreateDocumentTemplate = Static<typeof CreateDocumentTemplateBody>;

/** Partial update: omitted fields stay, `null` clears an optional one (decisions §6). */
export const UpdateDocumentTemplateBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    documentType: Type.Optional(fields.documentType),
    contentSource: Type.Optional(fields.contentSource),
    fields: Type.Optional(Nullable(fields.fields, 'Extra placeholders; null clears them.')),
    headerSource: Type.Optional(
      Nullable(fields.headerSource, 'Header source; null removes the header.'),
    ),
    headerVisibility: Type.Optional(fields.headerVisibility),
    footerSource: Type.Optional(
      Nullable(fields.footerSource, 'Footer source; null removes the footer.'),
    ),
    footerVisibility: Type.Optional(fields.footerVisibility),
    showLogo: Type.Optional(fields.showLogo),
    logoPosition: Type.Optional(fields.logoPosition),
    status: Type.Optional(fields.status),
    systemKey: Type.Optional(
      Nullable(
        fields.systemKey,
        'May only repeat the stored value: changing or removing a system template’s key (or giving one to another template) answers 409 state_conflict.',
      ),
    ),
    compiledHeaderHtml: bodyFields.compiledHeaderHtml,
    compiledContentHtml: bodyFields.compiledContentHtml,
    compiledFooterHtml: bodyFields.compiledFooterHtml,
  },
  { additionalProperties: false },
);
export type UpdateDocumentTemplate = Static<typeof UpdateDocumentTemplateBody>;

export const ListDocumentTemplatesQuery = Type.Object(
  {
    ...PageQuery,
    documentType: Type.Optional(
      Type.Enum(TEMPLATE_DOCUMENT_TYPES, { description: 'Only templates of this document type.' }),
    ),
    status: Type.Optional(
      Type.Enum(TEMPLATE_STATUSES, { description: 'Only templates in this status.' }),
    ),
    systemKey: Type.Optional(
      Type.Enum(SYSTEM_KEYS, { description: 'Only the system template with this key.' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case- and accent-insensitive search in the name.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListDocumentTemplates = Static<typeof ListDocumentTemplatesQuery>;
