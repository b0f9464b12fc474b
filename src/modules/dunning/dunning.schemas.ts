import { Type, type Static } from 'typebox';
import { IsoDate, Nullable, Timestamp } from '../../http/schemas.js';

export const LETTER_KINDS = ['PAYMENT_REMINDER', 'DUNNING'] as const;
/** A payment reminder and up to three dunning letters. */
export const MAX_LEVELS = 4;
/** Invoices a run may be limited to: a screen's worth of chosen letters, and more. */
export const MAX_RUN_INVOICES = 1000;

const LevelSchema = Type.Object(
  {
    kind: Type.Enum(LETTER_KINDS, {
      description:
        '`PAYMENT_REMINDER` (Zahlungserinnerung, only as the first level) or `DUNNING` (Mahnung). The letter is made from the PUBLISHED system template of that `systemKey`.',
    }),
    daysAfter: Type.Integer({
      minimum: 1,
      maximum: 365,
      description:
        'The first level: days after the due date; every later level: days after the previous letter.',
    }),
    fee: Type.Number({
      minimum: 0,
      maximum: 1000,
      description:
        'Dunning fee (Mahngebühr) of the letter in major units of the invoice currency (EUR 2.50: `2.5`); claim only real costs — the letter that puts the debtor in default is not chargeable.',
    }),
    defaultInterest: Type.Boolean({
      description:
        'Whether the letter claims default interest (Verzugszinsen, §288 BGB): base rate + 9 points from businesses, + 5 from consumers, from the start of default to the as-of day.',
    }),
  },
  { additionalProperties: false },
);
export type LevelView = Static<typeof LevelSchema>;

const fields = {
  enabled: Type.Boolean({
    description:
      'Whether the daily schedule runs the account’s dunning by itself (once a day, as of that day). Default false: runs happen on `POST /v1/dunning/runs` only.',
  }),
  levels: Type.Array(LevelSchema, {
    minItems: 1,
    maxItems: MAX_LEVELS,
    description:
      'The levels in order: an optional payment reminder first, then up to three dunning letters. Default: a reminder 7 days after the due date (no fee, no interest), then three dunning letters 14 days apart (EUR 2.50 each, with default interest).',
  }),
  flatFee: Type.Boolean({
    description:
      'Whether dunning letters claim the EUR 40 flat fee of §288 (5) BGB from businesses in default (EUR invoices only; dunning fees count towards it). Default true.',
  }),
  paymentDays: Type.Integer({
    minimum: 1,
    maximum: 60,
    description: 'Days from the letter’s date the partner is given to pay. Default 10.',
  }),
};

export const DunningSettingsSchema = Type.Object(
  {
    ...fields,
    version: Type.Integer({
      minimum: 0,
      description: 'Optimistic-locking version; 0 while the defaults stand (nothing saved).',
    }),
    createdAt: Nullable(Timestamp('When the settings were first saved.'), 'Null: defaults.'),
    updatedAt: Nullable(Timestamp('When the settings were last saved.'), 'Null: defaults.'),
  },
  { additionalProperties: false, description: 'How the account dunns overdue invoices.' },
);
export type DunningSettings = Static<typeof DunningSettingsSchema>;

export const PutDunningSettingsBody = Type.Object(
  {
    enabled: Type.Optional(fields.enabled),
    levels: Type.Optional(fields.levels),
    flatFee: Type.Optional(fields.flatFee),
    paymentDays: Type.Optional(fields.paymentDays),
    version: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The version you read (0 for the defaults); stale: 409 version_conflict.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutDunningSettings = Static<typeof PutDunningSettingsBody>;

export const DunningRunBody = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          'Only propose: list the letters the run would send, with fee and interest; nothing is written. Default false.',
      }),
    ),
    date: Type.Optional(
      IsoDate(
        'The as-of day: what is overdue, the letters’ date and interest up to it; default today. Later than today only with dryRun',
      ),
    ),
    invoiceIds: Type.Optional(
      Type.Array(
        Type.String({ minLength: 1, maxLength: 64, description: 'An invoice (`doc_…`).' }),
        {
          minItems: 1,
          maxItems: MAX_RUN_INVOICES,
          uniqueItems: true,
          description:
            'Only these invoices (e.g. the letters chosen from a dry run); leave out for every invoice. Each is still checked as without the list: an id that is not due for a letter (paid, blocked, not yet due, dunned meanwhile, not an invoice, unknown or of another account) is left out of the answer, without a problem.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type DunningRun = Static<typeof DunningRunBody>;

const Amount = (description: string) => Type.Number({ description });

const LetterSchema = Type.Object(
  {
    invoiceId: Type.String({ description: 'The overdue invoice.' }),
    invoiceNumber: Nullable(Type.String(), 'Its number.'),
    partnerId: Nullable(Type.String(), 'Its partner.'),
    partnerName: Nullable(Type.String(), 'The partner’s name.'),
    dueDate: Type.String({ description: 'Its due date (YYYY-MM-DD).' }),
    daysOverdue: Type.Integer({ description: 'Days past the due date on the as-of day.' }),
    level: Type.Integer({ description: 'The level this letter reaches (1–4).' }),
    kind: Type.Enum(LETTER_KINDS),
    currency: Type.String(),
    openAmount: Amount('Gross total less settled payments.'),
    fee: Amount('This letter’s dunning fee.'),
    priorFees: Amount('Fees of earlier letters.'),
    interest: Amount('Default interest up to the as-of day (0 without).'),
    interestRate: Nullable(Type.Number(), 'Percent per year on the as-of day; null without.'),
    flatFee: Amount('The §288 (5) BGB flat fee claimed (0 without).'),
    total: Amount('What the letter asks for: open amount, fees, interest and flat fee.'),
    payBy: Type.String({ description: 'The day the letter asks payment by (YYYY-MM-DD).' }),
    documentId: Nullable(
      Type.String(),
      'The letter (a FINAL DUNNING document); null in a dry run.',
    ),
    sendQueued: Type.Boolean({
      description: 'Whether the letter is queued to be mailed to the partner’s BILLING address.',
    }),
  },
  { additionalProperties: false },
);
export type LetterView = Static<typeof LetterSchema>;

export const DunningRunResultSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    date: Type.String({ description: 'The as-of day (YYYY-MM-DD).' }),
    letters: Type.Array(LetterSchema, {
      description: 'The letters made (or, in a dry run, proposed), one per invoice.',
    }),
    problems: Type.Array(
      Type.Object(
        {
          invoiceId: Type.String(),
          code: Type.String({ description: 'The problem code, e.g. `template_not_published`.' }),
          detail: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: 'Invoices due for a letter that could not get one; they stay due.' },
    ),
  },
  { additionalProperties: false },
);
export type DunningRunResult = Static<typeof DunningRunResultSchema>;
