import type { Selectable } from 'kysely';
import { recordQueries, type Executor } from '../../db/records.js';
import type { TaxRatesTable } from '../../db/schema.js';
import { deferFirst, type Later } from '../../db/transactions.js';
import { newId } from '../../shared/ids.js';

export type TaxRateRow = Selectable<TaxRatesTable>;
const records = recordQueries('tax_rates');

/** Tax-rate queries; every one is scoped by account (STYLE rule 3). */

export async function insertTaxRate(trx: Executor, row: TaxRateRow): Promise<void> {
  await trx.insertInto('tax_rates').values(row).execute();
}

export const findTaxRate = records.find;

/** `findTaxRate` started now, answered later (`deferFirst`). */
export const findTaxRateLater = records.findLater;

export const taxRateVersion = records.version;

/** The account's default rate, if it has one (it has exactly one once it has any rate). */
export async function findDefaultTaxRate(
  db: Executor,
  accountId: string,
): Promise<TaxRateRow | undefined> {
  return defaultTaxRate(db, accountId).executeTakeFirst();
}

/** `findDefaultTaxRate` started now, answered later (`deferFirst`). */
export function findDefaultTaxRateLater(
  db: Executor,
  accountId: string,
): Promise<Later<TaxRateRow | undefined>> {
  return deferFirst(db, defaultTaxRate(db, accountId));
}

function defaultTaxRate(db: Executor, accountId: string) {
  return db
    .selectFrom('tax_rates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('is_default', '=', 1);
}

export interface TaxRateFilter {
  limit: number;
  afterId?: string;
  isDefault?: boolean;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listTaxRates(
  db: Executor,
  accountId: string,
  f: TaxRateFilter,
): Promise<TaxRateRow[]> {
  let query = db.selectFrom('tax_rates').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.isDefault !== undefined) query = query.where('is_default', '=', f.isDefault ? 1 : 0);
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/**
 * Clears the account's default (except on `exceptId`), bumping the version of the record it
 * changes, and answers the changed rows (for the audit trail). Run it before setting the new
 * default: the partial unique index refuses two defaults even for a moment.
 */
export async function clearDefaultTaxRate(
  trx: Executor,
  accountId: string,
  exceptId: string | undefined,
  updatedAt: string,
): Promise<TaxRateRow[]> {
  let query = trx
    .updateTable('tax_rates')
    .set((eb) => ({ is_default: 0, updated_at: updatedAt, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('is_default', '=', 1);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return query.returningAll().execute();
}

/** The compare-and-set update (version, then values). */
export const updateTaxRate = records.update;

/**
 * Deletes when the version matches (any version when `version` is undefined) and the rate is
 * not the default: the default is never deleted, whatever raced with the caller's check.
 */
export const deleteTaxRate = (
  trx: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
) => records.remove(trx, accountId, id, version, { is_default: 0 });

interface SeedRate {
  name: string;
  rateBp: number;
  category: string;
  reason?: string;
  code?: string;
}

/**
 * The rates every new account starts with, by account currency; the first one is the default.
 * EUR: what a German business needs for lawful invoices (§14 UStG) and valid e-invoices: the
 * two taxed rates, reverse charge, intra-community supply and the §19 small-business rate,
 * each with the exemption reason EN 16931 asks for.
 */
const SEED_RATES: Record<string, SeedRate[]> = {
  EUR: [
    { name: 'USt 19 %', rateBp: 1900, category: 'S' },
    { name: 'USt 7 %', rateBp: 700, category: 'S' },
    {
      name: 'Reverse Charge 0 %',
      rateBp: 0,
      category: 'AE',
      reason: 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)',
      code: 'VATEX-EU-AE',
    },
    {
      name: 'Innergemeinschaftliche Lieferung 0 %',
      rateBp: 0,
      category: 'K',
      reason: 'Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1b i. V. m. § 6a UStG)',
      code: 'VATEX-EU-IC',
    },
    {
      name: 'Kleinunternehmer 0 %',
      rateBp: 0,
      category: 'E',
      reason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.',
    },
  ],
  GBP: [
    { name: 'Standard 20 %', rateBp: 2000, category: 'S' },
    { name: 'Reduced 5 %', rateBp: 500, category: 'S' },
    { name: 'Zero 0 %', rateBp: 0, category: 'Z' },
  ],
};

/**
 * Seeds a new account's tax rates for its currency (EUR: 19 % default, 7 %, reverse charge,
 * intra-community supply, small business; GBP: 20 % default, 5 %, 0 %) on the caller's executor, so they commit with the account. Ids are taken
 * from the last rate to the first, so the newest-first list starts with the default.
 * Answers the inserted rows (for the caller's audit events).
 */
export async function seedTaxRates(
  trx: Executor,
  accountId: string,
  currency: string,
  now: string,
): Promise<TaxRateRow[]> {
  const seed = SEED_RATES[currency];
  if (!seed) throw new RangeError(`No tax rates to seed for currency ${currency}`);
  const rows: TaxRateRow[] = [...seed].reverse().map((r) => ({
    id: newId('taxRate'),
    account_id: accountId,
    name: r.name,
    rate_bp: r.rateBp,
    category: r.category,
    exemption_reason: r.reason ?? null,
    exemption_code: r.code ?? null,
    is_default: r === seed[0] ? 1 : 0,
    version: 1,
    created_at: now,
    updated_at: now,
  }));
  await trx.insertInto('tax_rates').values(rows).execute();
  return rows.reverse();
}

/** Whether the account has any tax rate (the setup checklist of invoicing asks). */
export async function hasTaxRates(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('tax_rates')
    .select('id')
    .where('account_id', '=', accountId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
