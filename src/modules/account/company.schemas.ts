import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, VersionField } from '../../http/schemas.js';
import { COUNTRY_CODES } from '../../shared/countries.js';

/**
 * The seller's master data (Stammdaten des Rechnungsstellers): what §14 UStG requires on an
 * invoice and what an EN 16931 e-invoice carries in BG-4 (seller). One object per account,
 * stored on the account row and versioned with it.
 */

const PHONE_PATTERN = '^\\+?[0-9 ()/.-]{3,40}$';

/**
 * An electronic address with its scheme (EAS code), used by the seller (BT-34) and by partners
 * as buyers (BT-49). The scheme and value rules are checked by the service.
 */
export const ElectronicAddressSchema = Type.Object(
  {
    scheme: Type.String({
      minLength: 1,
      maxLength: 4,
      description:
        'Scheme of the address (schemeID), a code of the CEF EAS code list: `EM` email, `0204` Leitweg-ID, `9930` German VAT id, `0088` GLN, `0060` DUNS, … Another code answers 400.',
    }),
    value: Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        'The address in that scheme: an email address for `EM`, a Leitweg-ID with valid check digits for `0204`, a German VAT id for `9930`.',
    }),
  },
  {
    additionalProperties: false,
    description: 'Electronic address (elektronische Adresse) for e-invoices, with its EAS scheme.',
  },
);
export type ElectronicAddress = Static<typeof ElectronicAddressSchema>;

/** The seller's postal address (BG-5); every part is required, as XRechnung requires it. */
const CompanyAddressSchema = Type.Object(
  {
    street: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Street and house number (Straße und Hausnummer, BT-35).',
    }),
    postalCode: Type.String({
      minLength: 1,
      maxLength: 20,
      pattern: '^[A-Za-z0-9 -]+$',
      description: 'Postal code (Postleitzahl, BT-38).',
    }),
    city: Type.String({ minLength: 1, maxLength: 100, description: 'City (Ort, BT-37).' }),
    country: Type.Enum(COUNTRY_CODES, {
      description: 'ISO 3166-1 alpha-2 country code (Land, BT-40), e.g. DE.',
    }),
  },
  { additionalProperties: false, description: 'Postal address of the seller (Anschrift, BG-5).' },
);

/** One bank account printed on invoices (BG-17 credit transfer). */
const BankAccountSchema = Type.Object(
  {
    iban: Type.String({
      minLength: 15,
      maxLength: 42,
      description:
        'IBAN (BT-84), with or without spaces; checked (country, length, check digits) and stored without spaces, upper-case.',
    }),
    bic: Nullable(
      Type.String({ pattern: '^[A-Za-z]{6}[A-Za-z0-9]{2}(?:[A-Za-z0-9]{3})?$' }),
      'BIC (SWIFT code, BT-86): 8 or 11 characters, stored upper-case; null: none.',
    ),
    accountHolder: Nullable(
      Type.String({ minLength: 1, maxLength: 200 }),
      'Account holder (Kontoinhaber, BT-85); null: the legal name.',
    ),
    bankName: Nullable(
      Type.String({ minLength: 1, maxLength: 200 }),
      'Name of the bank (Kreditinstitut), printed beside the IBAN.',
    ),
  },
  { additionalProperties: false, description: 'A bank account (Bankverbindung).' },
);

