import type { AppContext } from '../../context.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/dialect.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound, referenceNotFound } from '../../shared/errors.js';
import { assertIsoDate, invalidField, minorAmount } from '../../http/field-rules.js';
import { decodeCursor, searchText, toPage } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { newId } from '../../shared/ids.js';
import { toMajor } from '../../shared/money.js';
import { registerReference } from '../../shared/references.js';
import { categoryFields, presentCategory, presentEntry } from './budgets.presenter.js';
import * as repo from './budgets.repository.js';
import type {
  BudgetCategory,
  BudgetEntry,
  CreateBudgetCategory,
  CreateBudgetEntry,
  ListBudgetCategories,
  ListBudgetEntries,
  UpdateBudgetCategory,
} from './budgets.schemas.js';

// A document that entries point at cannot be deleted (a draft; FINAL ones never are).
registerReference('document', {
  table: 'budget_entries',
  column: 'document_id',
  label: 'budget entries',
});

// A category with entries cannot be deleted (deactivate it instead): 409 in_use.
registerReference('budget_category', {
  table: 'budget_entries',
  column: 'category_id',
  label: 'budget entries',
});

function duplicateName(): AppError {
  return new AppError('duplicate', 'A budget category with this name exists.', {
    errors: [{ path: '/body/name', message: 'is already used by a category', code: 'duplicate' }],
  });
}

/** Unique names are backed by an index: a concurrent create with the same name loses there. */
async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateName();
    throw err;
  }
}

const currentMonth = (now: Date) => now.toISOString().slice(0, 7);

/**
 * Budget categories and entries (decisions §12). Categories carry a monthly limit and keywords;
 * entries book expenses against them, by hand or from bank imports. Each write runs in one
 * transaction with its audit event; reads answer the month's spending alongside.
 */
export class BudgetsService {
  constructor(private readonly ctx: AppContext) {}

