import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import { localPath } from '../files/files.test-support.js';

/** Helpers shared by the documents tests (not part of the build). */

export type Body = Record<string, unknown>;

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** POST / PUT / GET through `app.inject` with the user's token; the answer's JSON on success. */
export async function call<T = Body>(
  t: TestApp,
  user: TestUser,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  url: string,
  payload?: Body,
  expected = method === 'POST' ? 201 : 200,
): Promise<T> {
  const res = await t.request({
    method,
    url,
    token: user.token,
    ...(payload ? { payload } : {}),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(expected);
  return res.json<T>();
}

/** A partner's BILLING address in Hamburg, with the e-mail invoices and letters go to. */
export const billingAddress = (email: string) => ({
  type: 'BILLING',
  street: 'Rathausmarkt 1',
  postalCode: '20095',
  city: 'Hamburg',
  country: 'DE',
  email,
});

/** A FINAL invoice over EUR 1,190.00 (10 × 100 net + 19 % VAT) to the partner, due on `dueDate`. */
export function finalInvoice<T = Body>(
  t: TestApp,
  user: TestUser,
  partnerId: string,
  dueDate: string,
  extra: Body = {},
): Promise<T> {
  return call<T>(t, user, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Beratung',
    partnerId,
    creationDate: '2026-05-01',
    deliveryDate: '2026-04-30',
    dueDate,
    status: 'FINAL',
    lineItems: [{ description: 'Beratung', quantity: 10, unitPrice: 100 }],
    ...extra,
  });
}

/** A file's bytes the way a client gets them: download-url, then the signed URL. */
export async function download(t: TestApp, user: TestUser, fileId: string): Promise<Buffer> {
  const { url } = await call<{ url: string }>(
    t,
    user,
    'GET',
    `/v1/files/download-url?fileId=${fileId}`,
  );
  // The signed URL carries its own authorisation: no token, no API key.
  const res = await t.app.inject({ method: 'GET', url: localPath(url) });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

/** A PUBLISHED template of the user's account. */
export async function publishedTemplate(t: TestApp, user: TestUser, body: Body): Promise<string> {
  const created = await call<{ id: string }>(t, user, 'POST', '/v1/document-templates', {
    name: 'Rechnung',
    status: 'PUBLISHED',
    ...body,
  });
  return created.id;
}

/** The decoded attachment of a raw mail whose MIME part names `filename`. */
export function attachment(raw: string, filename: string): { contentType: string; bytes: Buffer } {
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(raw)?.[1];
  expect(boundary).toBeDefined();
  const part = raw
    .split(`--${boundary}`)
    .find((p) => p.includes(`filename="${filename}"`) || p.includes(`name="${filename}"`));
  expect(part, `no MIME part named ${filename}`).toBeDefined();
  const [headers = '', ...body] = part!.split(/\r?\n\r?\n/);
  expect(headers).toMatch(/Content-Transfer-Encoding: base64/i);
  expect(headers).toMatch(/Content-Disposition: attachment/i);
  return {
    contentType: /Content-Type: ([^;\r\n]+)/i.exec(headers)![1]!.trim(),
    bytes: Buffer.from(body.join('').replace(/\s+/g, ''), 'base64'),
  };
}