/** The writable fields: the PUT body without `version`, and the stored JSON. */
const companyFields = {
  legalName: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      'Full legal name with legal form (Firma, vollständiger Name), e.g. `Muster GmbH` (BT-27). Defaults to the account name.',
  }),
  address: Nullable(
    CompanyAddressSchema,
    'Postal address of the seller (Anschrift des leistenden Unternehmers, BG-5); required on invoices by §14 (4) Nr. 1 UStG; null: not set yet.',
  ),
  vatId: Nullable(
    Type.String({ minLength: 4, maxLength: 20 }),
    'VAT identification number (Umsatzsteuer-Identifikationsnummer, USt-IdNr., BT-31), e.g. `DE123456788`: the syntax of its country (EU member states, `XI`, GB, CH, NO), for DE the check digit; stored upper-case without spaces. §14 (4) Nr. 2 UStG asks for the VAT id or the tax number.',
  ),
  taxNumber: Nullable(
    Type.String({ minLength: 10, maxLength: 20, pattern: '^[0-9][0-9 /]*[0-9]$' }),
    'Tax number from the tax office (Steuernummer, BT-32, scheme FC): 10 to 13 digits, optionally grouped with `/` or spaces (`30/123/45678`), or the 13-digit ELSTER form (`1130012345678`).',
  ),
  registerCourt: Nullable(
    Type.String({ minLength: 1, maxLength: 200 }),
    'Register court (Registergericht), e.g. `Amtsgericht Charlottenburg`; part of BT-33.',
  ),
  registerNumber: Nullable(
    Type.String({ minLength: 1, maxLength: 200 }),
    'Commercial register number (Handelsregisternummer), e.g. `HRB 12345` (legal registration id, BT-30).',
  ),
  managingDirectors: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 10,
    description:
      'Managing directors (Geschäftsführer), at most 10, as §35a GmbHG / §80 AktG require on business letters; part of BT-33.',
  }),
  email: Nullable(
    Type.String({ format: 'email', maxLength: 254 }),
    'Contact email of the seller (BT-43).',
  ),
  phone: Nullable(
    Type.String({ maxLength: 40, pattern: PHONE_PATTERN }),
    'Contact phone of the seller (BT-42), e.g. `+49 30 1234567`.',
  ),
  website: Nullable(
    Type.String({ maxLength: 500, pattern: '^https?://[^\\s]+$' }),
    'Website, an http(s) URL, printed in the letterhead.',
  ),
  electronicAddress: Nullable(
    ElectronicAddressSchema,
    'Electronic address of the seller (elektronische Adresse des Verkäufers, BT-34), required by XRechnung; null: not set.',
  ),
  bankAccounts: Type.Array(BankAccountSchema, {
    maxItems: 5,
    description:
      'Bank accounts (Bankverbindungen), at most 5; the first is printed on invoices and written to e-invoices as the payee account (BG-17).',
  }),
  smallBusiness: Type.Boolean({
    description:
      'Small business (Kleinunternehmer, §19 UStG): invoices charge no VAT and say why (tax category E).',
  }),
  creditorId: Nullable(
    Type.String({ minLength: 8, maxLength: 35 }),
    'SEPA creditor identifier (Gläubiger-Identifikationsnummer), e.g. `DE98ZZZ09999999999`: checked by its check digits (ISO 7064 mod 97-10), stored upper-case without spaces; needed for SEPA direct debits (docs/sepa.md). The first bank account is the creditor account. null: none.',
  ),
  defaultPaymentTermDays: Nullable(
    Type.Integer({ minimum: 0, maximum: 365 }),
    'Payment term (Zahlungsziel) in days, 0–365, for invoices without a due date; null: none. Defaults to 14.',
  ),
};

/** The seller's master data as answered (with the account's version). */
export const CompanySchema = Type.Object(
  {
    ...companyFields,
    version: Type.Integer({
      minimum: 1,
      description: 'The account’s optimistic-locking version (shared with the account settings).',
    }),
    updatedAt: Timestamp('When the account was last changed (RFC 3339 UTC).'),
  },
  {
    additionalProperties: false,
    description:
      'The seller’s master data (Stammdaten des Rechnungsstellers) for lawful invoices (§14 UStG) and e-invoices (EN 16931 BG-4).',
  },
);
export type Company = Static<typeof CompanySchema>;

/** The master data without `version` and `updatedAt`: what is stored and what a PUT sends. */
export type CompanyData = Omit<Company, 'version' | 'updatedAt'>;

/**
 * PUT replaces the whole object: every field is required (optional ones may be null), but
 * `creditorId`, which came later: omitted, it keeps its stored value.
 */
export const PutCompanyBody = Type.Object(
  {
    version: VersionField,
    ...companyFields,
    creditorId: Type.Optional(companyFields.creditorId),
  },
  { additionalProperties: false },
);
export type PutCompany = Static<typeof PutCompanyBody>;

/**
 * The body of the validation-only check: what a PUT sends, without `version` (nothing is
 * written, so there is nothing to be stale against).
 */
export const CheckCompanyBody = Type.Object(
  { ...companyFields, creditorId: Type.Optional(companyFields.creditorId) },
  {
    additionalProperties: false,
    description:
      'The seller’s master data to check, every field as `PUT /v1/account/company` takes it, without `version`.',
  },
);
export type CheckCompany = Static<typeof CheckCompanyBody>;

/** The answer of a check that found nothing to refuse. */
export const CompanyCheckSchema = Type.Object(
  {
    valid: Type.Literal(true, {
      description: 'Always true: a refused field answers 400 `validation_failed` instead.',
    }),
  },
  {
    additionalProperties: false,
    description: 'The master data would be accepted by `PUT /v1/account/company` as sent.',
  },
);
