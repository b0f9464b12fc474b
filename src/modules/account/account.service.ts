import type { Transaction } from 'kysely';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { lockUploadedFile, onFileDelete, requireImageFile } from '../files/index.js';
import { findAccount, updateAccount, usesLogo, type AccountRow } from './account.repository.js';
import { checkCompany, readCompany } from './company.js';
import type { CheckCompany, Company, PutCompany } from './company.schemas.js';
import type {
  AccountSettingsSchema,
  Address,
  DashboardWidgetSettings,
  PatchSettings,
} from './account.schemas.js';

type AccountSettings = Static<typeof AccountSettingsSchema>;

// The account's logo cannot be deleted while it is the logo. A registered reference does not
// fit (it matches `account_id`, and the accounts table's key is `id`), so a delete hook checks
// it, under the file row's lock that `lockUploadedFile` also takes when the logo is set.
onFileDelete(async (trx, accountId, fileId) => {
  if (await usesLogo(trx, accountId, fileId))
    throw new AppError('in_use', 'The file is still referenced by the account settings (logo).', {
      members: { referencedBy: ['account settings'] },
    });
});

export function presentAccount(row: AccountRow): AccountSettings {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    addresses: JSON.parse(row.addresses) as Address[],
    budgetsSuppressed: row.budgets_suppressed === 1,
    reminderEmail: row.reminder_email,
    allowContractReminderOverride: row.allow_contract_reminder_override === 1,
    dashboardWidgets: JSON.parse(row.dashboard_widgets) as DashboardWidgetSettings[],
    dateFormat: row.date_format as AccountSettings['dateFormat'],
    numberFormat: row.number_format as AccountSettings['numberFormat'],
    currency: row.currency as AccountSettings['currency'],
    incomingPaymentTerm: row.incoming_payment_term as AccountSettings['incomingPaymentTerm'],
    logoFileId: row.logo_file_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The account's addresses and settings: one record, one version (decisions §6). */
export class AccountService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string): Promise<AccountSettings> {
    const row = await findAccount(this.ctx.db, accountId);
    if (!row) throw notFound('Account');
    return presentAccount(row);
  }

  async putAddresses(
    actor: Actor,
    version: number,
    addresses: Address[],
    ifMatch: IfMatch,
  ): Promise<AccountSettings> {
    return this.write(
      actor,
      version,
      ifMatch,
      'account.addresses_replaced',
      { addresses: JSON.stringify(addresses) },
      presentAccount,
    );
  }

  async patchSettings(
    actor: Actor,
    input: PatchSettings,
    ifMatch: IfMatch,
  ): Promise<AccountSettings> {
    const values: Partial<AccountRow> = {};
    if (input.budgetsSuppressed !== undefined)
      values.budgets_suppressed = input.budgetsSuppressed ? 1 : 0;
    if (input.reminderEmail !== undefined) values.reminder_email = input.reminderEmail;
    if (input.allowContractReminderOverride !== undefined)
      values.allow_contract_reminder_override = input.allowContractReminderOverride ? 1 : 0;
    if (input.dashboardWidgets !== undefined) {
      const seen = new Set<string>();
      (input.dashboardWidgets as DashboardWidgetSettings[]).forEach((w, i) => {
        if (seen.has(w.widget))
          throw new AppError('validation_failed', `Widget ${w.widget} is listed twice.`, {
            errors: [
              {
                path: `/body/dashboardWidgets/${i}/widget`,
                message: 'is listed twice',
                code: 'duplicate_items',
              },
            ],
          });
        seen.add(w.widget);
      });
      values.dashboard_widgets = JSON.stringify(input.dashboardWidgets);
    }
    if (input.dateFormat !== undefined) values.date_format = input.dateFormat;
    if (input.numberFormat !== undefined) values.number_format = input.numberFormat;
    if (input.currency !== undefined) values.currency = input.currency;
    if (input.incomingPaymentTerm !== undefined)
      values.incoming_payment_term = input.incomingPaymentTerm;
    const logo = input.logoFileId;
    if (logo !== undefined) values.logo_file_id = logo;
    // The logo: an uploaded image of the account, locked until commit so a concurrent delete
    // of the file waits and then sees it in use.
    await requireImageFile(this.ctx, actor, logo, 'logoFileId');
    return this.write(
      actor,
      input.version,
      ifMatch,
      'account.settings_changed',
      values,
      presentAccount,
      (trx) =>
        logo == null
          ? Promise.resolve()
          : lockUploadedFile(trx, actor.accountId, logo, 'logoFileId'),
    );
  }

  /** The seller's master data, with the defaults where nothing was set yet. */
  async getCompany(accountId: string): Promise<Company> {
    const row = await findAccount(this.ctx.db, accountId);
    if (!row) throw notFound('Account');
    return readCompany(row);
  }

  /**
   * Checks master data as `putCompany` does, without writing anything and without a version:
   * the same 400 naming each refused field, or nothing.
   */
  checkCompany(input: CheckCompany): { valid: true } {
    checkCompany(input);
    return { valid: true };
  }

  /**
   * Replaces the seller's master data: checked and normalised first (400 naming each refused
   * field), then written under the account's version like every account write.
   */
  async putCompany(actor: Actor, input: PutCompany, ifMatch: IfMatch): Promise<Company> {
    const row = await findAccount(this.ctx.db, actor.accountId);
    if (!row) throw notFound('Account');
    // An omitted creditorId keeps the stored one; the version check below makes it current.
    const company = checkCompany(input, readCompany(row));
    return this.write(
      actor,
      input.version,
      ifMatch,
      'account.company_changed',
      { company: JSON.stringify(company) },
      readCompany,
    );
  }

  /**
   * The account's one write path: compare-and-set on the account's version, and an audit event
   * with the changed fields of the view `present` gives (settings, or the company data).
   */
  private async write<T extends object>(
    actor: Actor,
    version: number,
    ifMatch: IfMatch,
    action: string,
    values: Partial<AccountRow>,
    present: (row: AccountRow) => T,
    first?: (trx: Transaction<DB>) => Promise<unknown>,
  ): Promise<T> {
    const now = this.ctx.clock.now();
    return this.ctx.db.transaction().execute(async (trx) => {
      if (first) await first(trx);
      const before = await findAccount(trx, actor.accountId);
      if (!before) throw notFound('Account');
      const after = await compareAndSet({
        expected: version,
        ifMatch,
        what: 'Account settings',
        run: (v) =>
          v === undefined
            ? Promise.resolve(undefined)
            : updateAccount(trx, actor.accountId, v, { ...values, updated_at: now.toISOString() }),
        current: async () => (await findAccount(trx, actor.accountId))?.version,
      });
      const presented = present(after);
      await appendAudit(
        trx,
        actor,
        {
          action,
          resourceType: 'account',
          resourceId: actor.accountId,
          changes: diff(present(before), presented),
        },
        now,
      );
      return presented;
    });
  }
}
