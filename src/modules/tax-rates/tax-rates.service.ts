import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound, type FieldError } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { registerReference } from '../../shared/references.js';
import { lockAccount } from '../account/index.js';
import { presentTaxRate } from './tax-rates.presenter.js';
import * as repo from './tax-rates.repository.js';
import type {
  CreateTaxRate,
  ListTaxRates,
  TaxCategory,
  TaxRate,
  UpdateTaxRate,
} from './tax-rates.schemas.js';

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

type CategoryFields = Pick<
  repo.TaxRateRow,
  'category' | 'rate_bp' | 'exemption_reason' | 'exemption_code'
>;

/**
 * The VAT category rules of EN 16931 (BR-S-5, BR-Z-5, BR-E-5, BR-AE-5 … and BR-S-10 …), on the
 * rate as it is after the write: S needs a rate above 0, every other category rate 0; every
 * category but S and Z needs an exemption reason, and S and Z carry neither reason nor code.
 * A 422 names each field at fault; a rate problem names `rate` when the body has it, else
 * `category`.
 */
function checkCategory(rate: CategoryFields, body: CreateTaxRate | UpdateTaxRate): void {
  const category = rate.category as TaxCategory;
  const taxed = category === 'S' || category === 'Z';
  const errors: FieldError[] = [];
  const ratePath = body.rate === undefined ? '/body/category' : '/body/rate';
  if (category === 'S' && rate.rate_bp === 0)
    errors.push({
      path: ratePath,
      message: 'must be above 0 for category S; use Z for a zero rate',
      code: 'business_rule_violated',
    });
  if (category !== 'S' && rate.rate_bp !== 0)
    errors.push({
      path: ratePath,
      message: `must be 0 for category ${category}`,
      code: 'business_rule_violated',
    });
  if (!taxed && rate.exemption_reason === null)
    errors.push({
      path: '/body/exemptionReason',
      message: `is required for category ${category}`,
      code: 'required',
    });
  if (taxed && rate.exemption_reason !== null)
    errors.push({
      path: '/body/exemptionReason',
      message: `must be null for category ${category}`,
      code: 'business_rule_violated',
    });
  if (taxed && rate.exemption_code !== null)
    errors.push({
      path: '/body/exemptionCode',
      message: `must be null for category ${category}`,
      code: 'business_rule_violated',
    });
  if (errors.length > 0)
    throw new AppError(
      'business_rule_violated',
      `The tax rate breaks the rules of category ${category}.`,
      { errors },
    );
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
    const category: CategoryFields = {
      // Omitted: a 0 % rate is a zero rate, like the migration classed the existing ones.
      category: input.category ?? (rateBp === 0 ? 'Z' : 'S'),
      rate_bp: rateBp,
      exemption_reason: input.exemptionReason ?? null,
      exemption_code: input.exemptionCode ?? null,
    };
    checkCategory(category, input);
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
        ...category,
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
    if (input.category !== undefined) values.category = input.category;
    if (input.exemptionReason !== undefined) values.exemption_reason = input.exemptionReason;
    if (input.exemptionCode !== undefined) values.exemption_code = input.exemptionCode;

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
          checkCategory({ ...before, ...values }, input);
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
