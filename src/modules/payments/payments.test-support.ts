import type { LightMyRequestResponse } from 'fastify';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';

/** Shared by the payment test files: request helpers and factories of linked records. */

export type Body = Record<string, unknown>;
export type PaymentView = Body & {
  id: string;
  version: number;
  status: string;
  amount: number;
  markedAt: string | null;
};

export const URL = '/v1/payments';

export function payments(t: TestApp) {
  return {
    post: (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
      t.request({ method: 'POST', url: URL, token: user.token, payload, headers }),
    get: (user: TestUser, id: string) =>
      t.request({ method: 'GET', url: `${URL}/${id}`, token: user.token }),
    put: (user: TestUser, id: string, payload: Body, headers: Record<string, string> = {}) =>
      t.request({ method: 'PUT', url: `${URL}/${id}`, token: user.token, payload, headers }),
    del: (user: TestUser, id: string, headers: Record<string, string> = {}) =>
      t.request({ method: 'DELETE', url: `${URL}/${id}`, token: user.token, headers }),
    list: async (user: TestUser, qs = '') => {
      const res = await t.request({ method: 'GET', url: `${URL}?${qs}`, token: user.token });
      if (res.statusCode !== 200) throw new Error(`list answered ${res.statusCode}: ${res.body}`);
      return res.json<{ data: PaymentView[]; nextCursor: string | null }>();
    },
  };
}

function created<T>(res: LightMyRequestResponse, what: string): T {
  if (res.statusCode !== 201)
    throw new Error(`${what} not created (${res.statusCode}): ${res.body}`);
  return res.json<T>();
}

export async function newPartner(
  t: TestApp,
  user: TestUser,
  name = 'Müller & Söhne GmbH',
): Promise<{ id: string; name: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/partners',
    token: user.token,
    payload: { name, type: 'CUSTOMER' },
  });
  return created(res, 'partner');
}

export async function newContract(
  t: TestApp,
  user: TestUser,
  partnerId: string,
  name = 'Wartungsvertrag Heizung',
): Promise<{ id: string; name: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/contracts',
    token: user.token,
    payload: {
      name,
      partnerId,
      partnerName: 'ignored',
      startDate: '2026-01-01',
      totalValue: 1200,
      currency: 'EUR',
    },
  });
  return created(res, 'contract');
}

const files = new WeakMap<TestUser, string>();

/** An uploaded PDF of the user's account, for UPLOADED documents (one per user). */
export async function pdfFile(t: TestApp, user: TestUser): Promise<string> {
  const known = files.get(user);
  if (known) return known;
  const { ticket, put } = await upload(t, user, 'application/pdf', SAMPLES.pdf, 'rechnung.pdf');
  if (put.statusCode >= 300) throw new Error(`upload failed: ${put.body}`);
  files.set(user, ticket.fileId);
  return ticket.fileId;
}

export interface InvoiceView {
  id: string;
  version: number;
  status: string;
  documentNumber: string | null;
  grossTotal: number;
  currency: string;
  paymentStatus: string | null;
  overdue: boolean;
}

/** An UPLOADED invoice of 100.00 net + 19 % = 119.00 gross (unless `extra` says otherwise). */
export async function newInvoice(
  t: TestApp,
  user: TestUser,
  extra: Body = {},
): Promise<InvoiceView> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/documents',
    token: user.token,
    payload: {
      documentType: 'INVOICE',
      name: 'Rechnung',
      creationDate: '2026-03-01',
      fileId: await pdfFile(t, user),
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
      ...extra,
    },
  });
  return created(res, 'invoice');
}

export async function getDocument(t: TestApp, user: TestUser, id: string): Promise<InvoiceView> {
  const res = await t.request({ method: 'GET', url: `/v1/documents/${id}`, token: user.token });
  if (res.statusCode !== 200) throw new Error(`document read failed: ${res.body}`);
  return res.json<InvoiceView>();
}

/** A valid create body, with `extra` merged in. */
export function paymentBody(extra: Body = {}): Body {
  return {
    direction: 'INCOMING',
    partnerName: 'Laufkundschaft',
    amount: 119,
    currency: 'EUR',
    paymentDate: '2026-03-20',
    ...extra,
  };
}
