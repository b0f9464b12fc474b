import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { changedRows, SESSION_SLOT } from '../trigger-sql.js';

/**
 * What is still owed on the open invoices, kept by the database per account, currency, source
 * and due date (docs/dashboard.md): the dashboard's receivables and payables, and their overdue
 * parts, read a few hundred rows (one per due date) instead of every open invoice.
 *
 * An open invoice is a FINAL invoice (not a credit note) neither paid nor cancelled; it counts
 * with its open amount — gross total less deductions, FINAL credit notes and the magnitude of
 * its settled net, the figures migration 0039 keeps in its row — when that is above zero.
 * A trigger on `documents` takes a row's old part off its group and adds its new part whenever
 * one of those columns changes (a finalize, a payment's touch, a credit note, `paid_at`, a due
 * date). Integer sums in the write's transaction: each group is exactly the sum over its
 * invoices, which a test holds to the sum from scratch. A due date of none is kept as
 * '9999-12-31', never past. On PostgreSQL the triggers run per statement over its rows.
 *
 * The index the totals were summed over before (`documents_open_totals_idx`, 0038) has no
 * other reader and goes: one index less to write on every open invoice's change.
 */
const OPEN = (r: string) =>
  `(${r}.document_type = 'INVOICE' and ${r}.invoice_type = 'INVOICE' and ${r}.status = 'FINAL'
    and ${r}.cancelled_by_document_id is null and ${r}.paid_at is null)`;
const AMOUNT = (r: string) =>
  `(${r}.gross_total - ${r}.deducted_minor - ${r}.credit_notes_minor - abs(${r}.settled_net_minor))`;
const COLUMNS = [
  'account_id',
  'document_type',
  'invoice_type',
  'status',
  'cancelled_by_document_id',
  'paid_at',
  'currency',
  'source',
  'due_date',
  'gross_total',
  'settled_net_minor',
  'credit_notes_minor',
  'deducted_minor',
].join(', ');

/** Adds `sign` × the row's part (its open amount and 1, when above zero) to its group. */
const add = (r: 'new' | 'old', sign: '' | '-') =>
  `insert into open_invoice_totals (account_id, currency, source, due_date, amount, count)
    values (${r}.account_id, ${r}.currency, ${r}.source, coalesce(${r}.due_date, '9999-12-31'),
      ${sign}(case when ${AMOUNT(r)} > 0 then ${AMOUNT(r)} else 0 end),
      ${sign}(case when ${AMOUNT(r)} > 0 then 1 else 0 end))
    on conflict (account_id, currency, source, due_date, slot) do update
      set amount = open_invoice_totals.amount + excluded.amount,
        count = open_invoice_totals.count + excluded.count`;

/** The row's part as a row of the group it belongs to (PostgreSQL's statement triggers). */
const part = (r: string, sign: '' | '-') => `select ${r}.account_id, ${r}.currency, ${r}.source,
    coalesce(${r}.due_date, '9999-12-31') as due_date,
    ${sign}(case when ${AMOUNT(r)} > 0 then ${AMOUNT(r)} else 0 end) as amount,
    ${sign}(case when ${AMOUNT(r)} > 0 then 1 else 0 end) as count`;
const CHANGED = changedRows(COLUMNS.split(', '));
/** Adds the parts, summed per group, to their groups. */
const upsertAll = (parts: string) => `insert into open_invoice_totals
    (account_id, currency, source, due_date, slot, amount, count)
  select account_id, currency, source, due_date, ${SESSION_SLOT}, sum(amount), sum(count)
  from (${parts}) p
  group by account_id, currency, source, due_date
  on conflict (account_id, currency, source, due_date, slot) do update
    set amount = open_invoice_totals.amount + excluded.amount,
      count = open_invoice_totals.count + excluded.count`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('open_invoice_totals')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    // As in payment_day_flows (0040): PostgreSQL's sessions write their own rows.
    .addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('open_invoice_totals_pk', [
      'account_id',
      'currency',
      'source',
      'due_date',
      'slot',
    ])
    .execute();
  const statements = isPostgres(db)
    ? [
        // Statement triggers over the statement's rows, summed per group before the upsert
        // (see 0040: one write of a group's row per statement, not one per invoice).
        `create or replace function open_invoice_totals_keep() returns trigger language plpgsql as $$
          begin
            if tg_op = 'INSERT' then
              ${upsertAll(`${part('n', '')} from n where ${OPEN('n')}`)};
            elsif tg_op = 'DELETE' then
              ${upsertAll(`${part('o', '-')} from o where ${OPEN('o')}`)};
            else
              ${upsertAll(`${part('o', '-')} from ${CHANGED} and ${OPEN('o')}
                union all ${part('n', '')} from ${CHANGED} and ${OPEN('n')}`)};
            end if;
            return null;
          end $$`,
        `create trigger open_invoice_totals_insert after insert on documents
          referencing new table as n for each statement execute function open_invoice_totals_keep()`,
        `create trigger open_invoice_totals_update after update on documents
          referencing old table as o new table as n
          for each statement execute function open_invoice_totals_keep()`,
        `create trigger open_invoice_totals_delete after delete on documents
          referencing old table as o for each statement execute function open_invoice_totals_keep()`,
      ]
    : [
        `create trigger open_invoice_totals_insert after insert on documents for each row
          when ${OPEN('new')} begin ${add('new', '')}; end`,
        // The old row's part goes, the new row's comes: two triggers, each with its condition.
        // A figures' recompute (0039) is an update of its own that fires these again, so an
        // update and its recompute add up to the row's first and last state.
        `create trigger open_invoice_totals_update_old after update of ${COLUMNS} on documents
          for each row when ${OPEN('old')} begin ${add('old', '-')}; end`,
        `create trigger open_invoice_totals_update_new after update of ${COLUMNS} on documents
          for each row when ${OPEN('new')} begin ${add('new', '')}; end`,
        `create trigger open_invoice_totals_delete after delete on documents for each row
          when ${OPEN('old')} begin ${add('old', '-')}; end`,
      ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await db.schema.dropIndex('documents_open_totals_idx').execute();
  await sql
    .raw(
      `insert into open_invoice_totals (account_id, currency, source, due_date, amount, count)
      select d.account_id, d.currency, d.source, coalesce(d.due_date, '9999-12-31'),
        sum(case when ${AMOUNT('d')} > 0 then ${AMOUNT('d')} else 0 end),
        sum(case when ${AMOUNT('d')} > 0 then 1 else 0 end)
      from documents d where ${OPEN('d')}
      group by d.account_id, d.currency, d.source, coalesce(d.due_date, '9999-12-31')`,
    )
    .execute(db);
}
