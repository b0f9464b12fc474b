/** The fictional records a compile renders with when no data is supplied. */
import type { RenderInput } from './context.js';

/**
 * Fictional German sample records for compiling without data: a customer in Köln and a
 * yearly renewing maintenance contract whose current term ends at the end of next year.
 */
export function sampleData(
  today: string,
  currency: string,
): Required<Pick<RenderInput, 'partner' | 'contract' | 'document'>> {
  const year = Number(today.slice(0, 4));
  const endDate = `${year + 1}-12-31`;
  return {
    partner: {
      name: 'Muster & Partner GmbH',
      type: 'CUSTOMER',
      description: null,
      website: 'https://muster-partner.example',
      addresses: [
        {
          type: 'BILLING',
          name: 'z. Hd. Frau Erika Mustermann',
          street: 'Beispielweg 12',
          postalCode: '50667',
          city: 'Köln',
          country: 'DE',
          email: 'buchhaltung@muster-partner.example',
          phone: '+49 221 1234567',
        },
      ],
    },
    contract: {
      name: 'Wartungsvertrag Heizungsanlage',
      partnerName: 'Muster & Partner GmbH',
      startDate: `${year - 1}-01-01`,
      endDate,
      totalValue: 1234.56,
      currency,
      status: 'ACTIVE',
      description: 'Jährliche Wartung und Störungsdienst',
      tags: ['Wartung'],
      // 90 days before 31 December is 2 October, in every year.
      cancellationDeadline: `${year + 1}-10-02`,
      nextRenewalDate: endDate,
      advanced: {
        billingCycle: 'YEARLY',
        autoRenew: true,
        renewalMonths: 12,
        noticePeriodDays: 90,
        paymentTermDays: 14,
      },
    },
    document: {
      name: 'Schreiben an Muster & Partner GmbH',
      documentType: 'CONTRACT',
      documentNumber: `${year}-0001`,
      creationDate: today,
    },
  };
}
