/**
 * The `company` of the render context: the seller's master data as the account module's
 * `readCompany` answers it, with the account standing in for what is not set.
 */
import { groupIban, normalizeIban } from '../iban.js';
import { addressView, type AddressData, type AddressView } from './address.js';
import { numberOrNull, objectsOf } from './values.js';

/** An electronic address (BT-34/BT-49): scheme (EAS code, e.g. `EM` e-mail) and value. */
export interface ElectronicAddressData {
  scheme: string;
  value: string;
}

/** One of the seller's bank accounts. */
export interface BankAccountData {
  iban: string;
  bic?: string | null;
  accountHolder?: string | null;
  bankName?: string | null;
}

/**
 * The seller's master data as the account module's `readCompany` answers it; every member is
 * optional, so an account without company data renders with the account's name and address.
 */
export interface CompanyData {
  legalName?: string | null;
  address?: Pick<AddressData, 'street' | 'postalCode' | 'city' | 'country'> | null;
  vatId?: string | null;
  taxNumber?: string | null;
  registerCourt?: string | null;
  registerNumber?: string | null;
  managingDirectors?: readonly string[] | null;
  email?: string | null;
  phone?: string | null;
  website?: string | null;
  electronicAddress?: ElectronicAddressData | null;
  bankAccounts?: readonly BankAccountData[] | null;
  smallBusiness?: boolean | null;
  defaultPaymentTermDays?: number | null;
}

export interface BankAccountView {
  iban: string;
  /** The IBAN in groups of four, as printed on paper (`DE89 3704 0044 …`). */
  ibanGrouped: string;
  bic: string | null;
  accountHolder: string | null;
  bankName: string | null;
}

/** The seller: the company master data, with the account standing in for what is missing. */
export interface CompanyView {
  /** The legal name; the account's name when not set. */
  legalName: string;
  /** The company address; the account's address when not set. */
  address: AddressView;
  vatId: string | null;
  taxNumber: string | null;
  registerCourt: string | null;
  registerNumber: string | null;
  managingDirectors: string[];
  /** E-mail and phone; the account address's when not set. */
  email: string | null;
  phone: string | null;
  website: string | null;
  electronicAddress: ElectronicAddressData | null;
  bankAccounts: BankAccountView[];
  /** Kleinunternehmer (§ 19 UStG): no VAT is charged. */
  smallBusiness: boolean;
  defaultPaymentTermDays: number | null;
}

export function electronicAddressOf(value: unknown): ElectronicAddressData | null {
  if (typeof value !== 'object' || value === null) return null;
  const { scheme, value: address } = value as Partial<ElectronicAddressData>;
  return typeof scheme === 'string' && typeof address === 'string'
    ? { scheme, value: address }
    : null;
}

/** The company view; `account` (name and address) stands in for what the company lacks. */
export function companyView(
  company: CompanyData | null | undefined,
  account: { name: string; address: AddressView },
): CompanyView {
  const c = company ?? {};
  const own = c.address ?? null;
  return {
    legalName: c.legalName ?? account.name,
    address: own ? addressView({ ...own, type: 'OFFICE' }) : account.address,
    vatId: c.vatId ?? null,
    taxNumber: c.taxNumber ?? null,
    registerCourt: c.registerCourt ?? null,
    registerNumber: c.registerNumber ?? null,
    managingDirectors: (c.managingDirectors ?? []).filter((d) => typeof d === 'string'),
    email: c.email ?? account.address.email,
    phone: c.phone ?? account.address.phone,
    website: c.website ?? null,
    electronicAddress: electronicAddressOf(c.electronicAddress),
    bankAccounts: objectsOf<BankAccountData>(c.bankAccounts)
      .filter((b) => typeof b.iban === 'string' && b.iban !== '')
      .map((b) => {
        return {
          iban: normalizeIban(b.iban),
          ibanGrouped: groupIban(b.iban),
          bic: b.bic ?? null,
          accountHolder: b.accountHolder ?? null,
          bankName: b.bankName ?? null,
        };
      }),
    smallBusiness: c.smallBusiness === true,
    defaultPaymentTermDays: numberOrNull(c.defaultPaymentTermDays),
  };
}
