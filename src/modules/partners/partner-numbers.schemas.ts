import { Type, type Static } from 'typebox';

const PREFIX_TEXT =
  'Written before the value, e.g. `K-` (K-10001); empty for plain numbers. Letters, digits and `. _ / -`, at most 10 characters. Keep it empty for numbers DATEV can use as debtor accounts (docs/datev.md).';
const NEXT_VALUE_TEXT =
  'The value the next partner of the type gets (1–999999999); numbers another partner already has are skipped. Lowering it is allowed: taken numbers are still skipped.';

const Prefix = Type.String({
  maxLength: 10,
  pattern: '^([0-9A-Za-z][0-9A-Za-z._/-]*)?$',
  description: PREFIX_TEXT,
});
const NextValue = Type.Integer({ minimum: 1, maximum: 999_999_999, description: NEXT_VALUE_TEXT });

const sequence = (description: string) =>
  Type.Object(
    {
      prefix: Type.String({ description: PREFIX_TEXT }),
      nextValue: Type.Integer({ description: NEXT_VALUE_TEXT }),
      nextNumber: Type.String({
        description:
          'The number the next partner of the type would get now (`prefix` + `nextValue`, before skipping taken ones).',
      }),
    },
    { additionalProperties: false, description },
  );

const SequenceInput = Type.Object(
  { prefix: Type.Optional(Prefix), nextValue: Type.Optional(NextValue) },
  { additionalProperties: false, description: 'Omitted fields keep their values.' },
);

export const PartnerNumberingSchema = Type.Object(
  {
    customer: sequence('Customer numbers (Kundennummern); default 10001, 10002, …'),
    vendor: sequence('Vendor numbers (Lieferantennummern); default 70001, 70002, …'),
  },
  {
    additionalProperties: false,
    description:
      'Where new partners’ numbers come from: one sequence per partner type. Partners created without `partnerNumber` take the next number of their type’s sequence.',
  },
);
export type PartnerNumbering = Static<typeof PartnerNumberingSchema>;

export const PutPartnerNumberingBody = Type.Object(
  {
    customer: Type.Optional(SequenceInput),
    vendor: Type.Optional(SequenceInput),
  },
  { additionalProperties: false },
);
export type PutPartnerNumbering = Static<typeof PutPartnerNumberingBody>;
