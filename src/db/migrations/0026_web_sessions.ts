import type { Kysely } from 'kysely';

/**
 * The web app's sign-in. `sessions.client`: which client started a session — `api` (login
 * through `/v1/auth/login`, tokens held by the caller) or `web` (the web app's sign-in, whose
 * refresh token lives in an HttpOnly cookie and whose access token stands in for the client
 * key). `setup_links`: the one-time links that create the first account without a mail;
 * only their SHA-256 is kept, and a used link is marked so it never works again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('client', 'text', (c) => c.notNull().defaultTo('api'))
    .execute();
  await db.schema
    .createTable('setup_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}
