import { Type, type Static } from 'typebox';
import { Nullable, VersionField } from '../../http/schemas.js';

const HolderName = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Name of the card or account holder.',
});

/**
 * CardSchema for a card: a reference to a card the payment provider holds. A full card
 * number is never accepted (decisions §13).
 */
export const CardSchema = Type.Object(
  {
    holderName: HolderName,
    brand: Type.Optional(
      Type.String({ minLength: 1, maxLength: 30, description: 'e.g. visa, mastercard.' }),
    ),
    last4: Type.String({
      pattern: '^\\d{4}$',
      description: 'Last four digits, as the provider reports them.',
    }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12, description: 'Expiry month.' }),
    expYear: Type.Integer({
      minimum: 2000,
      maximum: 2100,
      description: 'Expiry year (four digits).',
    }),
    providerPaymentMethodId: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'The payment provider’s id of the card (e.g. `pm_…`).',
    }),
  },
  {
    additionalProperties: false,
    $id: 'Card',
    description: 'CardSchema for a card. Full card numbers are refused.',
  },
);
export type Card = Static<typeof CardSchema>;

/** CardSchema for a bank account (SEPA direct debit). */
export const BankAccountSchema = Type.Object(
  {
    holderName: HolderName,
    iban: Type.String({
      minLength: 15,
      maxLength: 42,
      description: 'IBAN; checked (country length, mod 97), stored encrypted, answered masked.',
    }),
    bic: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$',
        description: 'BIC (8 or 11 characters).',
      }),
    ),
    mandateReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 35,
        pattern: "^[A-Za-z0-9+?/:().,' -]+$",
        description: 'SEPA mandate reference.',
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'BankAccount',
    description: 'CardSchema for a bank account.',
  },
);
export type BankAccount = Static<typeof BankAccountSchema>;

export const PutCardBody = Type.Object(
  {
    card: Type.Ref('Card'),
    billingMethod: Type.Literal('CARD', { description: 'Must be CARD on this endpoint.' }),
    version: VersionField,
  },
  { additionalProperties: false },
);

export const PutBankAccountBody = Type.Object(
  {
    card: Type.Ref('BankAccount'),
    billingMethod: Type.Literal('BANK_ACCOUNT', {
      description: 'Must be BANK_ACCOUNT on this endpoint.',
    }),
    version: VersionField,
  },
  { additionalProperties: false },
);

export const BillingSchema = Type.Object(
  {
    billingMethod: Type.Enum(['CARD', 'BANK_ACCOUNT', 'NONE'], {
      description: 'How the account pays.',
    }),
    card: Nullable(
      Type.Union([
        Type.Object({
          holderName: Type.String(),
          brand: Nullable(Type.String(), 'Card brand.'),
          last4: Type.String(),
          expMonth: Type.Integer(),
          expYear: Type.Integer(),
          providerPaymentMethodId: Type.String(),
        }),
        Type.Object({
          holderName: Type.String(),
          iban: Type.String({
            description: 'Masked: country, check digits and the last four only.',
          }),
          bic: Nullable(Type.String(), 'BIC.'),
          mandateReference: Nullable(Type.String(), 'SEPA mandate reference.'),
        }),
      ]),
      'The card reference or the masked bank account; null with NONE.',
    ),
    version: Type.Integer({
      minimum: 1,
      description: 'Optimistic-locking version (1 before anything was set).',
    }),
    updatedAt: Nullable(Type.String({ format: 'date-time' }), 'When the method was last set.'),
  },
  { additionalProperties: false },
);
export type Billing = Static<typeof BillingSchema>;
