import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { changedRows } from '../trigger-sql.js';

/**
 * An invoice's payment figures, kept in its row by the database (docs/invoicing.md, "Payment
 * state"): what its open amount and `paymentStatus` are computed from, read from the row instead
 * of summed from other tables on every read.
 *
 * - `settled_net_minor`: its MARKED payments in its currency, incoming minus outgoing;
 * - `credit_notes_minor`: the gross total of its FINAL credit notes;
 * - `deducted_minor`: what it deducts as a final invoice (`document_deductions`).
 *
 * Each is always computed from scratch, never added to: whenever one of the rows it sums
 * changes, a trigger "touches" the document (sets the column to 0), and the document's own
 * trigger recomputes all three in that same write. So a figure cannot drift from the rows it
 * sums, whichever statement changed them (a payment through the API, a statement settling
 * thousands, a SEPA return, a credit note, a restore), and a write that carries a stale value in
 * (a row copied in code) is corrected the same way. On PostgreSQL the recompute is a BEFORE
 * trigger setting the written row; on SQLite an AFTER trigger updates the row just written, in
 * the same statement (SQLite's recursive triggers are off, so that update fires it no further).
 *
 * Only settled payments touch their document (a PENDING payment settles nothing), so creating
 * a SEPA run's pending payments locks no invoice row.
 */
const FIGURES = ['settled_net_minor', 'credit_notes_minor', 'deducted_minor'] as const;

/**
 * The three figures of the document row `d` (a table alias or `new`), from scratch. The
 * conditions beyond the account and the document are judged inside the sums, not in their
 * WHERE: there a plan made once for the trigger (PostgreSQL caches a generic one) could take the
 * dashboard's (account, status, currency, …) index and read every settled payment of the
 * account for each invoice (2.5 ms each, measured, and growing with the account); with only the
 * account and the document to match, the per-document indexes are the only fit.
 */
function figuresOf(d: string): Record<(typeof FIGURES)[number], string> {
  return {
    settled_net_minor: `coalesce((select sum(case
          when p.status <> 'MARKED' or p.currency <> ${d}.currency then 0
          when p.direction = 'INCOMING' then p.amount else -p.amount end)
        from payments p where p.account_id = ${d}.account_id and p.document_id = ${d}.id), 0)`,
    credit_notes_minor: `coalesce((select sum(case
          when c.invoice_type = 'CREDIT_NOTE' and c.status = 'FINAL' then c.gross_total else 0 end)
        from documents c
        where c.account_id = ${d}.account_id and c.preceding_document_id = ${d}.id), 0)`,
    deducted_minor: `coalesce((select sum(dd.gross_minor) from document_deductions dd
        where dd.account_id = ${d}.account_id and dd.final_document_id = ${d}.id), 0)`,
  };
}

/** The document `id` is touched: its figures are recomputed by its own trigger. */
const touch = (account: string, id: string, also = '') =>
  `update documents set settled_net_minor = 0 where account_id = ${account} and id = ${id}${also}`;

/**
 * What each touch follows: the column naming the document, when a row counts, and the columns
 * whose change matters. Only settled payments count.
 */
const payments = {
  column: 'document_id',
  counts: (r: string) => `${r}.status = 'MARKED'`,
  columns: 'status, amount, direction, currency, document_id, account_id',
};
// Any credit note of an invoice (a draft's changes touch it needlessly, and harmlessly).
const creditNotes = {
  column: 'preceding_document_id',
  counts: () => 'true',
  columns: 'status, gross_total, invoice_type, preceding_document_id, account_id',
};
const deductions = { column: 'final_document_id', counts: () => 'true' };

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of FIGURES)
    await db.schema
      .alterTable('documents')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  const statements = isPostgres(db) ? postgres() : sqlite();
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/**
 * PostgreSQL: the touches are statement triggers over the statement's rows (transition tables),
 * so a statement settling 500 payments touches their invoices in one UPDATE, not 500. A touch
 * that finds nothing to touch issues no UPDATE (an empty one would fire the statement triggers
 * on documents again).
 */
