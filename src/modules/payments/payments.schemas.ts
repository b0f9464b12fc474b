import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable, RecordMeta, Timestamp, VersionField } from '../../http/schemas.js';
import { CURRENCIES } from '../../shared/money.js';

export const PAYMENT_DIRECTIONS = ['INCOMING', 'OUTGOING'] as const;
/** What a payment can be written as (POST/PUT). */
export const PAYMENT_STATUSES = ['PENDING', 'MARKED'] as const;
/**
 * What a payment can be: also RETURNED, a SEPA collection or transfer the bank returned (an
 * R-transaction on a statement); it settles nothing and `failureReason` says why.
 */
export const PAYMENT_STATES = ['PENDING', 'MARKED', 'RETURNED'] as const;
export const PAYMENT_METHODS = ['BANK_TRANSFER', 'CREDIT_CARD', 'DIRECT_DEBIT'] as const;
export const PAYMENT_SOURCES = ['MANUAL', 'PROVIDER', 'IMPORT'] as const;
/** An invoice's `paymentStatus` (the documents' enum). */
export const INVOICE_PAYMENT_STATUSES = ['UNPAID', 'PARTIAL', 'PAID'] as const;
export type PaymentDirection = (typeof PAYMENT_DIRECTIONS)[number];
export type PaymentStatus = (typeof PAYMENT_STATES)[number];
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

/** The largest amount in major units; keeps minor units of every currency a safe integer. */
export const MAX_AMOUNT = 1_000_000_000_000;

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

const fields = {
  direction: Type.Enum(PAYMENT_DIRECTIONS, {
    description:
      'INCOMING (money received, default) or OUTGOING (money paid; the default for a payment of a credit note, a refund).',
  }),
  documentId: Id(
    'A document of this account (`doc_…`), usually the invoice paid; the payment must be in its currency. Fills documentNumber, and partner and contract when they are not given.',
  ),
  documentNumber: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Used only without documentId; with it, the server fills the document’s number.',
  }),
  contractId: Id('A contract of this account (`ctr_…`); fills contractName.'),
  contractName: Name('Used only without contractId; with it, the server fills the name.'),
  partnerId: Id(
    'A partner of this account (`ptr_…`); fills partnerName. Default: the partner of the document, else of the contract.',
  ),
  partnerName: Name(
    'Used only without partnerId (e.g. a payee without a partner record); with it, the server fills the name.',
  ),
  amount: Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_AMOUNT,
    description:
      'Positive amount in major units of `currency`, with no more decimals than the currency has; `direction` says which way the money went.',
  }),
  currency: Type.Enum(CURRENCIES, {
    description: 'ISO 4217 code; a payment of a document is in the document’s currency.',
  }),
  paymentDate: IsoDate('Day the money moved (or is expected to)'),
  status: Type.Enum(PAYMENT_STATUSES, {
    description:
      'PENDING (expected, not yet settled) or MARKED (settled); both directions are allowed and `markedAt` follows.',
  }),
  paymentMethod: Type.Enum(PAYMENT_METHODS, {
    description: 'BANK_TRANSFER, CREDIT_CARD or DIRECT_DEBIT (a SEPA collection).',
  }),
  providerPaymentIntentId: Type.String({
    minLength: 1,
    maxLength: 255,
    description:
      'The payment provider’s id of this payment (e.g. Stripe `pi_…`); unique. The provider webhook finds the payment by it.',
  }),
  failureReason: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Why the provider could not collect the payment.',
  }),
};

/** The invoice a payment is linked to, as it stands once the payment is written. */
export const PaymentInvoiceSchema = Type.Object(
  {
    id: Type.String({ description: 'The invoice (`doc_…`), as `documentId`.' }),
    documentNumber: Nullable(Type.String(), 'Its number; null while it is a DRAFT.'),
    paymentStatus: Type.Enum(INVOICE_PAYMENT_STATUSES, {
      description:
        'The invoice’s `paymentStatus` counting this and every other settled (MARKED) payment of it: UNPAID, PARTIAL or PAID. PENDING payments do not count.',
    }),
    openAmount: Type.Number({
      description:
        'What is still owed on the invoice, in major units of its currency: the gross total less its settled payments and its FINAL credit notes, never below 0.',
    }),
    paidAt: Nullable(
      Timestamp('When the invoice became PAID (RFC 3339 UTC).'),
      'When its settled payments first covered it (RFC 3339 UTC); null while it is not PAID.',
    ),
  },
  {
    additionalProperties: false,
    description:
      'Where the linked invoice stands after this payment (an extension of the spec’s payment): present when `documentId` names an invoice or credit note, absent otherwise.',
  },
);

