import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';
import {
  COUNTER_MAX_DIGITS,
  COUNTER_MIN_DIGITS,
  FORMAT_PATTERN,
  MAX_NUMBER_LENGTH,
} from './numbering.js';

/** `GET/PUT /v1/documents/numbering`: how the account's invoices are numbered. */

const formatRules = `Tokens: \`{YYYY}\` (year), \`{YY}\` (two-digit year), \`{MM}\` (month), each of the invoice date, and exactly one counter \`{000}\` … \`{${'0'.repeat(COUNTER_MAX_DIGITS)}}\` (${COUNTER_MIN_DIGITS}–${COUNTER_MAX_DIGITS} digits, zero-padded; it grows past its width rather than wrap). Literal characters: letters, digits, \`-\`, \`_\`, \`/\` (what DATEV’s Belegfeld 1 keeps), not first. At most ${MAX_NUMBER_LENGTH} characters rendered. The counter restarts each year when the format shows the year, else never.`;

const Format = (what: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: 60,
    pattern: FORMAT_PATTERN,
    description: `How ${what} are numbered, e.g. \`${example}\`. ${formatRules}`,
  });

export const InvoiceNumberingSchema = Type.Object(
  {
    invoiceFormat: Format('invoices', 'RE-{YYYY}-{00000}'),
    creditNoteFormat: Format('credit notes', 'GS-{YYYY}-{0000}'),
    quoteFormat: Format('quotes (Angebote)', 'AN-{YYYY}-{0000}'),
    orderConfirmationFormat: Format(
      'order confirmations (Auftragsbestätigungen)',
      'AB-{YYYY}-{0000}',
    ),
    nextInvoiceNumber: Type.String({
      description:
        'The number an invoice dated today would get if it became FINAL now (another may take it first).',
    }),
    nextCreditNoteNumber: Type.String({
      description: 'The same for a credit note dated today.',
    }),
    nextQuoteNumber: Type.String({
      description: 'The same for a quote dated today (its own sequence).',
    }),
    nextOrderConfirmationNumber: Type.String({
      description: 'The same for an order confirmation dated today (its own sequence).',
    }),
    version: Type.Integer({
      minimum: 0,
      description:
        'Optimistic-locking version: 0 while the account uses the defaults (nothing saved), +1 per save.',
    }),
    updatedAt: Nullable(
      Timestamp('When the formats were last saved (RFC 3339 UTC).'),
      'When the formats were last saved (RFC 3339 UTC); null while the defaults apply.',
    ),
  },
  {
    additionalProperties: false,
    description:
      'The account’s number formats for invoices, credit notes, quotes and order confirmations (defaults `{YYYY}-{0000}`, `GS-{YYYY}-{0000}`, `AN-{YYYY}-{0000}`, `AB-{YYYY}-{0000}`), each its own gapless sequence, and the next numbers they give.',
  },
);
export type InvoiceNumbering = Static<typeof InvoiceNumberingSchema>;

export const PutInvoiceNumberingBody = Type.Object(
  {
    invoiceFormat: Type.Optional(Format('invoices', 'RE-{YYYY}-{00000}')),
    creditNoteFormat: Type.Optional(Format('credit notes', 'GS-{YY}{MM}-{000}')),
    quoteFormat: Type.Optional(Format('quotes', 'AN-{YYYY}-{0000}')),
    orderConfirmationFormat: Type.Optional(Format('order confirmations', 'AB-{YYYY}-{0000}')),
    version: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'The version you read (0 while nothing is saved); a stale one answers 409 version_conflict and changes nothing.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutInvoiceNumbering = Static<typeof PutInvoiceNumberingBody>;
