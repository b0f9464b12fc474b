import type { AppContext } from '../../context.js';
import { isForeignKeyViolation } from '../../db/dialect.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound, referenceNotFound } from '../../shared/errors.js';
import { decodeCursor, searchText, toPage } from '../../http/pagination.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { minorDigits, toMajor, toMinor } from '../../shared/money.js';
import { registerReference } from '../../shared/references.js';
import { lockUploadedFile, requireImageFile } from '../files/index.js';
import { presentProduct } from './products.presenter.js';
import * as repo from './products.repository.js';
import type { CreateProduct, ListProducts, Product, UpdateProduct } from './products.schemas.js';

// A tax rate that products use cannot be deleted (409 in_use naming the products).
registerReference('tax_rate', { table: 'products', column: 'tax_rate_id', label: 'products' });

function tooManyDecimals(field: 'unitPrice' | 'currency', message: string): AppError {
  return new AppError('validation_failed', `${field} ${message}.`, {
    errors: [{ path: `/body/${field}`, message, code: 'too_many_decimals' }],
  });
}

function decimalsOf(currency: string): string {
  const digits = minorDigits(currency);
  return digits === 1 ? '1 decimal' : `${digits} decimals`;
}

/** Major units → minor units of `currency`, or a 400 on `/body/unitPrice` when it does not fit. */
function priceInMinor(unitPrice: number, currency: string): number {
  const minor = toMinor(unitPrice, currency);
  if (minor === undefined)
    throw tooManyDecimals(
      'unitPrice',
      `has more decimals than ${currency} allows (${decimalsOf(currency)})`,
    );
  return minor;
}

/**
 * The price columns a partial update writes. A new currency without a new price keeps the
 * stored amount in major units (12 EUR → 12 JPY), which the new currency must be able to hold.
 */
function priceChange(
  input: Pick<UpdateProduct, 'unitPrice' | 'currency'>,
  stored: repo.ProductRow,
): Partial<repo.ProductRow> {
  const currency = input.currency ?? stored.currency;
  if (input.unitPrice !== undefined)
    return { unit_price: priceInMinor(input.unitPrice, currency), currency };
  if (currency === stored.currency) return {};
  const major = toMajor(stored.unit_price, stored.currency);
  const minor = toMinor(major, currency);
  if (minor === undefined)
    throw tooManyDecimals(
      'currency',
      `cannot hold the stored unitPrice ${major} (${currency} allows ${decimalsOf(currency)}); send a unitPrice with it`,
    );
  return { unit_price: minor, currency };
}

/**
 * Products: services and goods with a unit price. Each write runs in one transaction holding
 * the change, its version bump and its audit event (STYLE rule 6); reads are scoped by account.
 */
export class ProductsService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreateProduct): Promise<Product> {
    const now = this.ctx.clock.now();
    const tags = input.tags ?? [];
    const row: repo.ProductRow = {
      id: newId('product'),
      account_id: actor.accountId,
      name: input.name,
      search_name: searchText(input.name),
      type: input.type ?? 'SERVICE',
      unit_price: priceInMinor(input.unitPrice, input.currency),
      currency: input.currency,
      unit: input.unit ?? null,
      description: input.description ?? null,
      photo_file_id: input.photoFileId ?? null,
      tax_rate_id: input.taxRateId ?? null,
      tags: JSON.stringify(tags),
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const product = presentProduct(row);
    await requireImageFile(this.ctx, actor, row.photo_file_id, 'photoFileId');
    await this.withTaxRateReference(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        if (row.photo_file_id !== null)
          await lockUploadedFile(trx, actor.accountId, row.photo_file_id, 'photoFileId');
        if (row.tax_rate_id !== null)
          await this.assertTaxRate(trx, actor.accountId, row.tax_rate_id);
        await repo.insertProduct(trx, row, tags);
        await appendAudit(
          trx,
          actor,
          {
            action: 'product.created',
            resourceType: 'product',
            resourceId: row.id,
            changes: product,
          },
          now,
        );
      }),
    );
    return product;
  }

  async get(accountId: string, id: string): Promise<Product> {
    const row = await repo.findProduct(this.ctx.db, accountId, id);
    if (!row) throw notFound('Product');
    return presentProduct(row);
  }

  async list(
    accountId: string,
    query: ListProducts,
  ): Promise<{ data: Product[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listProducts(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      type: query.type,
      tag: query.tag,
      q: query.q,
      taxRateId: query.taxRateId,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentProduct), nextCursor: page.nextCursor };
  }

  async update(actor: Actor, id: string, input: UpdateProduct, ifMatch: IfMatch): Promise<Product> {
    const now = this.ctx.clock.now();
    const values: Partial<repo.ProductRow> = { updated_at: now.toISOString() };
    if (input.name !== undefined) {
      values.name = input.name;
      values.search_name = searchText(input.name);
    }
    if (input.type !== undefined) values.type = input.type;
    if (input.unit !== undefined) values.unit = input.unit;
    if (input.description !== undefined) values.description = input.description;
    if (input.photoFileId !== undefined) values.photo_file_id = input.photoFileId;
    if (input.taxRateId !== undefined) values.tax_rate_id = input.taxRateId;
    const tags = input.tags === undefined ? undefined : (input.tags ?? []);
    if (tags !== undefined) values.tags = JSON.stringify(tags);

    await requireImageFile(this.ctx, actor, input.photoFileId, 'photoFileId');
    return this.withTaxRateReference(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        if (input.photoFileId != null)
          await lockUploadedFile(trx, actor.accountId, input.photoFileId, 'photoFileId');
        const updated = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Product',
          run: async (version) => {
            const before = await repo.findProduct(trx, actor.accountId, id);
            // A stale version is a 409 before anything else: the price checks below judge the
            // input against the record the client read, not against a newer one.
            if (!before || version === undefined || before.version !== version) return undefined;
            const price = priceChange(input, before);
            if (input.taxRateId != null)
              await this.assertTaxRate(trx, actor.accountId, input.taxRateId);
            const after = await repo.updateProduct(trx, actor.accountId, id, version, {
              ...values,
              ...price,
            });
            return after && { before, after };
          },
          current: () => repo.productVersion(trx, actor.accountId, id),
        });
        if (tags !== undefined) await repo.replaceTags(trx, actor.accountId, id, tags);
        const product = presentProduct(updated.after);
        await appendAudit(
          trx,
          actor,
          {
            action: 'product.updated',
            resourceType: 'product',
            resourceId: id,
            changes: diff(presentProduct(updated.before), product),
          },
          now,
        );
        return product;
      }),
    );
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'product',
      what: 'Product',
      id,
      ifMatch,
      run: (trx, version) => repo.deleteProduct(trx, actor.accountId, id, version),
      current: (trx) => repo.productVersion(trx, actor.accountId, id),
      present: presentProduct,
    });
  }

  /** 422 unless the tax rate belongs to the account (another account's id is not found). */
  private async assertTaxRate(
    trx: Parameters<typeof repo.taxRateExists>[0],
    accountId: string,
    taxRateId: string,
  ): Promise<void> {
    if (!(await repo.taxRateExists(trx, accountId, taxRateId)))
      throw referenceNotFound('taxRateId', 'Tax rate');
  }

  /**
   * The foreign key backs the check above: a tax rate deleted between the check and the write
   * (PostgreSQL, concurrent transactions) fails the statement, answered like a missing rate.
   */
  private async withTaxRateReference<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isForeignKeyViolation(err)) throw referenceNotFound('taxRateId', 'Tax rate');
      throw err;
    }
  }
}
