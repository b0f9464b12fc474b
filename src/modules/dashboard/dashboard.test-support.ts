import type { Insertable, Kysely } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import type { DB, PaymentsTable } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';

/**
 * Shared by the dashboard tests. Payments are written straight into the table (the payments
 * API is its own module with its own tests): the dashboard only reads them.
 */

export interface TestPayment {
  direction: 'INCOMING' | 'OUTGOING';
  status: 'PENDING' | 'MARKED';
  /** Positive integer minor units. */
  amount: number;
  paymentDate: string;
  currency?: string;
}

/** Inserts payments of `accountId` in batches (default currency EUR). */
export async function insertPayments(
  db: Kysely<DB>,
  accountId: string,
  payments: TestPayment[],
): Promise<void> {
  const now = new Date().toISOString();
  const rows: Insertable<PaymentsTable>[] = payments.map((p) => ({
    id: newId('payment'),
    account_id: accountId,
    direction: p.direction,
    document_id: null,
    document_number: null,
    contract_id: null,
    contract_name: null,
    partner_id: null,
    partner_name: null,
    amount: p.amount,
    currency: p.currency ?? 'EUR',
    payment_date: p.paymentDate,
    status: p.status,
    payment_method: null,
    provider_payment_intent_id: null,
    failure_reason: null,
    marked_at: p.status === 'MARKED' ? now : null,
    source: 'MANUAL',
    import_id: null,
    version: 1,
    created_at: now,
    updated_at: now,
  }));
  // 23 columns × 500 rows stays under both databases' bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('payments')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** A settled (MARKED) payment in EUR. */
export const marked = (
  direction: 'INCOMING' | 'OUTGOING',
  amount: number,
  paymentDate: string,
): TestPayment => ({ direction, status: 'MARKED', amount, paymentDate });

export function putAnchor(
  t: TestApp,
  user: TestUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'PUT',
    url: '/v1/dashboard/cash-anchor',
    token: user.token,
    payload,
    headers,
  });
}

export function getJson<T>(t: TestApp, user: TestUser, url: string): Promise<T> {
  return t.request({ method: 'GET', url, token: user.token }).then((res) => {
    if (res.statusCode !== 200)
      throw new Error(`GET ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json<T>();
  });
}

export interface SeriesBucket {
  start: string;
  end: string;
  partial: boolean;
  income: number;
  expense: number;
  net: number;
  balance: number | null;
}

export interface Series {
  from: string;
  to: string;
  interval: string;
  currency: string;
  openingBalance: number | null;
  buckets: SeriesBucket[];
}

/** A clock the tests set to a calendar day (09:00 UTC), forwards or backwards. */
export class DayClock {
  private day: string;
  constructor(day: string) {
    this.day = day;
  }
  set(day: string): void {
    this.day = day;
  }
  now(): Date {
    return new Date(`${this.day}T09:00:00Z`);
  }
}

/** Changes account settings through the API (admin), reading the current version first. */
export async function patchSettings(
  t: TestApp,
  admin: TestUser,
  patch: Record<string, unknown>,
): Promise<void> {
  const current = await getJson<{ version: number }>(t, admin, '/v1/account/addresses');
  const res = await t.request({
    method: 'PATCH',
    url: '/v1/account/addresses',
    token: admin.token,
    payload: { version: current.version, ...patch },
  });
  if (res.statusCode !== 200) throw new Error(`settings not changed: ${res.body}`);
}