  async createCategory(actor: Actor, input: CreateBudgetCategory): Promise<BudgetCategory> {
    const now = this.ctx.clock.now();
    const row: repo.BudgetCategoryRow = {
      id: newId('budgetCategory'),
      account_id: actor.accountId,
      name: input.name,
      search_name: searchText(input.name),
      monthly_limit: minorAmount(input.monthlyLimit, input.currency, '/body/monthlyLimit'),
      currency: input.currency,
      keywords: JSON.stringify(input.keywords),
      active: input.active ? 1 : 0,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await uniqueName(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        await repo.insertCategory(trx, row);
        await appendAudit(
          trx,
          actor,
          {
            action: 'budget_category.created',
            resourceType: 'budget_category',
            resourceId: row.id,
            changes: categoryFields(row),
          },
          now,
        );
      }),
    );
    return presentCategory(row, currentMonth(now), 0);
  }

  async getCategory(accountId: string, id: string, month?: string): Promise<BudgetCategory> {
    const row = await repo.findCategory(this.ctx.db, accountId, id);
    if (!row) throw notFound('Budget category');
    return this.withSpending(accountId, [row], month).then((list) => list[0]!);
  }

  async listCategories(
    accountId: string,
    query: ListBudgetCategories,
  ): Promise<{ data: BudgetCategory[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listCategories(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      active: query.active,
      q: query.q,
    });
    const page = toPage(rows, limit);
    return {
      data: await this.withSpending(accountId, page.rows, query.month),
      nextCursor: page.nextCursor,
    };
  }

  async updateCategory(
    actor: Actor,
    id: string,
    input: UpdateBudgetCategory,
    ifMatch: IfMatch,
  ): Promise<BudgetCategory> {
    const now = this.ctx.clock.now();
    const values: Partial<repo.BudgetCategoryRow> = { updated_at: now.toISOString() };
    if (input.name !== undefined) {
      values.name = input.name;
      values.search_name = searchText(input.name);
    }
    if (input.keywords !== undefined) values.keywords = JSON.stringify(input.keywords);
    if (input.active !== undefined) values.active = input.active ? 1 : 0;

    const row = await uniqueName(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        const updated = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Budget category',
          run: async (version) => {
            const before = await repo.findCategory(trx, actor.accountId, id);
            if (!before || version === undefined || before.version !== version) return undefined;
            const currency = input.currency ?? before.currency;
            if (currency !== before.currency && (await this.hasEntries(trx, actor.accountId, id)))
              throw new AppError(
                'state_conflict',
                `The category has entries in ${before.currency}; its currency cannot change.`,
                {
                  errors: [
                    { path: '/body/currency', message: 'cannot change', code: 'state_conflict' },
                  ],
                },
              );
            // A new currency without a new limit keeps the limit in major units.
            const limit = input.monthlyLimit ?? toMajor(before.monthly_limit, before.currency);
            const after = await repo.updateCategory(trx, actor.accountId, id, version, {
              ...values,
              currency,
              monthly_limit: minorAmount(limit, currency, '/body/monthlyLimit'),
            });
            return after && { before, after };
          },
          current: () => repo.categoryVersion(trx, actor.accountId, id),
        });
        await appendAudit(
          trx,
          actor,
          {
            action: 'budget_category.updated',
            resourceType: 'budget_category',
            resourceId: id,
            changes: diff(categoryFields(updated.before), categoryFields(updated.after)),
          },
          now,
        );
        return updated.after;
      }),
    );
    return (await this.withSpending(actor.accountId, [row]))[0]!;
  }

  removeCategory(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'budget_category',
      what: 'Budget category',
      id,
      ifMatch,
      run: (trx, version) => repo.deleteCategory(trx, actor.accountId, id, version),
      current: (trx) => repo.categoryVersion(trx, actor.accountId, id),
      present: categoryFields,
    });
  }

  async createEntry(actor: Actor, input: CreateBudgetEntry): Promise<BudgetEntry> {
    const now = this.ctx.clock.now();
    assertIsoDate(input.entryDate, '/body/entryDate');
    const amount = minorAmount(input.amount, input.currency, '/body/amount');
    if (amount === 0) throw invalidField('/body/amount', 'must not be zero', 'invalid_value');
    const row: repo.BudgetEntryRow = {
      id: newId('budgetEntry'),
      account_id: actor.accountId,
      category_id: input.categoryId,
      amount,
      currency: input.currency,
      entry_date: input.entryDate,
      document_id: input.documentId ?? null,
      vendor_name: input.vendorName ?? null,
      source: 'MANUAL',
      import_id: null,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        const category = await repo.findCategory(trx, actor.accountId, input.categoryId);
        if (!category) throw referenceNotFound('categoryId', 'Budget category');
        if (category.currency !== input.currency)
          throw new AppError(
            'business_rule_violated',
            `Entries of this category are in ${category.currency}.`,
            {
              errors: [
                {
                  path: '/body/currency',
                  message: `must be the category's currency ${category.currency}`,
                  code: 'currency_mismatch',
                },
              ],
            },
          );
        if (
          row.document_id !== null &&
          !(await repo.documentExists(trx, actor.accountId, row.document_id))
        )
          throw referenceNotFound('documentId', 'Document');
        await repo.insertEntry(trx, row);
        const entry = presentEntry({ ...row, category_name: category.name });
        await appendAudit(
          trx,
          actor,
          {
            action: 'budget_entry.created',
            resourceType: 'budget_entry',
            resourceId: row.id,
            changes: entry,
          },
          now,
        );
        return entry;
      });
    } catch (err) {
      // The category was deleted between the check and the insert (PostgreSQL).
      if (isForeignKeyViolation(err)) throw referenceNotFound('categoryId', 'Budget category');
      throw err;
    }
  }

  async getEntry(accountId: string, id: string): Promise<BudgetEntry> {
    const row = await repo.findEntry(this.ctx.db, accountId, id);
    if (!row) throw notFound('Budget entry');
    return presentEntry(row);
  }

  async listEntries(
    accountId: string,
    query: ListBudgetEntries,
  ): Promise<{ data: BudgetEntry[]; nextCursor: string | null }> {
    assertIsoDate(query.from, '/querystring/from');
    assertIsoDate(query.to, '/querystring/to');
    const limit = query.limit ?? 25;
    const rows = await repo.listEntries(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      categoryId: query.categoryId,
      documentId: query.documentId,
      source: query.source,
      from: query.from,
      to: query.to,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentEntry), nextCursor: page.nextCursor };
  }

  removeEntry(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'budget_entry',
      what: 'Budget entry',
      id,
      ifMatch,
      run: async (trx, version) => {
        const before = await repo.findEntry(trx, actor.accountId, id);
        const deleted = await repo.deleteEntry(trx, actor.accountId, id, version);
        return deleted && before;
      },
      current: (trx) => repo.entryVersion(trx, actor.accountId, id),
      present: presentEntry,
    });
  }

  private async hasEntries(
    trx: Parameters<typeof repo.findCategory>[0],
    accountId: string,
    categoryId: string,
  ): Promise<boolean> {
    return repo.categoryHasEntries(trx, accountId, categoryId);
  }

  private async withSpending(
    accountId: string,
    rows: repo.BudgetCategoryRow[],
    month = currentMonth(this.ctx.clock.now()),
  ): Promise<BudgetCategory[]> {
    const spent = await repo.spentByCategory(
      this.ctx.db,
      accountId,
      rows.map((r) => r.id),
      month,
    );
    return rows.map((row) => presentCategory(row, month, spent.get(row.id) ?? 0));
  }
}
