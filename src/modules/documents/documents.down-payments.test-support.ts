import { expect } from 'vitest';
import { createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { billingAddress, call, type Body } from './documents.test-support.js';

/** Down payments and final invoices in tests (not part of the build). */

/** A document as the down-payment tests read it. */
export type Doc = Body & {
  id: string;
  version: number;
  status: string;
  invoiceType: string | null;
  documentNumber: string | null;
  originDocumentId: string | null;
  convertedToDocumentIds: string[];
  finalInvoice: boolean;
  prepaidAmount: number | null;
  downPaymentDeductions: {
    documentId: string;
    documentNumber: string;
    gross: number;
    taxes: { rate: number; net: number; tax: number }[];
  }[];
  lineItems: { description: string; unitPrice: number; taxRate: number }[];
  netTotal: number;
  taxTotal: number;
  grossTotal: number;
  openAmount: number | null;
  paymentStatus: string | null;
  fileId: string | null;
};

/** The steps of a job billed in parts, through the API, dated `today`. */
export function downPaymentSteps(t: TestApp, today: string) {
  /**
   * An account with a FINAL order confirmation over 1,000 net at 19 % and 500 net at 7 %
   * (1,725.00 gross); `extra` adds to the order (payment terms, Skonto, …).
   */
  async function order(extra: Body = {}): Promise<{ user: TestUser; order: Doc }> {
    const user = await createUser(t);
    const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('einkauf@kunde.example')],
    });
    const rates = await call<{ data: { id: string; rate: number }[] }>(
      t,
      user,
      'GET',
      '/v1/tax-rates',
    );
    const r7 = rates.data.find((r) => r.rate === 7)!;
    const r19 = rates.data.find((r) => r.rate === 19)!;
    const oc = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'ORDER_CONFIRMATION',
      name: 'Umbau',
      partnerId: partner.id,
      creationDate: today,
      deliveryDate: today,
      status: 'FINAL',
      lineItems: [
        { description: 'Planung', quantity: 1, unitPrice: 1000, taxRateId: r19.id },
        { description: 'Material', quantity: 1, unitPrice: 500, taxRateId: r7.id },
      ],
      ...extra,
    });
    return { user, order: oc };
  }

  const finalize = (user: TestUser, doc: Doc, extra: Body = {}) =>
    call<Doc>(t, user, 'PUT', `/v1/documents/${doc.id}`, {
      version: doc.version,
      status: 'FINAL',
      ...extra,
    });

  /** A FINAL down payment on the order. */
  const downPayment = async (user: TestUser, orderId: string, body: Body) => {
    const draft = await call<Doc>(t, user, 'POST', `/v1/documents/${orderId}/down-payments`, body);
    return finalize(user, draft);
  };

  /** The DRAFT invoice converted from the order (a final invoice once it has down payments). */
  const convert = (user: TestUser, orderId: string) =>
    call<Doc>(t, user, 'POST', `/v1/documents/${orderId}/convert`, { documentType: 'INVOICE' });

  /** A MARKED incoming payment of the invoice. */
  const pay = (user: TestUser, documentId: string, amount: number) =>
    call(t, user, 'POST', '/v1/payments', {
      direction: 'INCOMING',
      documentId,
      amount,
      currency: 'EUR',
      paymentDate: today,
      status: 'MARKED',
    });

  /** The e-invoice of a FINAL invoice in `format`. */
  async function einvoice(user: TestUser, id: string, format: string): Promise<Buffer> {
    const res = await t.request({
      method: 'GET',
      url: `/v1/documents/${id}/einvoice?format=${format}`,
      token: user.token,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.rawPayload;
  }

  return { order, finalize, downPayment, convert, pay, einvoice };
}