function postgres(): string[] {
  const f = figuresOf('new');
  /** The documents `ids` (an array) are touched, when there are any. */
  const touchAll = `if ids is not null then
      update documents set settled_net_minor = 0 where id = any(ids);
    end if;`;
  /**
   * The function touching the documents `column` names in the statement's rows that `counts`:
   * the new rows of an insert, the old rows of a delete, and of an update the old and the new
   * document of each row where one of `columns` changed.
   */
  const touchFunction = (
    fn: string,
    column: string,
    columns: string,
    counts: (r: string) => string,
  ) => `create or replace function ${fn}() returns trigger language plpgsql as $$
      declare ids text[];
      begin
        if tg_op = 'INSERT' then
          select array_agg(distinct ${column}) into ids from n
            where ${counts('n')} and ${column} is not null;
        elsif tg_op = 'DELETE' then
          select array_agg(distinct ${column}) into ids from o
            where ${counts('o')} and ${column} is not null;
        else
          select array_agg(distinct d) into ids from (
            select case when ${counts('o')} then o.${column} end,
              case when ${counts('n')} then n.${column} end
            from ${changedRows(columns.split(', '))}) c(a, b), lateral (values (a), (b)) v(d)
            where d is not null;
        end if;
        ${touchAll}
        return null;
      end $$`;
  /** A statement trigger per event, each with the transition tables it has. */
  const perStatement = (name: string, table: string, fn: string) => [
    `create trigger ${name}_insert after insert on ${table} referencing new table as n
      for each statement execute function ${fn}()`,
    `create trigger ${name}_update after update on ${table}
      referencing old table as o new table as n for each statement execute function ${fn}()`,
    `create trigger ${name}_delete after delete on ${table} referencing old table as o
      for each statement execute function ${fn}()`,
  ];
  return [
    `create or replace function documents_figures() returns trigger language plpgsql as $$
      begin
        new.settled_net_minor := ${f.settled_net_minor};
        new.credit_notes_minor := ${f.credit_notes_minor};
        new.deducted_minor := ${f.deducted_minor};
        return new;
      end $$`,
    `create trigger documents_figures_insert before insert on documents for each row
      when (new.settled_net_minor <> 0 or new.credit_notes_minor <> 0 or new.deducted_minor <> 0)
      execute function documents_figures()`,
    `create trigger documents_figures_update
      before update of ${FIGURES.join(', ')}, currency on documents
      for each row execute function documents_figures()`,
    // Settled payments' invoices: the old row's and the new row's, when they were settled.
    touchFunction('payments_touch_documents', payments.column, payments.columns, payments.counts),
    ...perStatement('payments_touch_documents', 'payments', 'payments_touch_documents'),
    // Credit notes' invoices (any credit note: a draft's changes touch it needlessly, and
    // harmlessly).
    touchFunction(
      'credit_notes_touch_invoices',
      creditNotes.column,
      creditNotes.columns,
      creditNotes.counts,
    ),
    ...perStatement('credit_notes_touch_invoices', 'documents', 'credit_notes_touch_invoices'),
    `create or replace function deductions_touch_documents() returns trigger language plpgsql as $$
      declare ids text[];
      begin
        if tg_op = 'INSERT' then
          select array_agg(distinct final_document_id) into ids from n;
        elsif tg_op = 'DELETE' then
          select array_agg(distinct final_document_id) into ids from o;
        else
          select array_agg(distinct d) into ids from (
            select final_document_id from o union select final_document_id from n) v(d);
        end if;
        ${touchAll}
        return null;
      end $$`,
    ...perStatement(
      'deductions_touch_documents',
      'document_deductions',
      'deductions_touch_documents',
    ),
    // Every document's figures, by the trigger.
    `update documents set settled_net_minor = 0`,
  ];
}

function sqlite(): string[] {
  const f = figuresOf('documents');
  const recompute = `update documents set ${FIGURES.map((c) => `${c} = ${f[c]}`).join(', ')}
    where rowid = new.rowid`;
  /**
   * Triggers touching the document `column` names in a row of `table` that `counts`: the new
   * row's on insert, the old row's on delete, and on an update (of `columns`, or of any column)
   * the old row's document and the new row's — the old one only when the row moved to another,
   * so a row that kept its document touches it once.
   */
  const touchTriggers = (
    name: string,
    table: string,
    {
      column,
      counts,
      columns,
    }: { column: string; counts: (r: string) => string; columns?: string },
  ) => {
    const has = (r: string) => `(${counts(r)} and ${r}.${column} is not null)`;
    const moved = ` and (old.${column} is not new.${column} or old.account_id is not new.account_id)`;
    return [
      `create trigger ${name}_insert after insert on ${table} for each row when ${has('new')}
        begin ${touch('new.account_id', `new.${column}`)}; end`,
      `create trigger ${name}_update after update${columns ? ` of ${columns}` : ''} on ${table}
        for each row when ${has('old')} or ${has('new')} begin
          ${touch('old.account_id', `old.${column}`, moved)};
          ${touch('new.account_id', `new.${column}`)};
        end`,
      `create trigger ${name}_delete after delete on ${table} for each row when ${has('old')}
        begin ${touch('old.account_id', `old.${column}`)}; end`,
    ];
  };
  return [
    `create trigger documents_figures_insert after insert on documents for each row
      when new.settled_net_minor <> 0 or new.credit_notes_minor <> 0 or new.deducted_minor <> 0
      begin ${recompute}; end`,
    `create trigger documents_figures_update after update of ${FIGURES.join(', ')}, currency
      on documents for each row begin ${recompute}; end`,
    ...touchTriggers('payments_touch_document', 'payments', payments),
    ...touchTriggers('credit_notes_touch_invoice', 'documents', creditNotes),
    ...touchTriggers('deductions_touch_document', 'document_deductions', deductions),
    // Every document's figures, by the trigger.
    `update documents set settled_net_minor = 0`,
  ];
}
