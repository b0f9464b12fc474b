import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from '../db/dialect.js';
import type { ChangeAudit } from '../db/records.js';
import { afterCommit, deferRead, deferStatement } from '../db/transactions.js';
import type { DB } from '../db/schema.js';
import { newId } from './ids.js';
import { sha256 } from './secrets.js';

/** Who did it: the user and credential behind a request, or the system itself. */
export interface Actor {
  accountId: string;
  userId: string | null;
  tokenId: string | null;
  type: 'user' | 'system';
  requestId: string | null;
  ip: string | null;
}

/** The actor of work no request asked for (schedules, jobs) in an account. */
export function systemActor(accountId: string): Actor {
  return { accountId, userId: null, tokenId: null, type: 'system', requestId: null, ip: null };
}

export interface AuditInput {
  action: string;
  resourceType: string;
  resourceId: string;
  /** Created: the new values; updated: `{field: {from, to}}`; deleted: the last values. */
  changes: Record<string, unknown>;
}

const GENESIS = '0'.repeat(64);
// `code` alone is a one-time code; `postalCode`, `unitCode` or `exemptionCode` are not secret.
const SECRET_FIELDS = /pass(word)?|secret|token|hash|^code$|card|iban|cvc/i;

/** Drops fields that must never reach the audit trail (decisions §15). */
export function redact(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !SECRET_FIELDS.test(k)));
}

/** The `changes` of an event recording `values` (a creation's, a deletion's), as stored. */
export function auditedValues(values: Record<string, unknown>): string {
  return JSON.stringify(redact(values));
}

/** Fields every change touches, left out of its `changes`. */
const NOT_DIFFED: readonly string[] = ['version', 'updatedAt', 'createdAt'];

/** Whether a change of `field` belongs in an event's `changes` (not a secret, not bookkeeping). */
const diffed = (field: string) => !SECRET_FIELDS.test(field) && !NOT_DIFFED.includes(field);

