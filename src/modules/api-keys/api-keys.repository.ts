import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, DB } from '../../db/schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Every query on `api_keys` (operator-wide: keys belong to no account). */

export async function insertApiKey(db: Kysely<DB>, row: Insertable<ApiKeysTable>): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export function listApiKeyRows(db: Kysely<DB>): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().orderBy('id').execute();
}

/** False when no active key has that id. */
export async function revokeApiKeyRow(db: Kysely<DB>, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function countActiveApiKeyRows(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
