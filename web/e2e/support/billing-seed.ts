/**
 * Seeding for flows that need FINAL invoices (bank import, dunning): the seller's complete
 * company data (finalizing checks it, docs/invoicing.md §4), customers with a billing address,
 * and FINAL invoices with the dates a flow needs — all through the API, as the app would.
 */
import type { Api } from './owner';

/** A calendar day `days` from today (UTC), `YYYY-MM-DD`. */
export function dayFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function seedCompany(api: Api): Promise<void> {
  const current = await api.GET('/v1/account/company');
  if (current.error) throw new Error(`company: ${JSON.stringify(current.error)}`);
  const saved = await api.PUT('/v1/account/company', {
    body: {
      version: current.data.version,
      legalName: 'Muster Werkstatt GmbH',
      address: { street: 'Musterstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
      vatId: 'DE123456788',
      taxNumber: '30/123/45678',
      registerCourt: 'Amtsgericht Charlottenburg',
      registerNumber: 'HRB 12345',
      managingDirectors: ['Olga Owner'],
      email: 'rechnung@example.com',
      phone: '+49 30 1234567',
      website: null,
      electronicAddress: { scheme: 'EM', value: 'rechnung@example.com' },
      bankAccounts: [
        {
          iban: 'DE02120300000000202051',
          bic: 'BYLADEM1001',
          accountHolder: 'Muster Werkstatt GmbH',
          bankName: 'Deutsche Kreditbank',
        },
      ],
      smallBusiness: false,
      defaultPaymentTermDays: 14,
    },
  });
  if (saved.error) throw new Error(`company: ${JSON.stringify(saved.error)}`);
}

/** A business customer (consumer: false) with a billing address in Hamburg. */
export async function seedCustomer(api: Api, name: string, email: string): Promise<string> {
  const created = await api.POST('/v1/partners', {
    body: {
      name,
      type: 'CUSTOMER',
      consumer: false,
      addresses: [
        {
          type: 'BILLING',
          street: 'Rathausmarkt 1',
          postalCode: '20095',
          city: 'Hamburg',
          country: 'DE',
          email,
        },
      ],
    },
  });
  if (created.error) throw new Error(`partner: ${JSON.stringify(created.error)}`);
  return created.data.id;
}

export interface SeededInvoice {
  id: string;
  documentNumber: string;
  grossTotal: number;
}

/** A FINAL invoice over `quantity` × EUR 100 net (+19 % VAT), dated and due as given. */
export async function seedFinalInvoice(
  api: Api,
  partnerId: string,
  opts: { quantity: number; creationDate: string; dueDate: string },
): Promise<SeededInvoice> {
  const created = await api.POST('/v1/documents', {
    body: {
      documentType: 'INVOICE',
      name: 'Beratung',
      partnerId,
      creationDate: opts.creationDate,
      deliveryDate: opts.creationDate,
      dueDate: opts.dueDate,
      status: 'FINAL',
      lineItems: [{ description: 'Beratung', quantity: opts.quantity, unitPrice: 100 }],
    },
  });
  if (created.error) throw new Error(`invoice: ${JSON.stringify(created.error)}`);
  const { id, documentNumber, grossTotal } = created.data;
  if (documentNumber === null) throw new Error('a FINAL invoice without a number');
  return { id, documentNumber, grossTotal };
}

/** A small PDF uploaded through the API's upload ticket (a supplier's bill); its file id. */
export async function seedUploadedPdf(
  api: Api,
  baseUrl: string,
  fileName: string,
): Promise<string> {
  const pdf = Buffer.from(
    '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF\n',
    'latin1',
  );
  const ticket = await api.POST('/v1/files/upload-url', {
    body: { fileName, contentType: 'application/pdf', size: pdf.length },
  });
  if (ticket.error) throw new Error(`upload-url: ${JSON.stringify(ticket.error)}`);
  const put = await fetch(new URL(ticket.data.uploadUrl, baseUrl), {
    method: 'PUT',
    headers: ticket.data.headers,
    body: pdf,
  });
  if (!put.ok) throw new Error(`upload: ${put.status}`);
  return ticket.data.fileId;
}
