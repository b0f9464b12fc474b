import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import * as repo from './sepa.repository.js';
import type { PutSepaSettings, SepaSettings } from './sepa.schemas.js';

/** Pre-notification (Vorabankündigung) before a collection, unless the account sets another. */
export const DEFAULT_PRE_NOTIFICATION_DAYS = 14;

/** The account's SEPA settings, the defaults where none are stored (version 1). */
export async function readSepaSettings(db: Executor, accountId: string): Promise<SepaSettings> {
  return presentSettings(await repo.findSettings(db, accountId));
}

function presentSettings(
  row: Pick<repo.SettingsRow, 'pre_notification_days' | 'auto_collect' | 'version'> | undefined,
): SepaSettings {
  return {
    preNotificationDays: row?.pre_notification_days ?? DEFAULT_PRE_NOTIFICATION_DAYS,
    autoCollect: row?.auto_collect === 1,
    version: row?.version ?? 1,
  };
}

/** Writes the settings under their version (1 names "never set"), audited. */
export async function putSepaSettings(
  ctx: AppContext,
  actor: Actor,
  input: PutSepaSettings,
  ifMatch: IfMatch,
): Promise<SepaSettings> {
  const now = ctx.clock.now().toISOString();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const row = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'SEPA settings',
        run: async (v) => {
          if (v === undefined) return undefined;
          const values = {
            pre_notification_days: input.preNotificationDays,
            ...(input.autoCollect === undefined ? {} : { auto_collect: input.autoCollect ? 1 : 0 }),
            updated_at: now,
          };
          if (await repo.findSettings(trx, actor.accountId))
            return repo.updateSettings(trx, actor.accountId, v, values);
          if (v !== 1) return undefined;
          const inserted = {
            account_id: actor.accountId,
            auto_collect: 0,
            auto_collected_on: null,
            ...values,
            version: 2,
            created_at: now,
          };
          await repo.insertSettings(trx, inserted);
          return inserted;
        },
        current: async () => (await repo.findSettings(trx, actor.accountId))?.version ?? 1,
      });
      await appendAudit(
        trx,
        actor,
        {
          action: 'sepa_settings.changed',
          resourceType: 'sepa_settings',
          resourceId: actor.accountId,
          changes: {
            preNotificationDays: row.pre_notification_days,
            autoCollect: row.auto_collect === 1,
          },
        },
        new Date(now),
      );
      return presentSettings(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw versionConflict('SEPA settings', 2);
    throw err;
  }
}
