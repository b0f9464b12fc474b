import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { isPostgres, isUniqueViolation } from '../../db/dialect.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { AppError } from '../../shared/errors.js';
import { KeyedFifo } from '../../shared/fifo-lock.js';
import * as repo from './partner-numbers.repository.js';
import type { PartnerNumbering, PutPartnerNumbering } from './partner-numbers.schemas.js';

const TYPES = { customer: 'CUSTOMER', vendor: 'VENDOR' } as const;

/**
 * The most numbers a create tries: each one skipped is another partner's (typed in by hand,
 * or left behind by a lowered `nextValue`). Every try moves the sequence on, so the next
 * create starts past them.
 */
const MAX_SKIPS = 100;

/**
 * The takes of this process, one sequence's one after the other (PostgreSQL; SQLite runs one
 * statement at a time anyway). Concurrent upserts of one row do not queue:
 * each that finds the row changed by another starts over, so 50 creates at once made the
 * database spend 2–4 ms of CPU per create retrying, and a take waited up to 170 ms
 * (`POST /v1/partners` at 50 connections: ~400 creates/s). One take at a time per process
 * leaves the row's lock to arbitrate only between processes, which it still does.
 */
const takes = new KeyedFifo();

/**
 * The next free number of a partner type's sequence, taken (a failed create leaves a gap,
 * as customer numbers may have). Numbers another partner already has, typed in by hand, are
 * skipped. Runs outside the create's transaction: its row lock is held only for the statement.
 * Takes of one sequence run one at a time in this process (`takes`).
 */
export async function nextPartnerNumber(
  db: Executor,
  accountId: string,
  type: string,
): Promise<string> {
  const numbered: repo.NumberedType = type === 'VENDOR' ? 'VENDOR' : 'CUSTOMER';
  for (let i = 0; i < MAX_SKIPS; i++) {
    const take = () => repo.takeNumber(db, accountId, numbered);
    // SQLite runs one statement at a time anyway, and a take waits for its group commit's
    // flush: in turn, each would wait for the one before it to reach the disk.
    const { number, taken } = await (isPostgres(db)
      ? takes.run(`${accountId} ${numbered}`, take)
      : take());
    if (!taken) return number;
  }
  throw new AppError(
    'business_rule_violated',
    `The next ${MAX_SKIPS} ${numbered === 'VENDOR' ? 'vendor' : 'customer'} numbers of the sequence are other partners' numbers already.`,
    {
      errors: [
        {
          path: '/body/partnerNumber',
          message: `is required: ${MAX_SKIPS} numbers in a row are taken; give one, or move the sequence past them with PUT /v1/partners/numbering`,
          code: 'sequence_exhausted',
        },
      ],
    },
  );
}

/**
 * The write's unique violation as a 409 naming `partnerNumber` (the one unique value a partner
 * write can collide on); any other error as it is.
 */
export async function numberUnique<T>(
  number: string | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (number === undefined || !isUniqueViolation(err)) throw err;
    throw new AppError('duplicate', `Another partner already has the number ${number}.`, {
      errors: [
        {
          path: '/body/partnerNumber',
          message: `${number} is already another partner's number`,
          code: 'duplicate',
        },
      ],
    });
  }
}

function present(
  stored: Partial<Record<repo.NumberedType, repo.NumberSequence>>,
): PartnerNumbering {
  const view = (type: repo.NumberedType) => {
    const s = stored[type] ?? repo.defaultSequence(type);
    return {
      prefix: s.prefix,
      nextValue: s.nextValue,
      nextNumber: repo.formatNumber(s.prefix, s.nextValue),
    };
  };
  return { customer: view('CUSTOMER'), vendor: view('VENDOR') };
}

/**
 * `/v1/partners/numbering`: the sequences new partners take their numbers from. A moving
 * counter, not a versioned record: every create advances it, so a PUT names what it sets.
 */
export class PartnerNumberingService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string): Promise<PartnerNumbering> {
    return present(await repo.findSequences(this.ctx.db, accountId));
  }

  async put(actor: Actor, input: PutPartnerNumbering): Promise<PartnerNumbering> {
    const at = this.ctx.clock.now();
    return this.ctx.db.transaction().execute(async (trx) => {
      const stored = await repo.findSequences(trx, actor.accountId);
      const before = present(stored);
      for (const [key, type] of Object.entries(TYPES) as [
        keyof typeof TYPES,
        repo.NumberedType,
      ][]) {
        const given = input[key];
        if (!given) continue;
        const current = stored[type] ?? repo.defaultSequence(type);
        const next = {
          prefix: given.prefix ?? current.prefix,
          nextValue: given.nextValue ?? current.nextValue,
        };
        await repo.putSequence(trx, actor.accountId, type, next);
        stored[type] = next;
      }
      const after = present(stored);
      await appendAudit(
        trx,
        actor,
        {
          action: 'partner_numbering.updated',
          resourceType: 'partner_numbering',
          resourceId: actor.accountId,
          changes: diff(before, after),
        },
        at,
      );
      return after;
    });
  }
}
