import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import { isDebtorAccount, isLedgerAccount, type Chart } from './datev-accounts.js';
import { mappingsOf, presentSettings, type RevenueMapping } from './exports.presenter.js';
import * as repo from './exports.repository.js';
import type { DatevSettings, PutDatevSettings } from './exports.schemas.js';

const NOT_SET =
  'The DATEV export is not configured yet; set it with PUT /v1/exports/datev/settings {consultantNumber, clientNumber}.';

/**
 * The DATEV settings of an account: one record, created by the first PUT (which needs the
 * consultant and client number) and changed by later ones (omitted fields stay). A version in
 * the body or `If-Match` makes a change conditional, like the cash anchor.
 */
export class DatevSettingsService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string): Promise<DatevSettings> {
    const row = await repo.findSettings(this.ctx.db, accountId);
    if (!row) throw new AppError('not_found', NOT_SET);
    return presentSettings(row);
  }

  async put(actor: Actor, input: PutDatevSettings, ifMatch: IfMatch): Promise<DatevSettings> {
    const at = this.ctx.clock.now();
    const now = at.toISOString();
    return this.ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findSettings(trx, actor.accountId);
      const values = await this.merge(trx, actor.accountId, before, input);
      if (!before) {
        if (ifMatch !== undefined)
          throw new AppError(
            'precondition_failed',
            'If-Match cannot match: no DATEV settings are saved yet. Send the PUT without If-Match.',
          );
        if (input.version !== undefined)
          throw new AppError(
            'version_conflict',
            'No DATEV settings are saved yet, so there is no version to match. Send the PUT without version.',
          );
        const row: repo.DatevSettingsRow = {
          account_id: actor.accountId,
          ...values,
          version: 1,
          created_at: now,
          updated_at: now,
        };
        await repo.insertSettings(trx, row);
        const settings = presentSettings(row);
        await appendAudit(
          trx,
          actor,
          {
            action: 'datev_settings.created',
            resourceType: 'datev_settings',
            resourceId: actor.accountId,
            changes: settings,
          },
          at,
        );
        return settings;
      }
      const after = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'DATEV settings',
        run: (version) =>
          repo.updateSettings(trx, actor.accountId, version ?? before.version, {
            ...values,
            updated_at: now,
          }),
        current: () => Promise.resolve(before.version),
      });
      const settings = presentSettings(after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'datev_settings.updated',
          resourceType: 'datev_settings',
          resourceId: actor.accountId,
          changes: diff(presentSettings(before), settings),
        },
        at,
      );
      return settings;
    });
  }

  /** The stored record after the PUT: checked as a whole, every refused field at once. */
  private async merge(
    trx: Executor,
    accountId: string,
    before: repo.DatevSettingsRow | undefined,
    input: PutDatevSettings,
  ): Promise<Omit<repo.DatevSettingsRow, 'account_id' | 'version' | 'created_at' | 'updated_at'>> {
    const errors: FieldError[] = [];
    const consultant = input.consultantNumber ?? before?.consultant_number;
    const client = input.clientNumber ?? before?.client_number;
    if (consultant === undefined)
      errors.push({ path: '/body/consultantNumber', message: 'is required', code: 'required' });
    if (client === undefined)
      errors.push({ path: '/body/clientNumber', message: 'is required', code: 'required' });
    const length = input.accountLength ?? before?.account_length ?? 4;
    const chart = (input.chartOfAccounts ?? before?.chart ?? 'SKR03') as Chart;
    const debtor = input.debtorAccount !== undefined ? input.debtorAccount : before?.debtor_account;
    const bank = input.bankAccount !== undefined ? input.bankAccount : before?.bank_account;
    // A stored account that no longer fits a new length is reported at the field that moved.
    const at = (field: string, given: boolean) =>
      given ? `/body/${field}` : '/body/accountLength';
    if (debtor !== null && debtor !== undefined && !isDebtorAccount(Number(debtor), length))
      errors.push({
        path: at('debtorAccount', input.debtorAccount !== undefined),
        message: `must have ${length + 1} digits and start with 1–6 (a debtor at account length ${length}); null for the default ${10 ** length}`,
        code: 'out_of_range',
      });
    if (bank !== null && bank !== undefined && !isLedgerAccount(Number(bank), length))
      errors.push({
        path: at('bankAccount', input.bankAccount !== undefined),
        message: `must have exactly ${length} digits (account length ${length})`,
        code: 'out_of_range',
      });
    const mappings: RevenueMapping[] =
      input.revenueAccounts?.map((m) => ({
        taxRateId: m.taxRateId,
        account: m.account,
        taxKey: m.taxKey ?? null,
      })) ?? (before ? mappingsOf(before) : []);
    errors.push(...mappingProblems(mappings, length, input.revenueAccounts !== undefined));
    if (errors.length > 0)
      throw new AppError('validation_failed', 'The DATEV settings are not valid.', { errors });
    if (input.revenueAccounts) await assertMappedRatesExist(trx, accountId, mappings);
    return {
      consultant_number: Number(consultant),
      client_number: Number(client),
      chart,
      fiscal_year_start_month: input.fiscalYearStartMonth ?? before?.fiscal_year_start_month ?? 1,
      account_length: length,
      debtor_account: debtor ?? null,
      partner_accounts:
        (input.partnerAccounts ?? Number(before?.partner_accounts ?? 0) === 1) ? 1 : 0,
      bank_account: bank ?? null,
      account_mapping: JSON.stringify(mappings),
    };
  }
}

/**
 * Each mapped tax rate once, each account of the account length. A stored mapping that no
 * longer fits a new length is reported at the field that moved.
 */
function mappingProblems(mappings: RevenueMapping[], length: number, given: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  mappings.forEach((m, i) => {
    if (seen.has(m.taxRateId))
      errors.push({
        path: `/body/revenueAccounts/${i}/taxRateId`,
        message: 'lists the tax rate a second time',
        code: 'duplicate_items',
      });
    seen.add(m.taxRateId);
    if (!isLedgerAccount(m.account, length))
      errors.push({
        path: given ? `/body/revenueAccounts/${i}/account` : '/body/accountLength',
        message: `must have exactly ${length} digits (account length ${length})`,
        code: 'out_of_range',
      });
  });
  return errors;
}

/** Refuses (`reference_not_found`) naming every mapped tax rate the account does not have. */
async function assertMappedRatesExist(
  trx: Executor,
  accountId: string,
  mappings: RevenueMapping[],
): Promise<void> {
  const known = await repo.existingTaxRateIds(
    trx,
    accountId,
    mappings.map((m) => m.taxRateId),
  );
  const missing = mappings
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => !known.has(m.taxRateId))
    .map(({ i }) => ({
      path: `/body/revenueAccounts/${i}/taxRateId`,
      message: 'Tax rate not found',
      code: 'reference_not_found',
    }));
  if (missing.length > 0)
    throw new AppError('reference_not_found', 'A mapped tax rate does not exist.', {
      errors: missing,
    });
}
