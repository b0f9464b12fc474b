import type { Transaction } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import { deleteUserCredentials } from './credentials.repository.js';
import type { UserRow } from './users.presenter.js';

/**
 * Every query on `users`: this file is the table's one writer. Reads are scoped to an account
 * except the two a sign-in needs before it knows the account (by email, by id of a token).
 */

export function listUsers(
  db: Executor,
  accountId: string,
  q: { after: string | undefined; role?: string; status?: string; limit: number },
): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().where('account_id', '=', accountId);
  if (q.after !== undefined) query = query.where('id', '<', q.after);
  if (q.role !== undefined) query = query.where('role', '=', q.role);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}

export function findUser(
  db: Executor,
  accountId: string,
  userId: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Unscoped: the user behind a credential that was just checked. */
export function findUserById(db: Executor, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

/** Unscoped: emails are unique across Kontor, and a sign-in names no account. */
export function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function emailTakenInAccount(
  db: Executor,
  accountId: string,
  email: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether the installation has any user at all (a setup link is for an empty one). */
export async function anyUserExists(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Users of the account, invited ones included: what the plan's seats count. */
export async function countUsers(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether an active admin other than `exceptUserId` exists. */
export async function hasAnotherActiveAdmin(
  trx: Transaction<DB>,
  accountId: string,
  exceptUserId: string,
): Promise<boolean> {
  const other = await trx
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .where('status', '=', 'ACTIVE')
    .where('id', '!=', exceptUserId)
    .executeTakeFirst();
  return other !== undefined;
}

export async function insertUser(trx: Transaction<DB>, row: UserRow): Promise<void> {
  await trx.insertInto('users').values(row).execute();
}

export function setUserRole(
  trx: Transaction<DB>,
  accountId: string,
  userId: string,
  role: 'admin' | 'user',
  at: string,
): Promise<UserRow> {
  return trx
    .updateTable('users')
    .set((eb) => ({ role, updated_at: at, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The address is confirmed: the user may sign in. */
export async function confirmUser(trx: Transaction<DB>, userId: string, at: string): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({
      status: 'ACTIVE',
      email_confirmed_at: at,
      updated_at: at,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', userId)
    .execute();
}

/** A new password (reset or accepted invitation) also confirms the address it came to. */
export async function setPassword(
  trx: Transaction<DB>,
  user: Pick<UserRow, 'id' | 'email_confirmed_at'>,
  passwordHash: string,
  at: string,
): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({
      password_hash: passwordHash,
      status: 'ACTIVE',
      email_confirmed_at: user.email_confirmed_at ?? at,
      updated_at: at,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', user.id)
    .execute();
}

export async function recordLogin(trx: Transaction<DB>, userId: string, at: string): Promise<void> {
  await trx.updateTable('users').set({ last_login_at: at }).where('id', '=', userId).execute();
}

/** Deletes the user with every credential row that names them (tokens, sessions, codes). */
export async function deleteUser(
  trx: Transaction<DB>,
  accountId: string,
  userId: string,
): Promise<void> {
  await deleteUserCredentials(trx, accountId, userId);
  await trx
    .deleteFrom('users')
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .execute();
}

/** E-mail addresses of the account's ACTIVE admins: who hears of what concerns the account. */
export async function activeAdminEmails(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('account_id', '=', accountId)
    .where('role', '=', 'admin')
    .where('status', '=', 'ACTIVE')
    .orderBy('email')
    .execute();
  return rows.map((r) => r.email);
}
