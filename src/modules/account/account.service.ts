import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { compareAndSet, type IfMatch } from '../../http/concurrency.js';
import { AppError, notFound } from '../../http/errors.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { findAccount, updateAccount, type AccountRow } from './account.repository.js';
import type {
  AccountSettingsSchema,
  Address,
  DashboardWidgetSettings,
  PatchSettings,
} from './account.schemas.js';

type AccountSettings = Static<typeof AccountSettingsSchema>;

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
    return this.write(actor, version, ifMatch, 'account.addresses_replaced', {
      addresses: JSON.stringify(addresses),
    });
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
    return this.write(actor, input.version, ifMatch, 'account.settings_changed', values);
  }

  private async write(
    actor: Actor,
    version: number,
    ifMatch: IfMatch,
    action: string,
    values: Partial<AccountRow>,
  ): Promise<AccountSettings> {
    const now = this.ctx.clock.now();
    return this.ctx.db.transaction().execute(async (trx) => {
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
      const presented = presentAccount(after);
      await appendAudit(
        trx,
        actor,
        {
          action,
          resourceType: 'account',
          resourceId: actor.accountId,
          changes: diff(presentAccount(before), presented),
        },
        now,
      );
      return presented;
    });
  }
}
