import { sql, type Kysely } from 'kysely';

/** Bank statement imports, their transactions, and the ledger of imported lines (decisions §11). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bank_imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('period_from', 'text', (c) => c.notNull())
    .addColumn('period_to', 'text', (c) => c.notNull())
    .addColumn('auto_approve', 'integer', (c) => c.notNull())
    // ACTIVE (under review), FINALIZED (booked) or DISCARDED.
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON: per statement its account, balances and whether opening + entries = closing.
    .addColumn('statements', 'text', (c) => c.notNull())
    // JSON: the parser's problems (entries it could not read), and lines outside the period.
    .addColumn('problems', 'text', (c) => c.notNull())
    .addColumn('transaction_count', 'integer', (c) => c.notNull())
    .addColumn('undecided_count', 'integer', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .addColumn('result', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One active import per account, enforced by the database as well.
  await db.schema
    .createIndex('bank_imports_one_active_uq')
    .on('bank_imports')
    .column('account_id')
    .unique()
    .where(sql.ref('status'), '=', 'ACTIVE')
    .execute();
  await db.schema
    .createIndex('bank_imports_account_idx')
    .on('bank_imports')
    .columns(['account_id', 'id'])
    .execute();

  await db.schema
    .createTable('bank_import_transactions')
    .addColumn('import_id', 'text', (c) => c.notNull().references('bank_imports.id'))
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('statement_index', 'integer', (c) => c.notNull())
    .addColumn('booking_date', 'text', (c) => c.notNull())
    .addColumn('value_date', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('counterparty_name', 'text')
    .addColumn('counterparty_iban', 'text')
    .addColumn('counterparty_bic', 'text')
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('end_to_end_id', 'text')
    .addColumn('mandate_reference', 'text')
    .addColumn('bank_reference', 'text')
    .addColumn('booking_text', 'text')
    .addColumn('reversal', 'integer', (c) => c.notNull())
    // Duplicate identity (decisions §11): bank reference or content hash, with its occurrence.
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('decision', 'text')
    .addColumn('duplicate_of', 'text')
    // JSON: suggested partner, payment or invoice, budget category, each with score and reasons.
    .addColumn('suggestions', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bank_import_transactions_pk', ['import_id', 'idx'])
    .execute();

  // Every ACCEPTED line of a finalized import, by identity: what later imports are checked
  // against. Rejected or discarded lines never land here, so they never block a re-import.
  await db.schema
    .createTable('imported_transactions')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('partner_id', 'text')
    .addColumn('counterparty_iban', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('imported_transactions_pk', ['account_id', 'identity'])
    .execute();
  // Partner by IBAN: partners learned from earlier imports.
  await db.schema
    .createIndex('imported_transactions_iban_idx')
    .on('imported_transactions')
    .columns(['account_id', 'counterparty_iban'])
    .execute();
}
