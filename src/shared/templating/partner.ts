import type { AddressView } from './address.js';
import type { ElectronicAddressData } from './company.js';
import type { InvoiceLanguage } from './invoice-labels.js';

/** The partner as a template reads it (`partner.*`). */
export interface PartnerView {
  name: string;
  /** Customer number (Kundennummer) or vendor number (Lieferantennummer). */
  partnerNumber: string | null;
  type: string | null;
  description: string | null;
  website: string | null;
  /** The billing address, else the office address, else the first one. */
  address: AddressView;
  addresses: AddressView[];
  vatId: string | null;
  buyerReference: string | null;
  electronicAddress: ElectronicAddressData | null;
  einvoiceFormat: string | null;
  /** `de` or `en`; null when the partner names none (the invoice is then German). */
  language: InvoiceLanguage | null;
}
