import { AppError, type FieldError } from '../../shared/errors.js';
import { COUNTRY_CODES } from '../../shared/countries.js';
import { electronicAddressProblem } from '../../shared/eas.js';
import { ibanProblem, normalizeIban } from '../../shared/iban.js';
import { creditorIdProblem, normalizeCreditorId } from '../../shared/sepa/index.js';
import { normalizeVatId, vatIdProblem } from '../../shared/vat-id.js';
import type { AccountRow } from './account.repository.js';
import type { CheckCompany, Company, CompanyData, ElectronicAddress } from './company.schemas.js';

/** The payment term an account has before its admin sets one (lexoffice's default too). */
const DEFAULT_PAYMENT_TERM_DAYS = 14;

/**
 * The seller's master data of an account, with the defaults where nothing was set yet: the
 * account name as legal name, no address and ids, no bank account, not a small business,
 * 14 days to pay. Pure, so documents can freeze it into a FINAL invoice. Field by field, so a
 * stray key in the stored JSON never reaches a client.
 */
export function readCompany(row: AccountRow): Company {
  const stored = (row.company === null ? {} : JSON.parse(row.company)) as Partial<CompanyData>;
  const pick = <K extends keyof CompanyData>(key: K, fallback: CompanyData[K]): CompanyData[K] =>
    stored[key] === undefined ? fallback : stored[key];
  return {
    legalName: pick('legalName', row.name),
    address: pick('address', null),
    vatId: pick('vatId', null),
    taxNumber: pick('taxNumber', null),
    registerCourt: pick('registerCourt', null),
    registerNumber: pick('registerNumber', null),
    managingDirectors: pick('managingDirectors', []),
    email: pick('email', null),
    phone: pick('phone', null),
    website: pick('website', null),
    electronicAddress: pick('electronicAddress', null),
    bankAccounts: pick('bankAccounts', []),
    smallBusiness: pick('smallBusiness', false),
    creditorId: pick('creditorId', null),
    defaultPaymentTermDays: pick('defaultPaymentTermDays', DEFAULT_PAYMENT_TERM_DAYS),
    version: row.version,
    updatedAt: row.updated_at,
  };
}

/** The field problem of a VAT id at `path`, if it is not a valid one. */
export function vatIdError(value: string | null | undefined, path: string): FieldError[] {
  const problem = value == null ? undefined : vatIdProblem(value);
  return problem ? [{ path, message: problem, code: 'invalid_format' }] : [];
}

/** The field problem of an electronic address at `path` (its scheme or its value), if any. */
export function electronicAddressError(
  value: ElectronicAddress | null | undefined,
  path: string,
): FieldError[] {
  const problem = value == null ? undefined : electronicAddressProblem(value);
  return problem
    ? [{ path: `${path}/${problem.field}`, message: problem.message, code: problem.code }]
    : [];
}

/** One 400 `validation_failed` naming every refused field, or nothing when there is none. */
export function throwFieldErrors(errors: FieldError[]): void {
  if (errors.length === 0) return;
  const names = errors.map((e) => e.path.replace(/^\/body\//, '')).join(', ');
  throw new AppError('validation_failed', `Invalid value of ${names}.`, { errors });
}

/**
 * The PUT body checked beyond its schema and normalised for storage: VAT id (syntax, German
 * check digit), tax number (10–13 digits), electronic address (EAS scheme, value per scheme),
 * IBANs (ISO 13616 check digits), BIC countries and the SEPA creditor id (its check digits;
 * omitted, the stored one stays). Every problem is collected into one 400
 * naming the fields. Answers the data to store (VAT id, IBAN and BIC in their canonical form).
 * The validation-only route (`POST /v1/account/company/check`) runs exactly this too.
 */
export function checkCompany(input: CheckCompany, stored?: CompanyData): CompanyData {
  const errors: FieldError[] = [
    ...vatIdError(input.vatId, '/body/vatId'),
    ...electronicAddressError(input.electronicAddress, '/body/electronicAddress'),
  ];
  const creditorProblem =
    input.creditorId == null ? undefined : creditorIdProblem(input.creditorId);
  if (creditorProblem)
    errors.push({ path: '/body/creditorId', message: creditorProblem, code: 'invalid_format' });
  if (input.taxNumber !== null) {
    const digits = input.taxNumber.replace(/\D/g, '').length;
    if (digits < 10 || digits > 13)
      errors.push({
        path: '/body/taxNumber',
        message: `must have 10 to 13 digits (has ${digits})`,
        code: 'invalid_format',
      });
  }
  input.bankAccounts.forEach((account, i) => {
    const problem = ibanProblem(account.iban);
    if (problem)
      errors.push({
        path: `/body/bankAccounts/${i}/iban`,
        message: problem,
        code: 'invalid_format',
      });
    const country = account.bic?.slice(4, 6).toUpperCase();
    if (country !== undefined && !COUNTRY_CODES.includes(country))
      errors.push({
        path: `/body/bankAccounts/${i}/bic`,
        message: `has an unknown country code ${country}`,
        code: 'invalid_format',
      });
  });
  throwFieldErrors(errors);

  return {
    legalName: input.legalName,
    address: input.address,
    vatId: input.vatId === null ? null : normalizeVatId(input.vatId),
    taxNumber: input.taxNumber,
    registerCourt: input.registerCourt,
    registerNumber: input.registerNumber,
    managingDirectors: input.managingDirectors,
    email: input.email,
    phone: input.phone,
    website: input.website,
    electronicAddress: input.electronicAddress,
    bankAccounts: input.bankAccounts.map((a) => ({
      iban: normalizeIban(a.iban),
      bic: a.bic === null ? null : a.bic.toUpperCase(),
      accountHolder: a.accountHolder,
      bankName: a.bankName,
    })),
    smallBusiness: input.smallBusiness,
    creditorId:
      input.creditorId === undefined
        ? (stored?.creditorId ?? null)
        : input.creditorId === null
          ? null
          : normalizeCreditorId(input.creditorId),
    defaultPaymentTermDays: input.defaultPaymentTermDays,
  };
}