/** `{field: {from, to}}` for every listed field whose value changed. */
export function diff<T extends object>(
  before: T,
  after: T,
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (!diffed(key)) continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      out[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  return out;
}

interface HashedFields {
  id: string;
  account_id: string;
  seq: number;
  occurred_at: string;
  actor_type: string;
  actor_id: string | null;
  token_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: string;
  request_id: string | null;
  ip: string | null;
}

/** The chain link: SHA-256 over the previous hash and the event's fields in a fixed order. */
export function eventHash(prevHash: string, e: HashedFields): string {
  return sha256(
    JSON.stringify([
      prevHash,
      e.id,
      e.account_id,
      e.seq,
      e.occurred_at,
      e.actor_type,
      e.actor_id,
      e.token_id,
      e.action,
      e.resource_type,
      e.resource_id,
      e.changes,
      e.request_id,
      e.ip,
    ]),
  );
}

/** The event as written in the caller's transaction, before it is chained. */
function pendingEvent(actor: Actor, input: AuditInput, at: Date) {
  return {
    id: newId('auditEvent'),
    account_id: actor.accountId,
    occurred_at: at.toISOString(),
    actor_type: actor.type,
    actor_id: actor.userId,
    token_id: actor.tokenId,
    action: input.action,
    resource_type: input.resourceType,
    resource_id: input.resourceId,
    changes: auditedValues(input.changes),
    request_id: actor.requestId,
    ip: actor.ip,
  };
}

/**
 * Records an event of the caller's write, in the caller's transaction, so the write and its
 * event commit or roll back together.
 *
 * SQLite serialises writers anyway: the event is chained right here (head bumped, event
 * inserted with its hash). PostgreSQL runs writers side by side, and a chain head bumped inside
 * every write would make all writes of an account wait for each other until they commit. There
 * the event goes to `audit_pending` and is chained into `audit_events` right after the commit
 * (`sealAudit`, in commit order, many events per round), without holding up the write's
 * answer. Reading the trail (the API, the verification) seals the account first.
 */
export async function appendAudit(
  trx: Transaction<DB>,
  actor: Actor,
  input: AuditInput,
  at: Date,
): Promise<void> {
  const event = pendingEvent(actor, input, at);
  if (sealsAfterCommit(trx, actor.accountId)) {
    await deferStatement(
      trx,
      CompiledQuery.raw(
        PENDING_INSERT,
        PENDING_COLUMNS.map((c) => event[c]),
      ),
    );
    return;
  }
  // A transaction Kysely did not open through `KontorKysely` (or SQLite): chain inline.
  if (isPostgres(trx)) await lockChain(trx, actor.accountId);
  const head = await bumpHead(trx, actor.accountId);
  await chain(trx, actor.accountId, head, event);
}

/** Rows per multi-row audit insert (13–15 parameters each: within both databases' limits). */
const AUDIT_ROWS_PER_INSERT = 500;

/**
 * `appendAudit` for many events of one actor's write at once (a batch of the same kind of
 * change, in one transaction): the same rows in the same order, in a few multi-row statements
 * instead of three statements per event.
 */
export async function appendAudits(
  trx: Transaction<DB>,
  actor: Actor,
  inputs: readonly AuditInput[],
  at: Date,
): Promise<void> {
  if (inputs.length === 0) return;
  const events = inputs.map((input) => pendingEvent(actor, input, at));
  if (sealsAfterCommit(trx, actor.accountId)) {
    for (let from = 0; from < events.length; from += AUDIT_ROWS_PER_INSERT) {
      const part = events.slice(from, from + AUDIT_ROWS_PER_INSERT);
      await deferStatement(
        trx,
        CompiledQuery.raw(
          multiRowInsert('audit_pending', PENDING_COLUMNS, part.length),
          part.flatMap((e) => PENDING_COLUMNS.map((c) => e[c])),
        ),
      );
    }
    return;
  }
  if (isPostgres(trx)) await lockChain(trx, actor.accountId);
  const head = await bumpHead(trx, actor.accountId, events.length);
  const rows = link(head, events);
  for (let from = 0; from < rows.length; from += AUDIT_ROWS_PER_INSERT) {
    const part = rows.slice(from, from + AUDIT_ROWS_PER_INSERT);
    await trx.executeQuery(
      raw(
        trx,
        multiRowInsert('audit_events', EVENT_COLUMNS, part.length),
        part.flatMap((r) => EVENT_COLUMNS.map((c) => r[c])),
      ),
    );
  }
  await trx.executeQuery(raw(trx, HEAD_MOVE, [rows[rows.length - 1]!.hash, actor.accountId]));
}

/** `insert into table (columns) values ($1, …), (…)` for `count` rows, numbered placeholders. */
function multiRowInsert(table: string, columns: readonly string[], count: number): string {
  const rows = Array.from(
    { length: count },
    (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
  );
  return `insert into ${table} (${columns.join(', ')}) values ${rows.join(', ')}`;
}

/**
 * PostgreSQL, in a transaction opened through `KontorKysely`: seals the account's pending
 * events after the commit and answers true; else false (the caller chains inline).
 */
function sealsAfterCommit(trx: Transaction<DB>, accountId: string): boolean {
  return (
    isPostgres(trx) &&
    afterCommit(trx, (db) => {
      // Not awaited: the write answers at once, and the seal chains its event (with every
      // other event committed meanwhile) a moment later. Reading the trail seals first.
      void sealAudit(db, accountId).catch((err: unknown) =>
        // The event is stored; the next seal of the account (or the sweep) chains it.
        sealFailures.report(err),
      );
      return Promise.resolve();
    })
  );
}

/**
 * PostgreSQL, for an update sent in one round trip (`updateAudited` of src/db/records.ts):
 * the event of the change, its `changes` diffed by the database (what `diff` gives from the
 * presented records, over the fields `diff` keeps). The event is chained after the commit as
 * `appendAudit`'s. Undefined where that cannot be (SQLite, or a transaction not opened
 * through `KontorKysely`): the caller uses `appendAudit`.
 */
export function auditChange(
  trx: Transaction<DB>,
  actor: Actor,
  input: Omit<AuditInput, 'changes'>,
  at: Date,
): ChangeAudit | undefined {
  if (!sealsAfterCommit(trx, actor.accountId)) return undefined;
  const event = pendingEvent(actor, { ...input, changes: {} }, at);
  return {
    key: 'audit',
    includes: diffed,
    sql: (cte, changes, first) =>
      `insert into audit_pending (${CHANGE_EVENT_COLUMNS.join(', ')}, changes)
        select ${CHANGE_EVENT_COLUMNS.map((_, i) => `$${first + i}`).join(', ')}, ${cte}.${changes}
        from ${cte}`,
    parameters: CHANGE_EVENT_COLUMNS.map((c) => event[c]),
  };
}

/**
 * PostgreSQL: every writer of an account's chain head holds this lock until it commits (the
 * seal, and the rare inline chaining), so the head is read and written by one at a time.
 */
async function lockChain(trx: Transaction<DB>, accountId: string): Promise<void> {
  // Deferred: it goes out with the seal's first read (BEGIN, lock and read: one round trip).
  await deferStatement(
    trx,
    sql`select pg_advisory_xact_lock(${ADVISORY_NAMESPACE}, hashtext(${accountId}))`.compile(trx),
  );
}

/** Takes the account's next sequence number; answers the head before. */
async function bumpHead(
  trx: Transaction<DB>,
  accountId: string,
  count = 1,
): Promise<{ seq: number; hash: string }> {
  const bump = async () =>
    (
      await trx.executeQuery<{ seq: number; hash: string }>(
        count === 1 ? raw(trx, HEAD_BUMP, [accountId]) : raw(trx, HEAD_BUMP_BY, [count, accountId]),
      )
    ).rows[0];
  let head = await bump();
  if (!head) {
    await trx.executeQuery(raw(trx, HEAD_CREATE, [accountId, GENESIS]));
    head = (await bump())!;
  }
  return { seq: head.seq - count, hash: head.hash };
}

/** `events` linked after `head`: their sequence numbers, links and hashes. */
function link(head: { seq: number; hash: string }, events: Omit<HashedFields, 'seq'>[]) {
  let prev = head.hash;
  return events.map((e, i) => {
    const linked: HashedFields = { ...e, seq: head.seq + i + 1 };
    const hash = eventHash(prev, linked);
    const row = { ...linked, prev_hash: prev, hash };
    prev = hash;
    return row;
  });
}

/** Links the event after `head` and stores it and the new head. */
async function chain(
  trx: Transaction<DB>,
  accountId: string,
  head: { seq: number; hash: string },
  event: Omit<HashedFields, 'seq'>,
): Promise<void> {
  const [row] = link(head, [event]);
  await trx.executeQuery(
    raw(
      trx,
      EVENT_INSERT,
      EVENT_COLUMNS.map((c) => row![c]),
    ),
  );
  await trx.executeQuery(raw(trx, HEAD_MOVE, [row!.hash, accountId]));
}

/** How long a seal waits for more events before it starts (see `Sealer.seal`). */
const SEAL_GATHER_MS = 20;
/** Events per seal. */
const SEAL_BATCH = 1000;

/** Logs seal failures at most once a minute (a lost database fails every write anyway). */
const sealFailures = {
  last: 0,
  logger: undefined as { warn: (obj: object, msg: string) => void } | undefined,
  report(err: unknown) {
    if (Date.now() - this.last < 60_000) return;
    this.last = Date.now();
    this.logger?.warn({ err }, 'audit events left pending; the next seal chains them');
  },
};

/** Where seal failures are logged (set once at start). */
export function setAuditLogger(logger: { warn: (obj: object, msg: string) => void }): void {
  sealFailures.logger = logger;
}

/**
 * One seal of an account at a time per process: a call joins the seal that has not started
 * yet, or queues one behind the running seal, so every call is answered by a seal that began
 * after it (and so saw its committed events), and a burst of writes shares a few seals. A
 * seal after a write waits SEAL_GATHER_MS for the burst; one someone waits for (a reader of
 * the trail, `settleAudit`) starts at once, taking the writes' queued seal with it.
 */
class Sealer {
  private readonly queued = new Map<string, Promise<void>>();
  private readonly running = new Map<string, Promise<void>>();
  /** Accounts whose queued seal must not gather, and how to end a gather under way. */
  private readonly hurried = new Map<string, (() => void) | undefined>();

  constructor(private readonly db: Kysely<DB>) {}

  /** Resolves when every seal started or queued so far has ended; none of them gathers. */
  async settled(): Promise<void> {
    while (this.queued.size > 0 || this.running.size > 0) {
      for (const accountId of this.queued.keys()) this.hurry(accountId);
      await Promise.allSettled([...this.queued.values(), ...this.running.values()]);
    }
  }

  seal(accountId: string, now: boolean): Promise<void> {
    // Hurries the queued seal, or (none queued) the one made below.
    if (now) this.hurry(accountId);
    const queued = this.queued.get(accountId);
    if (queued) return queued;
    const previous = this.running.get(accountId);
    let next: Promise<void> | undefined = undefined;
    next = (async () => {
      await previous?.catch(() => undefined);
      // A short wait gathers the burst: under load one seal chains the events of many writes
      // (its queries and its commit are shared), instead of one seal per write or two.
      await this.gather(accountId);
      this.queued.delete(accountId);
      this.running.set(accountId, next!);
      try {
        while ((await this.sealBatch(accountId)) === SEAL_BATCH);
      } finally {
        if (this.running.get(accountId) === next) this.running.delete(accountId);
      }
    })();
    this.queued.set(accountId, next);
    return next;
  }

  /** Waits SEAL_GATHER_MS, unless the account's seal is hurried (before or during the wait). */
  private async gather(accountId: string): Promise<void> {
    if (!this.hurried.has(accountId))
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SEAL_GATHER_MS);
        this.hurried.set(accountId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    this.hurried.delete(accountId);
  }

  /** The account's queued seal starts as soon as the one before it has ended. */
  private hurry(accountId: string): void {
    const end = this.hurried.get(accountId);
    if (end) end();
    else this.hurried.set(accountId, undefined);
  }

  /**
   * Chains up to SEAL_BATCH pending events of the account, in one round trip: BEGIN, the
   * advisory lock (it keeps other processes' seals of the account out until this one commits;
   * the head's row lock keeps out writers chaining inline), the seal itself and COMMIT. The
   * database links the events (`SEAL`), so their fields never travel to this process and back.
   * Answers how many it chained (0: nothing was pending, and the transaction wrote nothing).
   */
  private async sealBatch(accountId: string): Promise<number> {
    let sealed!: () => Promise<{ sealed: number }[]>;
    await this.db.transaction().execute(async (trx) => {
      await lockChain(trx, accountId);
      // Its answer is read after the commit, so the whole seal goes out with the COMMIT.
      sealed = await deferRead<{ sealed: number }>(
        trx,
        CompiledQuery.raw(SEAL, [accountId, SEAL_BATCH]),
      );
    });
    return (await sealed())[0]?.sealed ?? 0;
  }
}

/** The fields of a pending event, in the order of its insert. */
const PENDING_COLUMNS = [
  'id',
  'account_id',
  'occurred_at',
  'actor_type',
  'actor_id',
  'token_id',
  'action',
  'resource_type',
  'resource_id',
  'changes',
  'request_id',
  'ip',
] as const;

// The statements of the PostgreSQL path, written out once: every write sends the first, and
// building them through the query builder cost more than the database's work on them.
/** The columns of a pending event other than its changes (`auditChange`). */
const CHANGE_EVENT_COLUMNS = PENDING_COLUMNS.filter((c) => c !== 'changes');
const PENDING_INSERT = `insert into audit_pending (${PENDING_COLUMNS.join(', ')}) values (${PENDING_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

// Chaining inline (SQLite, and PostgreSQL transactions not opened through `KontorKysely`).
const EVENT_COLUMNS = [...PENDING_COLUMNS, 'seq', 'prev_hash', 'hash'] as const;
const EVENT_INSERT = `insert into audit_events (${EVENT_COLUMNS.join(', ')}) values (${EVENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
const HEAD_BUMP = 'update audit_heads set seq = seq + 1 where account_id = $1 returning seq, hash';
const HEAD_BUMP_BY =
  'update audit_heads set seq = seq + $1 where account_id = $2 returning seq, hash';
const HEAD_CREATE =
  'insert into audit_heads (account_id, seq, hash) values ($1, 0, $2) on conflict (account_id) do nothing';
const HEAD_MOVE = 'update audit_heads set hash = $1 where account_id = $2';

/**
 * One of the statements above for the transaction's database: written with PostgreSQL's
 * numbered placeholders, each used once and in order, so SQLite's `?` take their places.
 */
const sqliteText = new Map<string, string>();
function raw(trx: Transaction<DB>, text: string, parameters: unknown[]): CompiledQuery {
  if (isPostgres(trx)) return CompiledQuery.raw(text, parameters);
  let sqlite = sqliteText.get(text);
  if (sqlite === undefined) {
    sqlite = text.replace(/\$\d+/g, '?');
    sqliteText.set(text, sqlite);
  }
  return CompiledQuery.raw(sqlite, parameters);
}

/** `to_json(x)` as text, 'null' for SQL NULL: an element of `eventHash`'s JSON array. */
const jsonText = (x: string) => `coalesce(to_json(${x})::text, 'null')`;
/** `eventHash`'s array in SQL: the previous hash, then the event's fields with its `seq`. */
const HASH_INPUT = [
  'link.hash',
  'p.id',
  'p.account_id',
  'link.seq + 1',
  ...PENDING_COLUMNS.slice(2).map((c) => `p.${c}`),
]
  .map(jsonText)
  .join(" || ',' || ");

/**
 * The seal as one statement. `link` walks the account's pending events in id order (ids grow
 * strictly within a process, and by time across processes) from the chain head, one index
 * step per event, giving each its sequence number, previous hash and hash: SHA-256 over the
 * same JSON text `eventHash` hashes (`to_json` escapes a string as `JSON.stringify` does: `"`,
 * `\`, `\b\f\n\r\t`, other control characters as `\u00xx`, everything else as is), so
 * `verifyAuditChain` checks the database's links with the same code as SQLite's. The linked
 * events move to `audit_events`, leave `audit_pending`, and the last becomes the head.
 */
const SEAL = `with recursive
  head as (
    select coalesce((select seq from audit_heads where account_id = $1), 0) as seq,
      coalesce((select hash from audit_heads where account_id = $1), '${GENESIS}') as hash),
  link (n, ${PENDING_COLUMNS.join(', ')}, seq, prev_hash, hash) as (
    select 0, ''::text, ${PENDING_COLUMNS.slice(1)
      .map(() => 'null::text')
      .join(', ')}, head.seq, null::text, head.hash
    from head
    union all
    select link.n + 1, ${PENDING_COLUMNS.map((c) => `p.${c}`).join(', ')}, link.seq + 1, link.hash,
      encode(sha256(convert_to('[' || ${HASH_INPUT} || ']', 'UTF8')), 'hex')
    from link cross join lateral (
      select * from audit_pending q where q.account_id = $1 and q.id > link.id
      order by q.id limit 1) p
    where link.n < $2),
  chained as (
    insert into audit_events (${PENDING_COLUMNS.join(', ')}, seq, prev_hash, hash)
    select ${PENDING_COLUMNS.join(', ')}, seq, prev_hash, hash from link where n > 0),
  sealed as (
    delete from audit_pending p using link
    where p.account_id = $1 and p.id = link.id and link.n > 0),
  moved as (
    insert into audit_heads (account_id, seq, hash)
    select $1, seq, hash from link where n > 0 order by n desc limit 1
    on conflict (account_id) do update set seq = excluded.seq, hash = excluded.hash)
  select count(*)::int as sealed from link where n > 0`;

/** Namespace of the seal's advisory locks (first key of `pg_advisory_xact_lock(int, int)`). */
const ADVISORY_NAMESPACE = 0x4b41; // "KA"

const sealers = new WeakMap<Kysely<DB>, Sealer>();

/**
 * Chains the account's pending events (PostgreSQL; SQLite chains inline and has none). Called
 * after every write's commit (gathering the burst first), and with `now` before reading the
 * trail and by the sweep (at once).
 */
export function sealAudit(
  db: Kysely<DB>,
  accountId: string,
  { now = false }: { now?: boolean } = {},
): Promise<void> {
  if (!isPostgres(db)) return Promise.resolve();
  let sealer = sealers.get(db);
  if (!sealer) {
    sealer = new Sealer(db);
    sealers.set(db, sealer);
  }
  return sealer.seal(accountId, now);
}

/**
 * Waits for this process's seals under way (PostgreSQL): before the database closes, and in
 * tests that read `audit_events` right after a write.
 */
export async function settleAudit(db: Kysely<DB>): Promise<void> {
  await sealers.get(db)?.settled();
}

/**
 * Chains every account's pending events: events whose writer died between its commit and its
 * seal, or whose seal failed. Run at start, periodically and before a verification.
 */
export async function sealAllAudit(db: Kysely<DB>): Promise<number> {
  if (!isPostgres(db)) return 0;
  const accounts = await db.selectFrom('audit_pending').select('account_id').distinct().execute();
  for (const { account_id } of accounts) await sealAudit(db, account_id, { now: true });
  return accounts.length;
}

export interface ChainReport {
  accounts: number;
  events: number;
  broken: { accountId: string; seq: number; eventId: string; reason: string }[];
}

/**
 * Recomputes every account's chain: each event's hash, its link to the previous one, gapless
 * sequence numbers, and the head. Any edit, insertion or deletion shows up as a break.
 */
export async function verifyAuditChain(db: Kysely<DB>): Promise<ChainReport> {
  await sealAllAudit(db);
  const report: ChainReport = { accounts: 0, events: 0, broken: [] };
  const heads = await db.selectFrom('audit_heads').selectAll().orderBy('account_id').execute();
  for (const head of heads) {
    report.accounts += 1;
    let prev = GENESIS;
    let expectedSeq = 1;
    let lastSeq = 0;
    for (;;) {
      const batch = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('account_id', '=', head.account_id)
        .where('seq', '>', lastSeq)
        // Events chained after the head was read belong to a later verification.
        .where('seq', '<=', head.seq)
        .orderBy('seq')
        .limit(1000)
        .execute();
      if (batch.length === 0) break;
      for (const e of batch) {
        report.events += 1;
        const fail = (reason: string) =>
          report.broken.push({ accountId: e.account_id, seq: e.seq, eventId: e.id, reason });
        if (e.seq !== expectedSeq) fail(`sequence gap: expected ${expectedSeq}`);
        if (e.prev_hash !== prev) fail('link to the previous event does not match');
        if (eventHash(e.prev_hash, e) !== e.hash) fail('content does not match its hash');
        prev = e.hash;
        expectedSeq = e.seq + 1;
        lastSeq = e.seq;
      }
    }
    if (head.seq !== lastSeq || head.hash !== prev)
      report.broken.push({
        accountId: head.account_id,
        seq: head.seq,
        eventId: '-',
        reason: 'chain head does not match the last event',
      });
  }
  return report;
}

/** Filters of the audit trail's list (`GET /v1/audit-events`); all optional. */
export interface AuditEventFilter {
  /** The sequence number of the last event of the page before (`auditSeqOf` its id). */
  afterSeq: number | undefined;
  resourceType?: string;
  resourceId?: string;
  actorId?: string;
  action?: string;
  /** Inclusive lower bound of `occurred_at`. */
  from?: string;
  /** Exclusive upper bound of `occurred_at`. */
  to?: string;
  limit: number;
}

/** The account's chained events, newest first in the chain's order (`auditEventsPage`). */
export function listAuditEvents(db: Kysely<DB>, accountId: string, f: AuditEventFilter) {
  return auditEventsPage(db, accountId, f).execute();
}

/** Where one of the account's events stands in its chain; undefined for an id it has not. */
export async function auditSeqOf(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('audit_events')
    .select('seq')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.seq;
}

/**
 * The statement of a page of the audit trail: by sequence number, newest first, through the
 * unique (account, sequence) index.
 */
export function auditEventsPage(db: Kysely<DB>, accountId: string, f: AuditEventFilter) {
  let query = db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId);
  if (f.afterSeq !== undefined) query = query.where('seq', '<', f.afterSeq);
  if (f.resourceType !== undefined) query = query.where('resource_type', '=', f.resourceType);
  if (f.resourceId !== undefined) query = query.where('resource_id', '=', f.resourceId);
  if (f.actorId !== undefined) query = query.where('actor_id', '=', f.actorId);
  if (f.action !== undefined) query = query.where('action', '=', f.action);
  if (f.from !== undefined) query = query.where('occurred_at', '>=', f.from);
  if (f.to !== undefined) query = query.where('occurred_at', '<', f.to);
  return query.orderBy('seq', 'desc').limit(f.limit);
}
