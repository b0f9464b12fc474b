import {
  Kysely,
  type Compilable,
  type CompiledQuery,
  type Transaction,
  type TransactionBuilder,
} from 'kysely';
import { isPostgres } from './dialect.js';
import {
  AHEAD,
  AHEAD_DONE,
  AHEAD_DROP,
  deferredReads,
  deferredStatements,
  FLUSH,
  unpreparedStatements,
  type ReadSlot,
} from './pg-driver.js';

type Hook<DB> = (db: Kysely<DB>) => Promise<void>;

const hooks = new WeakMap<object, unknown[]>();

/**
 * Runs `hook` once `trx` has committed, before the transaction's `execute()` resolves, so the
 * caller sees its effects as part of the write. Answers false (and does nothing) when `trx`
 * was not opened by a `KontorKysely`; the caller must then do the work inside the transaction.
 * A hook's failure is the hook's to handle: the write has committed by then.
 */
export function afterCommit<DB>(trx: Transaction<DB>, hook: Hook<DB>): boolean {
  const list = hooks.get(trx);
  if (!list) return false;
  list.push(hook);
  return true;
}

/** Kysely whose transactions run their `afterCommit` hooks after the commit. */
export class KontorKysely<DB> extends Kysely<DB> {
  override transaction(): TransactionBuilder<DB> {
    const builder = super.transaction();
    const execute = builder.execute.bind(builder);
    builder.execute = async <T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> => {
      const pending: Hook<DB>[] = [];
      const result = await execute((trx) => {
        hooks.set(trx, pending);
        return callback(trx);
      });
      for (const hook of pending) await hook(this);
      return result;
    };
    return builder;
  }
}

/** A query as the driver gets it: compiled once, so a mark set on it reaches the driver. */
function compiledOf<R>(query: Compilable<R> | CompiledQuery<R>): CompiledQuery<R> {
  return 'compile' in query ? query.compile() : query;
}

/**
 * Runs a statement whose answer the caller does not need (an insert without RETURNING, a
 * lock). On PostgreSQL inside a transaction it is sent later, together with the transaction's
 * other deferred statements in one round trip, before the next statement or with the COMMIT
 * (see `LazyConnection`); elsewhere it runs at once. Its errors may surface at that later
 * point, so defer only statements whose failure no caller handles on its own (audit events,
 * tags of a record written in the same transaction, the audit chain's lock).
 */
export async function deferStatement(
  db: { executeQuery(query: CompiledQuery): Promise<unknown> },
  query: Compilable | CompiledQuery,
): Promise<void> {
  const compiled = compiledOf(query);
  deferredStatements.add(compiled);
  await db.executeQuery(compiled);
}

/** `deferStatement` for an insert (no RETURNING). */
export const deferInsert = deferStatement;

/**
 * Starts a read whose answer the caller needs later in the transaction, not now (the webhook
 * endpoints of the account, asked for at the start of a write and used at its end). On
 * PostgreSQL inside a transaction it goes out with the transaction's next statement, in the
 * same round trip, instead of a round trip of its own; elsewhere it runs at once. Answers a
 * function that resolves to the rows, sending the read first if nothing has taken it yet.
 * Under READ COMMITTED a read at the start of the transaction sees what one at its end would,
 * less what commits in between; use it only where that difference is the same race either way.
 * A statement that writes and answers rows may be deferred the same way when its answer is
 * wanted only after the commit (the audit seal: its count goes out with the `COMMIT`).
 */
export async function deferRead<R>(
  db: Pick<Kysely<unknown>, 'executeQuery' | 'getExecutor'>,
  query: Compilable<R> | CompiledQuery<R>,
): Promise<() => Promise<R[]>> {
  const compiled = compiledOf(query);
  if (!isPostgres(db)) {
    // Nothing to hold back: read at once, without the slot (its promises and its entry in a
    // WeakMap, which every young-generation collection walks, cost SQLite's writes a few %).
    const { rows } = await db.executeQuery(compiled);
    return () => Promise.resolve(rows);
  }
  let slot!: ReadSlot;
  const rows = new Promise<R[]>((resolve, reject) => {
    slot = { deferred: false, sent: false, resolve: resolve as (rows: unknown[]) => void, reject };
  });
  // A failure is the transaction's, reported by the statement that carried the read.
  rows.catch(() => undefined);
  deferredReads.set(compiled, slot);
  const result = await db.executeQuery(compiled);
  if (!slot.deferred) return () => Promise.resolve(result.rows);
  return async () => {
    if (!slot.sent) await db.executeQuery(FLUSH);
    return rows;
  };
}

/** A read started now whose answer is asked for later (`deferRead`). */
export type Later<T> = () => Promise<T>;

/**
 * `deferRead` of a read that answers at most one row (a point read): the row, or undefined.
 * Several of them started in a row on PostgreSQL go out together (in a transaction with its next
 * statement; reading ahead, `readAhead`, in one round trip of their own), so a write's reads of
 * the records it names (its account, template, partner, tax rates) cost one round trip instead
 * of one each; elsewhere each runs at once.
 */
export async function deferFirst<R>(
  db: Pick<Kysely<unknown>, 'executeQuery' | 'getExecutor'>,
  query: Compilable<R> | CompiledQuery<R>,
): Promise<Later<R | undefined>> {
  const rows = await deferRead(db, query);
  return async () => (await rows())[0];
}

/**
 * Reads ahead outside a transaction: `start` starts reads on the executor it is given (with
 * `deferFirst` or `deferRead`, each answering a function for its rows later), and on PostgreSQL
 * they go out together in one round trip without BEGIN (one implicit transaction, so one
 * snapshot), instead of one round trip each; what `start` did not ask for yet goes out when it
 * is done, and its connection goes back to the pool. Answers what `start` answered, whose
 * functions then answer from rows already read. Elsewhere `start` runs on `db`, each read at
 * once. Reads only: `start` must not write, and whatever the later answer functions read
 * besides (a record only a read row names) they read through another executor, not this one.
 */
export async function readAhead<DB, T>(
  db: Kysely<DB>,
  start: (ahead: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (!isPostgres(db)) return start(db);
  return db.connection().execute(async (ahead) => {
    await ahead.executeQuery(AHEAD);
    let started: T;
    try {
      started = await start(ahead);
    } catch (err) {
      await ahead.executeQuery(AHEAD_DROP);
      throw err;
    }
    await ahead.executeQuery(AHEAD_DONE);
    return started;
  });
}

/**
 * Runs a statement that PostgreSQL plans anew for its values on every run, never as a prepared
 * statement (elsewhere it runs as any other). For a statement whose good plan depends on the
 * size of a table that grows while a connection keeps the statement: a prepared statement's
 * generic plan, made at its sixth run on that connection, stays until an ANALYZE of the table
 * replaces it, and made while the table was small and had no statistics it may read every row
 * of an account where an index gives one (docs/benchmarks.md, "A plan made while the partners
 * were few").
 */
export async function plannedEachRun<R>(
  db: { executeQuery(query: CompiledQuery): Promise<{ rows: unknown[] }> },
  query: Compilable<R> | CompiledQuery<R>,
): Promise<R[]> {
  const compiled = compiledOf(query);
  unpreparedStatements.add(compiled);
  return (await db.executeQuery(compiled)).rows as R[];
}
