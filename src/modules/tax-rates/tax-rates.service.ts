import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../http/concurrency.js';
import { AppError, notFound } from '../../http/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { registerReference } from '../../shared/references.js';
import { lockAccount } from '../account/account.repository.js';
import { presentTaxRate } from './tax-rates.presenter.js';
import * as repo from './tax-rates.repository.js';
import type { CreateTaxRate, ListTaxRates, TaxRate, UpdateTaxRate } from './tax-rates.schemas.js';

// Products point at their tax rate (products.tax_rate_id, backed by a foreign key).
registerReference('tax_rate', { table: 'products', column: 'tax_rate_id', label: 'products' });

/**
 * Percentage → basis points through the decimal string, like `toMinor` does for money:
 * 7.5 → "7.5" → 750, never 7.5 * 100. More than 2 decimals is a 400 naming the field.
 */
function toBasisPoints(rate: number, field: string): number {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(rate));
  const [, whole, fraction = ''] = match ?? [];
  if (whole === undefined || fraction.length > 2)
    throw new AppError('validation_failed', `${field} has more than 2 decimals.`, {
      errors: [
        {
          path: `/body/${field}`,
          message: 'must have at most 2 decimals',
          code: 'too_many_decimals',
        },
      ],
    });
  return Number(`${whole}${fraction.padEnd(2, '0')}`);
}

const keepOneDefault = () =>
  new AppError(
    'state_conflict',
    'The account needs a default tax rate: make another rate the default instead.',
  );

const created = (row: repo.TaxRateRow) => ({
  action: 'tax_rate.created',
  resourceType: 'tax_rate',
  resourceId: row.id,
  changes: presentTaxRate(row),
});

const updated = (before: repo.TaxRateRow, after: repo.TaxRateRow) => ({
  action: 'tax_rate.updated',
  resourceType: 'tax_rate',
  resourceId: after.id,
  changes: diff(presentTaxRate(before), presentTaxRate(after)),
});

/**
 * Seeds a new account's tax rates (see `seedTaxRates`) and audits each one, inside the
 * transaction that creates the account.
 */
export async function seedAccountTaxRates(
  trx: Transaction<DB>,
  actor: Actor,
  currency: string,
  now: Date,
): Promise<void> {
  const rows = await repo.seedTaxRates(trx, actor.accountId, currency, now.toISOString());
  for (const row of rows) await appendAudit(trx, actor, created(row), now);
}

/**
 * Tax rates: account configuration, so writes are for admins. Every write takes the account
 * lock first, so the "exactly one default per account" rule is checked and changed by one
 * writer at a time on PostgreSQL too; the partial unique index backs it in the database.
 * Moving the default writes the previous default as well (isDefault false, version + 1,
 * its own audit event).
 */
export class TaxRatesService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreateTaxRate): Promise<TaxRate> {
    const now = this.ctx.clock.now();
    const rateBp = toBasisPoints(input.rate, 'rate');
    return this.ctx.db.transaction().execute(async (trx) => {
      await lockAccount(trx, actor.accountId);
      // The first rate of an account becomes its default, whatever the body says.
      const isDefault =
        input.isDefault === true ||
        (await repo.findDefaultTaxRate(trx, actor.accountId)) === undefined;
      const cleared = isDefault
        ? await repo.clearDefaultTaxRate(trx, actor.accountId, undefined, now.toISOString())
        : [];
      const row: repo.TaxRateRow = {
        id: newId('taxRate'),
        account_id: actor.accountId,
        name: input.name,
        rate_bp: rateBp,
        is_default: isDefault ? 1 : 0,
        version: 1,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      await repo.insertTaxRate(trx, row);
      await this.auditCleared(trx, actor, cleared, now);
      await appendAudit(trx, actor, created(row), now);
      return presentTaxRate(row);
    });
  }

  async get(accountId: string, id: string): Promise<TaxRate> {
    const row = await repo.findTaxRate(this.ctx.db, accountId, id);
    if (!row) throw notFound('Tax rate');
    return presentTaxRate(row);
  }

  async list(
    accountId: string,
    query: ListTaxRates,
  ): Promise<{ data: TaxRate[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listTaxRates(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      isDefault: query.isDefault,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentTaxRate), nextCursor: page.nextCursor };
  }

  async update(actor: Actor, id: string, input: UpdateTaxRate, ifMatch: IfMatch): Promise<TaxRate> {
    const now = this.ctx.clock.now();
    const values: Partial<repo.TaxRateRow> = { updated_at: now.toISOString() };
    if (input.name !== undefined) values.name = input.name;
    if (input.rate !== undefined) values.rate_bp = toBasisPoints(input.rate, 'rate');
    if (input.isDefault !== undefined) values.is_default = input.isDefault ? 1 : 0;

    return this.ctx.db.transaction().execute(async (trx) => {
      await lockAccount(trx, actor.accountId);
      let cleared: repo.TaxRateRow[] = [];
      const result = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Tax rate',
        run: async (version) => {
          const before = await repo.findTaxRate(trx, actor.accountId, id);
          // A stale version changes nothing: not even the previous default.
          if (!before || version === undefined || before.version !== version) return undefined;
          if (before.is_default === 1 && input.isDefault === false) throw keepOneDefault();
          if (before.is_default === 0 && input.isDefault === true)
            cleared = await repo.clearDefaultTaxRate(trx, actor.accountId, id, now.toISOString());
          const after = await repo.updateTaxRate(trx, actor.accountId, id, version, values);
          return after && { before, after };
        },
        current: () => repo.taxRateVersion(trx, actor.accountId, id),
      });
      await this.auditCleared(trx, actor, cleared, now);
      await appendAudit(trx, actor, updated(result.before, result.after), now);
      return presentTaxRate(result.after);
    });
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'tax_rate',
      what: 'Tax rate',
      id,
      ifMatch,
      prepare: (trx) => lockAccount(trx, actor.accountId),
      run: async (trx, version) => {
        const row = await repo.findTaxRate(trx, actor.accountId, id);
        if (!row || (version !== undefined && row.version !== version)) return undefined;
        if (row.is_default === 1) throw keepOneDefault();
        return repo.deleteTaxRate(trx, actor.accountId, id, version);
      },
      current: (trx) => repo.taxRateVersion(trx, actor.accountId, id),
      present: presentTaxRate,
    });
  }

  /** One `tax_rate.updated` event per rate that lost the default to this write. */
  private async auditCleared(
    trx: Transaction<DB>,
    actor: Actor,
    cleared: repo.TaxRateRow[],
    now: Date,
  ): Promise<void> {
    for (const after of cleared) {
      const before = { ...after, is_default: 1, version: after.version - 1 };
      await appendAudit(trx, actor, updated(before, after), now);
    }
  }
}
