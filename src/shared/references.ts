import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { AppError } from './errors.js';

/** A column of another table that points at a record of the target resource. */
export interface Reference {
  table: string;
  column: string;
  /** What the referencing records are called in the 409 message, e.g. `contracts`. */
  label: string;
}

const registry = new Map<string, Reference[]>();

/**
 * Declares that `ref.table.ref.column` references records of `target`. Modules register their
 * outgoing references once at import; deleting a referenced record is then refused with 409
 * `in_use` naming the referencing records (decisions §6). A foreign key backs each reference,
 * so a reference added concurrently still cannot leave a dangling id.
 */
export function registerReference(target: string, ref: Reference): () => void {
  const refs = registry.get(target) ?? [];
  const known = refs.find((r) => r.table === ref.table && r.column === ref.column);
  if (!known) refs.push(ref);
  registry.set(target, refs);
  // Answers how to take it back (tests that declare a reference to a table of their own).
  return () => {
    if (known) return;
    const index = refs.indexOf(ref);
    if (index >= 0) refs.splice(index, 1);
  };
}

/** Throws 409 `in_use` when any registered reference points at the record. */
export async function assertUnreferenced(
  trx: Kysely<DB> | Transaction<DB>,
  target: string,
  accountId: string,
  id: string,
): Promise<void> {
  const found: string[] = [];
  for (const ref of registry.get(target) ?? []) {
    const result = await sql<{
      n: number | string;
    }>`select count(*) as n from ${sql.table(ref.table)} where account_id = ${accountId} and ${sql.ref(ref.column)} = ${id}`.execute(
      trx,
    );
    const n = Number(result.rows[0]?.n ?? 0);
    if (n > 0) found.push(`${n} ${ref.label}`);
  }
  if (found.length > 0)
    throw new AppError('in_use', `The ${target} is still referenced by ${found.join(', ')}.`, {
      members: { referencedBy: found },
    });
}

export function inUseByForeignKey(target: string): AppError {
  return new AppError('in_use', `The ${target} is still referenced by other records.`);
}
