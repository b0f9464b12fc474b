import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import { newSecret } from '../../shared/secrets.js';
import * as repo from './api-keys.repository.js';

/**
 * Client API keys (`x-api-key`) identify the application calling Kontor. They belong to the
 * operator, not to an account, so they are managed from the CLI and never through the API.
 */
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export async function createApiKey(
  db: Kysely<DB>,
  name: string,
  now = new Date(),
): Promise<ApiKeyInfo & { key: string }> {
  const secret = newSecret('kak');
  const row = {
    id: newId('apiKey'),
    name,
    prefix: secret.display,
    key_hash: secret.hash,
    created_at: now.toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await repo.insertApiKey(db, row);
  return {
    id: row.id,
    name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: null,
    revokedAt: null,
    key: secret.secret,
  };
}

export async function listApiKeys(db: Kysely<DB>): Promise<ApiKeyInfo[]> {
  const rows = await repo.listApiKeyRows(db);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

/** Revokes a key; answers false when no active key has that id. */
export function revokeApiKey(db: Kysely<DB>, id: string, now = new Date()): Promise<boolean> {
  return repo.revokeApiKeyRow(db, id, now.toISOString());
}

export function countActiveApiKeys(db: Kysely<DB>): Promise<number> {
  return repo.countActiveApiKeyRows(db);
}
