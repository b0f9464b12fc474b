import type { Insertable, Selectable, Updateable } from 'kysely';
import { insertChunked, type Executor } from '../../db/records.js';
import type {
  SepaBankAccountsTable,
  SepaMandateAmendmentsTable,
  SepaMandatesTable,
  SepaRunItemsTable,
  SepaRunsTable,
  SepaSettingsTable,
} from '../../db/schema.js';

export type MandateRow = Selectable<SepaMandatesTable>;
export type AmendmentRow = Selectable<SepaMandateAmendmentsTable>;
export type BankAccountRow = Selectable<SepaBankAccountsTable>;
export type SettingsRow = Selectable<SepaSettingsTable>;
export type RunRow = Selectable<SepaRunsTable>;
export type RunItemRow = Selectable<SepaRunItemsTable>;

/** SEPA queries; every one is scoped by account (STYLE rule 3). */

export function findMandate(
  db: Executor,
  accountId: string,
  id: string,
): Promise<MandateRow | undefined> {
  return db
    .selectFrom('sepa_mandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function mandateVersion(
  db: Executor,
  accountId: string,
  id: string,
): Promise<number | undefined> {
  return (await findMandate(db, accountId, id))?.version;
}

/** A page of a partner's mandates, newest first. */
export function listMandates(
  db: Executor,
  accountId: string,
  partnerId: string,
  f: { limit: number; afterId?: string | undefined; active?: boolean | undefined },
): Promise<MandateRow[]> {
  let query = db
    .selectFrom('sepa_mandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('partner_id', '=', partnerId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.active === true)
    query = query.where('revoked_at', 'is', null).where('sequence_state', '!=', 'COMPLETED');
  if (f.active === false)
    query = query.where((eb) =>
      eb.or([eb('revoked_at', 'is not', null), eb('sequence_state', '=', 'COMPLETED')]),
    );
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** The active mandates of these partners, the newest first per partner. */
export function activeMandates(
  db: Executor,
  accountId: string,
  partnerIds: string[],
): Promise<MandateRow[]> {
  if (partnerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_mandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('partner_id', 'in', [...new Set(partnerIds)])
    .orderBy('id', 'desc')
    .execute();
}

export async function insertMandate(trx: Executor, row: MandateRow): Promise<void> {
  await trx.insertInto('sepa_mandates').values(row).execute();
}

/** Compare-and-set on `version` (and on an active mandate when `activeOnly`). */
export function updateMandate(
  trx: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Updateable<SepaMandatesTable>,
  activeOnly = false,
): Promise<MandateRow | undefined> {
  let query = trx
    .updateTable('sepa_mandates')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('version', '=', version);
  if (activeOnly) query = query.where('revoked_at', 'is', null);
  return query.returningAll().executeTakeFirst();
}

/** Moves a mandate's sequence state after a collection, if it still stands at `from`. */
export async function advanceMandate(
  trx: Executor,
  accountId: string,
  id: string,
  step: { from: string; to: string; collectionDate: string; at: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('sepa_mandates')
    .set((eb) => ({
      sequence_state: step.to,
      last_collection_date: step.collectionDate,
      updated_at: step.at,
      version: eb('version', '+', 1),
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('sequence_state', '=', step.from)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertAmendment(trx: Executor, row: AmendmentRow): Promise<void> {
  await trx.insertInto('sepa_mandate_amendments').values(row).execute();
}

/** The changes of these mandates not yet carried by a collection, oldest first. */
export function pendingAmendments(
  db: Executor,
  accountId: string,
  mandateIds: string[],
): Promise<AmendmentRow[]> {
  if (mandateIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_mandate_amendments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mandate_id', 'in', [...new Set(mandateIds)])
    .where('pending', '=', 1)
    .where('carried_end_to_end_id', 'is', null)
    .orderBy('id')
    .execute();
}

/** A mandate's recorded changes, newest first. */
export function amendmentsOf(
  db: Executor,
  accountId: string,
  mandateId: string,
): Promise<AmendmentRow[]> {
  return db
    .selectFrom('sepa_mandate_amendments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('mandate_id', '=', mandateId)
    .orderBy('id', 'desc')
    .execute();
}

/** Marks pending changes carried by the collection item with this EndToEndId (once). */
export async function carryAmendments(
  trx: Executor,
  accountId: string,
  ids: string[],
  endToEndId: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx
    .updateTable('sepa_mandate_amendments')
    .set({ carried_end_to_end_id: endToEndId })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('carried_end_to_end_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A returned collection carried nothing to the debtor's bank: its changes are pending again. */
export async function reopenAmendments(
  trx: Executor,
  accountId: string,
  endToEndId: string,
): Promise<void> {
  await trx
    .updateTable('sepa_mandate_amendments')
    .set({ carried_end_to_end_id: null })
    .where('account_id', '=', accountId)
    .where('carried_end_to_end_id', '=', endToEndId)
    .execute();
}

export function findBankAccount(
  db: Executor,
  accountId: string,
  partnerId: string,
): Promise<BankAccountRow | undefined> {
  return db
    .selectFrom('sepa_bank_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('partner_id', '=', partnerId)
    .executeTakeFirst();
}

export function bankAccountsOf(
  db: Executor,
  accountId: string,
  partnerIds: string[],
): Promise<BankAccountRow[]> {
  if (partnerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_bank_accounts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('partner_id', 'in', [...new Set(partnerIds)])
    .execute();
}

export async function insertBankAccount(trx: Executor, row: BankAccountRow): Promise<void> {
  await trx.insertInto('sepa_bank_accounts').values(row).execute();
}

export function updateBankAccount(
  trx: Executor,
  accountId: string,
  partnerId: string,
  version: number,
  values: Updateable<SepaBankAccountsTable>,
): Promise<BankAccountRow | undefined> {
  return trx
    .updateTable('sepa_bank_accounts')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('partner_id', '=', partnerId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

export function deleteBankAccount(
  trx: Executor,
  accountId: string,
  partnerId: string,
): Promise<BankAccountRow | undefined> {
  return trx
    .deleteFrom('sepa_bank_accounts')
    .where('account_id', '=', accountId)
    .where('partner_id', '=', partnerId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The accounts whose automatic collection is due today, each claimed for today by a
 * compare-and-set on `auto_collected_on` (so one replica runs it once a day).
 */
export async function claimAutoCollections(db: Executor, today: string): Promise<string[]> {
  const due = await db
    .selectFrom('sepa_settings')
    .select('account_id')
    .where('auto_collect', '=', 1)
    .where((eb) =>
      eb.or([eb('auto_collected_on', 'is', null), eb('auto_collected_on', '<', today)]),
    )
    .execute();
  const claimed: string[] = [];
  for (const { account_id } of due) {
    const result = await db
      .updateTable('sepa_settings')
      .set({ auto_collected_on: today })
      .where('account_id', '=', account_id)
      .where('auto_collect', '=', 1)
      .where((eb) =>
        eb.or([eb('auto_collected_on', 'is', null), eb('auto_collected_on', '<', today)]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push(account_id);
  }
  return claimed;
}

export function findSettings(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  return db
    .selectFrom('sepa_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function insertSettings(trx: Executor, row: SettingsRow): Promise<void> {
  await trx.insertInto('sepa_settings').values(row).execute();
}

export function updateSettings(
  trx: Executor,
  accountId: string,
  version: number,
  values: Updateable<SepaSettingsTable>,
): Promise<SettingsRow | undefined> {
  return trx
    .updateTable('sepa_settings')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** The invoices among `documentIds` that already are in a run of this kind. */
export async function documentsInRuns(
  db: Executor,
  accountId: string,
  kind: string,
  documentIds: string[],
): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('sepa_run_items as i')
    .innerJoin('sepa_runs as r', (join) =>
      join.onRef('r.id', '=', 'i.run_id').onRef('r.account_id', '=', 'i.account_id'),
    )
    .select('i.document_id')
    .where('i.account_id', '=', accountId)
    .where('r.kind', '=', kind)
    .where('i.document_id', 'in', documentIds)
    // A returned item no longer holds its invoice: it may be collected again.
    .where('i.returned_on', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.document_id));
}

export async function insertRun(
  trx: Executor,
  run: Insertable<SepaRunsTable>,
  items: Insertable<SepaRunItemsTable>[],
): Promise<void> {
  await trx.insertInto('sepa_runs').values(run).execute();
  // In chunks: a run of 10 000 items is more bound parameters than one statement may hold.
  await insertChunked(trx, 'sepa_run_items', items, 20);
}

export function findRun(
  db: Executor,
  accountId: string,
  kind: string,
  id: string,
): Promise<RunRow | undefined> {
  return db
    .selectFrom('sepa_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listRuns(
  db: Executor,
  accountId: string,
  kind: string,
  f: { limit: number; afterId?: string | undefined },
): Promise<RunRow[]> {
  let query = db
    .selectFrom('sepa_runs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', kind);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export function runItems(db: Executor, accountId: string, runIds: string[]): Promise<RunItemRow[]> {
  if (runIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('sepa_run_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('run_id', 'in', runIds)
    .orderBy('id')
    .execute();
}

/** A run item with its run's kind and message id, as a statement line finds it. */
export type ItemWithRun = RunItemRow & { kind: string; message_id: string };

/** The run items with these EndToEndIds (chunked, so 10 000 ids stay within bind limits). */
export async function itemsByEndToEndId(
  db: Executor,
  accountId: string,
  endToEndIds: string[],
): Promise<ItemWithRun[]> {
  const ids = [...new Set(endToEndIds)];
  const out: ItemWithRun[] = [];
  for (let at = 0; at < ids.length; at += 500) {
    const rows = await db
      .selectFrom('sepa_run_items as i')
      .innerJoin('sepa_runs as r', (join) =>
        join.onRef('r.id', '=', 'i.run_id').onRef('r.account_id', '=', 'i.account_id'),
      )
      .selectAll('i')
      .select(['r.kind', 'r.message_id'])
      .where('i.account_id', '=', accountId)
      .where('i.end_to_end_id', 'in', ids.slice(at, at + 500))
      .execute();
    out.push(...rows);
  }
  return out;
}

/** Marks an item returned, once (compare-and-set on `returned_on` still null). */
export async function markItemReturned(
  trx: Executor,
  accountId: string,
  id: string,
  values: { returnedOn: string; reason: string | null },
): Promise<boolean> {
  const result = await trx
    .updateTable('sepa_run_items')
    .set({ returned_on: values.returnedOn, return_reason: values.reason })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('returned_on', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** How many items of a mandate other than `exceptId` still stand (were not returned). */
export async function standingItemsOfMandate(
  db: Executor,
  accountId: string,
  mandateId: string,
  exceptId: string,
): Promise<number> {
  const row = await db
    .selectFrom('sepa_run_items')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('account_id', '=', accountId)
    .where('mandate_id', '=', mandateId)
    .where('id', '!=', exceptId)
    .where('returned_on', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The runs whose message id starts with one of these prefixes (a statement's batch reference
 * names a `PmtInfId`, which starts with the run's message id, possibly cut).
 */
export async function runsByMessageIdPrefix(
  db: Executor,
  accountId: string,
  prefixes: string[],
): Promise<RunRow[]> {
  const out = new Map<string, RunRow>();
  for (const prefix of new Set(prefixes)) {
    if (!/^[a-z0-9-]+$/.test(prefix)) continue;
    const rows = await db
      .selectFrom('sepa_runs')
      .selectAll()
      .where('account_id', '=', accountId)
      // The prefixes are letters, digits and `-` only: nothing LIKE would read as a wildcard.
      .where('message_id', 'like', `${prefix}%`)
      .execute();
    for (const row of rows) out.set(row.id, row);
  }
  return [...out.values()];
}
