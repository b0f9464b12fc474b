import { sql, type Kysely } from 'kysely';

/** Tax rates, products and contracts (issue 3). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tax_rates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rate_bp', 'integer', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tax_rates_account_idx')
    .on('tax_rates')
    .columns(['account_id', 'id'])
    .execute();
  // At most one default per account, enforced by the database itself.
  await db.schema
    .createIndex('tax_rates_one_default_uq')
    .on('tax_rates')
    .column('account_id')
    .unique()
    .where(sql.ref('is_default'), '=', 1)
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('unit_price', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('unit', 'text')
    .addColumn('description', 'text')
    .addColumn('photo_file_id', 'text')
    .addColumn('tax_rate_id', 'text', (c) => c.references('tax_rates.id'))
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('products_account_idx')
    .on('products')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tax_rate_idx')
    .on('products')
    .column('tax_rate_id')
    .execute();
  await db.schema
    .createTable('product_tags')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_tags_pk', ['product_id', 'tag'])
    .execute();
  await db.schema
    .createIndex('product_tags_account_tag_idx')
    .on('product_tags')
    .columns(['account_id', 'tag', 'product_id'])
    .execute();

  await db.schema
    .createTable('contracts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('partner_name', 'text', (c) => c.notNull())
    .addColumn('partner_type', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text')
    .addColumn('total_value', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('advanced', 'text')
    .addColumn('cancellation_deadline', 'text')
    .addColumn('next_renewal_date', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('contracts_account_idx')
    .on('contracts')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('contracts_partner_idx')
    .on('contracts')
    .columns(['account_id', 'partner_id'])
    .execute();
  await db.schema
    .createTable('contract_tags')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('contract_id', 'text', (c) =>
      c.notNull().references('contracts.id').onDelete('cascade'),
    )
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contract_tags_pk', ['contract_id', 'tag'])
    .execute();
  await db.schema
    .createIndex('contract_tags_account_tag_idx')
    .on('contract_tags')
    .columns(['account_id', 'tag', 'contract_id'])
    .execute();
}
