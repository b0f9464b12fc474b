import type { AppContext } from '../../context.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import { AppError } from '../../shared/errors.js';
import type { FieldError } from '../../shared/errors.js';
import { toMajor, toMinor } from '../../shared/money.js';
import type { Level } from './claim.js';
import * as repo from './dunning.repository.js';
import type { DunningSettings, LevelView, PutDunningSettings } from './dunning.schemas.js';

/** The settings an account dunns with until it saves its own (docs/dunning.md). */
export const DEFAULT_LEVELS: readonly Level[] = [
  { kind: 'PAYMENT_REMINDER', daysAfter: 7, feeMinor: 0, defaultInterest: false },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
];

/** Settings as the run uses them. */
export interface Settings {
  enabled: boolean;
  levels: readonly Level[];
  flatFee: boolean;
  paymentDays: number;
}

/** Fees are kept in cents: the levels apply to invoices of any currency with two decimals. */
const FEE_CURRENCY = 'EUR';

export function settingsOf(row: repo.DunningSettingsRow | undefined): Settings {
  if (!row) return { enabled: false, levels: DEFAULT_LEVELS, flatFee: true, paymentDays: 10 };
  return {
    enabled: row.enabled === 1,
    levels: JSON.parse(row.levels) as Level[],
    flatFee: row.flat_fee === 1,
    paymentDays: row.payment_days,
  };
}

function present(row: repo.DunningSettingsRow | undefined): DunningSettings {
  const s = settingsOf(row);
  return {
    enabled: s.enabled,
    levels: s.levels.map((l) => ({
      kind: l.kind,
      daysAfter: l.daysAfter,
      fee: toMajor(l.feeMinor, FEE_CURRENCY),
      defaultInterest: l.defaultInterest,
    })),
    flatFee: s.flatFee,
    paymentDays: s.paymentDays,
    version: row?.version ?? 0,
    createdAt: row?.created_at ?? null,
    updatedAt: row?.updated_at ?? null,
  };
}

/** A payment reminder may only come first, and there are at most three dunning letters. */
function levelsOf(levels: LevelView[]): Level[] {
  const errors: FieldError[] = [];
  const out = levels.map((l, i) => {
    if (i > 0 && l.kind !== 'DUNNING')
      errors.push({
        path: `/body/levels/${i}/kind`,
        message: 'must be DUNNING: a payment reminder can only be the first level',
        code: 'invalid',
      });
    const feeMinor = toMinor(l.fee, FEE_CURRENCY);
    if (feeMinor === undefined)
      errors.push({
        path: `/body/levels/${i}/fee`,
        message: 'must have at most two decimals',
        code: 'invalid',
      });
    return { ...l, feeMinor: feeMinor ?? 0 };
  });
  if (errors.length > 0)
    throw new AppError(
      'validation_failed',
      `The dunning levels are invalid: ${errors[0]!.message}.`,
      {
        errors,
      },
    );
  return out.map(({ kind, daysAfter, feeMinor, defaultInterest }) => ({
    kind,
    daysAfter,
    feeMinor,
    defaultInterest,
  }));
}

/**
 * The dunning settings of an account: the defaults until the first PUT saves a row (version
 * 1); later PUTs change what they name. `version` (0 for the defaults) or `If-Match` make a
 * change conditional.
 */
export class DunningSettingsService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string): Promise<DunningSettings> {
    return present(await repo.findSettings(this.ctx.db, accountId));
  }

  async put(actor: Actor, input: PutDunningSettings, header: IfMatch): Promise<DunningSettings> {
    const ifMatch = typeof header === 'number' ? header : undefined;
    const levels = input.levels === undefined ? undefined : levelsOf(input.levels);
    const expected = input.version ?? ifMatch;
    if (input.version !== undefined && ifMatch !== undefined && input.version !== ifMatch)
      throw new AppError(
        'version_conflict',
        'The body’s version and If-Match disagree; send one of them.',
      );
    const at = this.ctx.clock.now();
    const now = at.toISOString();
    return this.ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findSettings(trx, actor.accountId);
      const current = settingsOf(before);
      const values = {
        enabled: (input.enabled ?? current.enabled) ? 1 : 0,
        levels: JSON.stringify(levels ?? current.levels),
        flat_fee: (input.flatFee ?? current.flatFee) ? 1 : 0,
        payment_days: input.paymentDays ?? current.paymentDays,
      };
      let after: repo.DunningSettingsRow;
      if (!before) {
        // The defaults are version 0: only that version (or none) matches them.
        if (expected !== undefined && expected !== 0)
          throw new AppError(
            input.version === undefined ? 'precondition_failed' : 'version_conflict',
            'No dunning settings are saved yet (current version 0). Re-read them and apply your change again.',
            { members: { currentVersion: 0 } },
          );
        after = {
          account_id: actor.accountId,
          ...values,
          last_run_on: null,
          version: 1,
          created_at: now,
          updated_at: now,
        };
        if (!(await repo.insertSettings(trx, after))) throw versionConflict('Dunning settings', 1);
      } else {
        after = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Dunning settings',
          run: (version) =>
            repo.updateSettings(trx, actor.accountId, version ?? before.version, {
              ...values,
              updated_at: now,
            }),
          current: async () => (await repo.findSettings(trx, actor.accountId))?.version,
        });
      }
      const view = present(after);
      await appendAudit(
        trx,
        actor,
        {
          action: before ? 'dunning_settings.updated' : 'dunning_settings.created',
          resourceType: 'dunning_settings',
          resourceId: actor.accountId,
          changes: { before: before ? present(before) : null, after: view },
        },
        at,
      );
      return view;
    });
  }
}
