import { expect } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { call, type Body } from '../documents/documents.test-support.js';

/** Test support of the SEPA round trip (`round-trip.test.ts`, `batch-booking.test.ts`). */

/** A run item as the collections and transfers routes answer it. */
export type RunItem = {
  invoiceId: string;
  endToEndId: string;
  paymentId: string;
  amount: number;
  sequenceType: string;
};
export type Run = { id: string; messageId: string; items: RunItem[] };

/** Cents as a camt amount (`12.34`). */
export const cents = (n: number) => (n / 100).toFixed(2);

/** A camt.053 statement of the company's account holding these `Ntry` elements. */
export function camt053(entries: string[], date: string, version = '02'): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}"><BkToCstmrStmt><GrpHdr><MsgId>STMT-${date}</MsgId><CreDtTm>${date}T20:00:00</CreDtTm></GrpHdr><Stmt><Id>STMT-${date}</Id><CreDtTm>${date}T20:00:00</CreDtTm><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.join('')}</Stmt></BkToCstmrStmt></Document>`;
}

/** The app on 30 June 2026 and a user whose company has a creditor id. */
export async function creditorApp(): Promise<{ t: TestApp; user: TestUser }> {
  const t = await buildTestApp({ clock: new ManualClock(new Date('2026-06-30T08:00:00Z')) });
  const user = await createUser(t);
  const company = await call<Body>(t, user, 'GET', '/v1/account/company');
  const { updatedAt: _u, ...body } = company;
  await call(t, user, 'PUT', '/v1/account/company', { ...body, creditorId: 'DE98ZZZ09999999999' });
  return { t, user };
}

/** A real collection run of these invoices (201 expected) and its pain.008 file. */
export async function collectionRun(
  t: TestApp,
  user: TestUser,
  invoiceIds: string[],
): Promise<{ run: Run; xml: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/sepa/collections',
    token: user.token,
    payload: { invoiceIds },
  });
  expect(res.statusCode, res.body).toBe(201);
  const run = res.json<Run>();
  const file = await t.request({
    method: 'GET',
    url: `/v1/sepa/collections/${run.id}/file`,
    token: user.token,
  });
  return { run, xml: file.body };
}
