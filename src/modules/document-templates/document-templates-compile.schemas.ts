import { Type, type Static } from 'typebox';
import { IsoDate, Nullable, TagsSchema } from '../../http/schemas.js';
import { CURRENCIES } from '../../shared/money.js';
import { PROBLEM_CODES, TEMPLATE_PARTS } from '../../shared/templating/index.js';
import { AddressesSchema } from '../account/index.js';
import { ContractAdvancedSchema } from '../contracts/index.js';
import { bodyFields } from './document-templates.schemas.js';

/** `POST /v1/document-templates/compile`: the template body plus optional data, and its answer. */

const text = (max: number, description: string) => Type.String({ maxLength: max, description });

/** Records to render with instead of the samples; shaped like the API's own records. */
export const CompileDataSchema = Type.Object(
  {
    partner: Type.Optional(
      Nullable(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200, description: 'Partner name.' }),
            type: Type.Optional(
              Type.Enum(['CUSTOMER', 'VENDOR'], { description: 'Partner type.' }),
            ),
            description: Type.Optional(Nullable(text(10_000, 'Free text.'), 'Free text.')),
            website: Type.Optional(Nullable(text(500, 'Website.'), 'Website.')),
            addresses: Type.Optional(AddressesSchema),
            vatId: Type.Optional(Nullable(text(20, 'VAT id.'), 'The buyer’s VAT id, or null.')),
            language: Type.Optional(
              Type.Enum(['de', 'en'], {
                description: 'Language of the invoice layout’s fixed texts (default de).',
              }),
            ),
          },
          { additionalProperties: false, description: 'A partner as GET /v1/partners answers it.' },
        ),
        'The partner to render with; null: none; omitted: the sample partner.',
      ),
    ),
    contract: Type.Optional(
      Nullable(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200, description: 'Contract name.' }),
            partnerName: Type.Optional(text(200, 'Partner name.')),
            startDate: Type.Optional(IsoDate('Start date')),
            endDate: Type.Optional(Nullable(IsoDate('End date'), 'End date (YYYY-MM-DD) or null.')),
            totalValue: Type.Optional(
              Type.Number({ description: 'Total value in major units of `currency`.' }),
            ),
            currency: Type.Optional(Type.Enum(CURRENCIES, { description: 'ISO 4217 code.' })),
            status: Type.Optional(Type.Enum(['DRAFT', 'ACTIVE'], { description: 'Status.' })),
            description: Type.Optional(Nullable(text(10_000, 'Free text.'), 'Free text.')),
            tags: Type.Optional(TagsSchema),
            cancellationDeadline: Type.Optional(
              Nullable(IsoDate('Last day to give notice'), 'Last day to give notice, or null.'),
            ),
            nextRenewalDate: Type.Optional(
              Nullable(IsoDate('Next renewal'), 'Next renewal date, or null.'),
            ),
            advanced: Type.Optional(Nullable(ContractAdvancedSchema, 'ContractAdvanced, or null.')),
          },
          {
            additionalProperties: false,
            description: 'A contract as GET /v1/contracts answers it.',
          },
        ),
        'The contract to render with; null: none; omitted: the sample contract.',
      ),
    ),
    document: Type.Optional(
      Nullable(
        Type.Object(
          {
            name: Type.Optional(text(200, 'Document name.')),
            documentType: Type.Optional(
              Type.Enum(['CONTRACT', 'INVOICE'], { description: 'Document type.' }),
            ),
            documentNumber: Type.Optional(Nullable(text(100, 'Number.'), 'Document number.')),
            creationDate: Type.Optional(IsoDate('Creation date')),
            invoiceType: Type.Optional(
              Type.Enum(['INVOICE', 'CREDIT_NOTE'], {
                description: 'Invoices: INVOICE or CREDIT_NOTE (default INVOICE).',
              }),
            ),
          },
          { additionalProperties: false, description: 'The document being generated.' },
        ),
        'The document to render with; null: none; omitted: the sample document.',
      ),
    ),
    today: Type.Optional(IsoDate('The date of the letter; default: today')),
    fields: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Null()]),
        {
          maxProperties: 50,
          description:
            'Field values by key, in API units (money in major units, dates YYYY-MM-DD); keys that are not declared fields are ignored. Only these and the defaults are used: a required field without either is reported.',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Data to render with. Without it the server uses fictional sample records and sample field values.',
  },
);

export const CompileDocumentTemplateBody = Type.Object(
  {
    ...bodyFields,
    data: Type.Optional(CompileDataSchema),
  },
  {
    additionalProperties: false,
    description:
      'The template body fields (systemKey allowed: nothing is saved), plus optional `data`.',
  },
);
export type CompileDocumentTemplate = Static<typeof CompileDocumentTemplateBody>;

export const TemplateProblemSchema = Type.Object(
  {
    part: Type.Enum(TEMPLATE_PARTS, { description: 'header, content or footer.' }),
    code: Type.Enum(PROBLEM_CODES, {
      description:
        'syntax_error, render_error, limit_exceeded (block saving); unknown_placeholder, missing_required_field, invalid_field_value, unsafe_markup_removed (warnings: a DRAFT may have them, a PUBLISHED template may not).',
    }),
    message: Type.String({ description: 'What is wrong, for people.' }),
    line: Type.Optional(Type.Integer({ description: 'Line in the source (1-based).' })),
    column: Type.Optional(Type.Integer({ description: 'Column in the source (1-based).' })),
    placeholder: Type.Optional(
      Type.String({ description: 'The placeholder concerned, e.g. `contract.nme`.' }),
    ),
  },
  { additionalProperties: false, description: 'A problem found while compiling.' },
);

export const CompileResultSchema = Type.Object(
  {
    compiledHeaderHtml: Nullable(
      Type.String(),
      'Rendered, sanitised header; null without a header source.',
    ),
    compiledContentHtml: Type.String({ description: 'Rendered, sanitised body.' }),
    compiledFooterHtml: Nullable(
      Type.String(),
      'Rendered, sanitised footer; null without a footer source.',
    ),
    problems: Type.Array(TemplateProblemSchema, {
      description: 'Every problem found; empty when none.',
    }),
  },
  { additionalProperties: false, description: 'The compiled template; nothing was saved.' },
);
