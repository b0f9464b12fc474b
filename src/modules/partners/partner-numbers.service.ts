import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { isPostgres, isUniqueViolation, isUniqueViolationOf } from '../../db/dialect.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { AppError } from '../../shared/errors.js';
import * as repo from './partner-numbers.repository.js';
import type { PartnerNumbering, PutPartnerNumbering } from './partner-numbers.schemas.js';

const TYPES = { customer: 'CUSTOMER', vendor: 'VENDOR' } as const;

/**
 * The most numbers a create tries. A number found taken (typed in by hand, the other type's
 * numbers, or left behind by a lowered `nextValue`) moves the sequence past the whole run of
 * taken numbers it starts (`skipTakenRun`), so the next try is a free number unless another
 * create took it first: the limit only stops a create that loses that race again and again.
 */
const MAX_SKIPS = 100;

/**
 * The takes waiting in this process, per sequence (PostgreSQL). Concurrent upserts of one row
 * do not queue: each that finds the row changed by another starts over, so 50 creates at once
 * made the database spend 2–4 ms of CPU per create retrying, and a take waited up to 170 ms
 * (`POST /v1/partners` at 50 connections: ~400 creates/s). So one statement at a time runs per
 * sequence and process, and it takes a value for every create that queued while the one before
 * it ran: one at a time, each create had waited for every take ahead of it, a round trip each
 * (2,500 creates/s at most here, against 4,000 without any take). The row's lock arbitrates
 * only between processes, which it still does.
 */
const lines = new WeakMap<Executor, Map<string, Line>>();

/** The most values one statement takes. */
const BATCH = 100;

interface Taker {
  resolve: (number: string) => void;
  reject: (error: unknown) => void;
  /** The statements whose values ran out before this create's turn (its tries, as one alone). */
  tries: number;
}

/** A sequence's takers in the order they asked, and whether a statement runs for them. */
interface Line {
  busy: boolean;
  waiting: Taker[];
}

/**
 * The next free number of a partner type's sequence, taken (a failed create leaves a gap,
 * as customer numbers may have). Numbers another partner already has, typed in by hand, are
 * skipped. Runs outside the create's transaction: its row lock is held only for the statement.
 * On PostgreSQL the creates of one sequence in this process share their statements (`lines`).
 */
export async function nextPartnerNumber(
  db: Executor,
  accountId: string,
  type: string,
): Promise<string> {
  const numbered: repo.NumberedType = type === 'VENDOR' ? 'VENDOR' : 'CUSTOMER';
  if (isPostgres(db) && !db.isTransaction)
    return new Promise((resolve, reject) => {
      const key = `${accountId} ${numbered}`;
      let ofDb = lines.get(db);
      if (!ofDb) lines.set(db, (ofDb = new Map<string, Line>()));
      let line = ofDb.get(key);
      if (!line) ofDb.set(key, (line = { busy: false, waiting: [] }));
      line.waiting.push({ resolve, reject, tries: 0 });
      if (!line.busy) void serve(db, ofDb, key, line, accountId, numbered);
    });
  // SQLite runs one statement at a time anyway.
  for (let i = 0; i < MAX_SKIPS; i++) {
    const { prefix, first, taken } = await repo.takeNumbers(db, accountId, numbered);
    if (taken.length === 0) return repo.formatNumber(prefix, first);
    await skipTaken(db, accountId, numbered);
  }
  throw sequenceExhausted(numbered);
}

/**
 * Takes values for a line's takers until none waits: each statement takes as many values as
 * takers wait (up to BATCH) and hands them out in order. Takers whose values were other
 * partners' numbers wait at the front for the next statement; each such statement counts as a
 * try, as it did for a create alone, and after MAX_SKIPS tries the create is refused.
 */
async function serve(
  db: Executor,
  ofDb: Map<string, Line>,
  key: string,
  line: Line,
  accountId: string,
  numbered: repo.NumberedType,
): Promise<void> {
  line.busy = true;
  try {
    while (line.waiting.length > 0) {
      const batch = line.waiting.splice(0, BATCH);
      let values: repo.TakenValues;
      try {
        values = await repo.takeNumbers(db, accountId, numbered, batch.length);
      } catch (err) {
        for (const taker of batch) taker.reject(err);
        continue;
      }
      const taken = new Set(values.taken);
      let next = 0;
      for (let value = values.first; value < values.first + batch.length; value++)
        if (!taken.has(value)) batch[next++]!.resolve(repo.formatNumber(values.prefix, value));
      const left = batch.slice(next);
      if (left.length > 0) await skipTaken(db, accountId, numbered);
      for (const taker of left) taker.tries++;
      for (const taker of left.filter((t) => t.tries >= MAX_SKIPS))
        taker.reject(sequenceExhausted(numbered));
      line.waiting.unshift(...left.filter((t) => t.tries < MAX_SKIPS));
    }
  } catch (err) {
    // Nothing above throws; should it, no create waits on a line that no longer runs.
    for (const taker of line.waiting.splice(0)) taker.reject(err);
  } finally {
    line.busy = false;
    ofDb.delete(key);
  }
}

/**
 * Moves the sequence past the run of taken numbers at its head (`repo.skipTakenRun`). Only a
 * shortcut: should it fail, the next take tries the run's numbers one by one as before, and a
 * failing database fails that take.
 */
async function skipTaken(db: Executor, accountId: string, type: repo.NumberedType) {
  await repo.skipTakenRun(db, accountId, type).catch(() => undefined);
}

function sequenceExhausted(numbered: repo.NumberedType): AppError {
  return new AppError(
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

/** The most sequence numbers one create tries to insert (others may insert each first). */
const NUMBER_RACES = 10;

/**
 * Runs `insert` with the next number of the type's sequence. The number is free when taken,
 * but where the customers' and the vendors' sequences meet a create of the other type may take
 * the same number and insert it first: the create then takes the next number rather than
 * answer 409 for a number it did not give. The 409 comes only after NUMBER_RACES numbers.
 */
export async function withSequenceNumber<T>(
  db: Executor,
  accountId: string,
  type: string,
  insert: (number: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const number = await nextPartnerNumber(db, accountId, type);
    try {
      return await insert(number);
    } catch (err) {
      if (!isUniqueViolationOf(err, 'partners_number_uq', 'partners.partner_number')) throw err;
      if (attempt === NUMBER_RACES) throw duplicateNumber(number);
    }
  }
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
    throw duplicateNumber(number);
  }
}

/** 409: another partner of the account has the number. */
function duplicateNumber(number: string): AppError {
  return new AppError('duplicate', `Another partner already has the number ${number}.`, {
    errors: [
      {
        path: '/body/partnerNumber',
        message: `${number} is already another partner's number`,
        code: 'duplicate',
      },
    ],
  });
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
