import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { registerReference } from '../../shared/references.js';

// A file that a product shows or a partner has as its logo cannot be deleted (409 in_use).
registerReference('file', { table: 'products', column: 'photo_file_id', label: 'products' });
registerReference('file', { table: 'partners', column: 'logo_file_id', label: 'partners' });

/** A check run in the delete transaction before the row goes; throws to refuse the delete. */
export type FileDeleteHook = (
  trx: Transaction<DB>,
  accountId: string,
  fileId: string,
) => Promise<void>;

const deleteHooks: FileDeleteHook[] = [];

/**
 * Registers a check for deletes that a plain reference cannot express; it runs under the file
 * row's lock, before the row is deleted. Documents use it: only FINAL documents keep their
 * file (decisions §8), e.g. count `documents WHERE file_id = ? AND status = 'FINAL'` and throw
 * 409 `in_use`, then clear `file_id` of drafts (the foreign key would refuse the delete).
 */
export function onFileDelete(hook: FileDeleteHook): void {
  if (!deleteHooks.includes(hook)) deleteHooks.push(hook);
}

/** Runs every registered hook for a file about to be deleted (the files service calls it). */
export async function runDeleteHooks(
  trx: Transaction<DB>,
  accountId: string,
  fileId: string,
): Promise<void> {
  for (const hook of deleteHooks) await hook(trx, accountId, fileId);
}