export const PaymentSchema = Type.Object(
  {
    ...RecordMeta,
    direction: Type.Enum(PAYMENT_DIRECTIONS),
    documentId: Nullable(Type.String(), 'The document (invoice) paid.'),
    documentNumber: Nullable(Type.String(), 'Its number (filled from the document).'),
    contractId: Nullable(Type.String(), 'The contract the payment belongs to.'),
    contractName: Nullable(Type.String(), 'Its name (filled from the contract).'),
    partnerId: Nullable(Type.String(), 'Who paid or was paid.'),
    partnerName: Nullable(Type.String(), 'The partner’s name (filled from the partner).'),
    amount: Type.Number({ description: 'Positive amount in major units of `currency`.' }),
    currency: Type.String({ description: 'ISO 4217 code.' }),
    paymentDate: Type.String({ description: 'Day of the payment (YYYY-MM-DD).' }),
    status: Type.Enum(PAYMENT_STATES, {
      description:
        'PENDING (expected), MARKED (settled) or RETURNED (a SEPA collection or transfer the bank returned; settles nothing, `failureReason` names the return reason).',
    }),
    paymentMethod: Nullable(
      Type.Enum(PAYMENT_METHODS),
      'BANK_TRANSFER, CREDIT_CARD or DIRECT_DEBIT (a SEPA collection).',
    ),
    providerPaymentIntentId: Nullable(Type.String(), 'The payment provider’s id.'),
    failureReason: Nullable(Type.String(), 'Why the provider could not collect it.'),
    markedAt: Nullable(
      Timestamp('When it was MARKED (RFC 3339 UTC).'),
      'When it was MARKED (RFC 3339 UTC); null while PENDING.',
    ),
    source: Type.Enum(PAYMENT_SOURCES, {
      description:
        'MANUAL (this API), PROVIDER (the provider webhook) or IMPORT (a bank statement import).',
    }),
    importId: Nullable(Type.String(), 'The bank statement import that booked it.'),
    document: Type.Optional(PaymentInvoiceSchema),
  },
  { additionalProperties: false, description: 'Money received or paid.' },
);
export type Payment = Static<typeof PaymentSchema>;

/**
 * The create body, also the provider webhook's own shape (spec: "the same shape"). The spec
 * marks partnerId and partnerName required; the server accepts either, or neither when the
 * document or contract names the partner, and fills the name from the partner record.
 */
export const CreatePaymentBody = Type.Object(
  {
    direction: Type.Optional(fields.direction),
    documentId: Type.Optional(fields.documentId),
    documentNumber: Type.Optional(fields.documentNumber),
    contractId: Type.Optional(fields.contractId),
    contractName: Type.Optional(fields.contractName),
    partnerId: Type.Optional(fields.partnerId),
    partnerName: Type.Optional(fields.partnerName),
    amount: fields.amount,
    currency: fields.currency,
    paymentDate: fields.paymentDate,
    status: Type.Optional(
      Type.Enum(PAYMENT_STATUSES, {
        description:
          'MARKED (settled) or PENDING (expected). Default: MARKED — a payment recorded without `providerPaymentIntentId` is money that moved, and its invoice’s `paymentStatus` follows at once; with `providerPaymentIntentId` PENDING, until the provider’s webhook reports success. Send `PENDING` to record an expected payment.',
      }),
    ),
    paymentMethod: Type.Optional(fields.paymentMethod),
    providerPaymentIntentId: Type.Optional(fields.providerPaymentIntentId),
    failureReason: Type.Optional(fields.failureReason),
  },
  {
    additionalProperties: false,
    description: 'A payment; the provider webhook takes the same shape.',
  },
);
export type CreatePayment = Static<typeof CreatePaymentBody>;

const clears = (what: string) => `${what}; null clears it.`;

/**
 * Partial update: omitted fields stay, `null` clears an optional one (decisions §6). Besides
 * the spec's fields, the links of the create body (direction, document, partner) can change.
 */
export const UpdatePaymentBody = Type.Object(
  {
    version: VersionField,
    status: Type.Optional(fields.status),
    amount: Type.Optional(fields.amount),
    currency: Type.Optional(fields.currency),
    paymentDate: Type.Optional(fields.paymentDate),
    paymentMethod: Type.Optional(Nullable(fields.paymentMethod, clears('Payment method'))),
    providerPaymentIntentId: Type.Optional(
      Nullable(fields.providerPaymentIntentId, clears('Provider id')),
    ),
    failureReason: Type.Optional(Nullable(fields.failureReason, clears('Failure reason'))),
    contractId: Type.Optional(Nullable(fields.contractId, 'null unlinks the contract.')),
    contractName: Type.Optional(Nullable(fields.contractName, clears('Contract name'))),
    direction: Type.Optional(fields.direction),
    documentId: Type.Optional(Nullable(fields.documentId, 'null unlinks the document.')),
    documentNumber: Type.Optional(Nullable(fields.documentNumber, clears('Document number'))),
    partnerId: Type.Optional(Nullable(fields.partnerId, 'null unlinks the partner.')),
    partnerName: Type.Optional(Nullable(fields.partnerName, clears('Partner name'))),
  },
  { additionalProperties: false },
);
export type UpdatePayment = Static<typeof UpdatePaymentBody>;

const AmountBound = (description: string) =>
  Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description });

export const ListPaymentsQuery = Type.Object(
  {
    ...PageQuery,
    direction: Type.Optional(Type.Enum(PAYMENT_DIRECTIONS, { description: 'Only this way.' })),
    status: Type.Optional(Type.Enum(PAYMENT_STATES, { description: 'Only this status.' })),
    source: Type.Optional(Type.Enum(PAYMENT_SOURCES, { description: 'Only this origin.' })),
    currency: Type.Optional(Type.Enum(CURRENCIES, { description: 'Only this currency.' })),
    partnerId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this partner.' })),
    contractId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this contract.' })),
    documentId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this document.' })),
    from: Type.Optional(IsoDate('Only payments dated on or after this day')),
    to: Type.Optional(IsoDate('Only payments dated on or before this day')),
    minAmount: Type.Optional(
      AmountBound('Only amounts of at least this many major units (in each payment’s currency).'),
    ),
    maxAmount: Type.Optional(
      AmountBound('Only amounts of at most this many major units (in each payment’s currency).'),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Case- and accent-insensitive text in the partner name, contract name or document number.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListPayments = Static<typeof ListPaymentsQuery>;
