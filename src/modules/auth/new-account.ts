import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { insertAccount, newAccountRow } from '../account/index.js';
import { DEFAULT_PLAN } from '../plans/index.js';
import { seedAccountTaxRates } from '../tax-rates/index.js';
import { seedSystemTemplates } from '../document-templates/index.js';
import { insertUser, presentUser, type UserRow } from '../users/index.js';
import type { RequestMeta } from './auth.support.js';

export interface NewOwner {
  email: string;
  passwordHash: string;
  name: string;
  companyName: string;
}

/**
 * A new account with its first admin, its tax rates and system templates, audited: the one
 * way an account comes to be, whether by registration (the owner still `UNCONFIRMED` until
 * the mailed code) or by the one-time setup link (`ACTIVE`: the link proved the operator).
 */
export async function insertAccountWithOwner(
  trx: Transaction<DB>,
  owner: NewOwner,
  status: 'UNCONFIRMED' | 'ACTIVE',
  meta: RequestMeta,
  now: Date,
): Promise<{ accountId: string; user: UserRow }> {
  const at = now.toISOString();
  const account = newAccountRow(newId('account'), owner.companyName, DEFAULT_PLAN, at);
  const user: UserRow = {
    id: newId('user'),
    account_id: account.id,
    email: owner.email,
    name: owner.name,
    role: 'admin',
    status,
    password_hash: owner.passwordHash,
    email_confirmed_at: status === 'ACTIVE' ? at : null,
    last_login_at: null,
    version: 1,
    created_at: at,
    updated_at: at,
  };
  await insertAccount(trx, account);
  await insertUser(trx, user);
  const actor: Actor = {
    accountId: account.id,
    userId: user.id,
    tokenId: null,
    type: 'user',
    requestId: meta.requestId,
    ip: meta.ip,
  };
  await appendAudit(
    trx,
    actor,
    {
      action: 'account.created',
      resourceType: 'account',
      resourceId: account.id,
      changes: { name: account.name },
    },
    now,
  );
  await seedAccountTaxRates(trx, actor, account.currency, now);
  await seedSystemTemplates(trx, actor, now);
  await appendAudit(
    trx,
    actor,
    {
      action: 'user.registered',
      resourceType: 'user',
      resourceId: user.id,
      changes: presentUser(user),
    },
    now,
  );
  return { accountId: account.id, user };
}
