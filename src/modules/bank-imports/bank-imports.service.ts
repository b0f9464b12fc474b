import type { Insertable } from 'kysely';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { assertIsoDate, invalidField } from '../../http/field-rules.js';
import { decodeIndexCursor, encodeIndexCursor } from '../../http/pagination.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { isCurrency } from '../../shared/money.js';
import { findAccount } from '../account/index.js';
import { requireUploadedFile } from '../files/index.js';
import {
  presentImport,
  type StoredProblems,
  type StoredStatement,
} from './bank-imports.presenter.js';
import * as repo from './bank-imports.repository.js';
import {
  INLINE_TRANSACTIONS,
  type CreateImport,
  type DecisionInput,
  type ImportTransaction,
  type ImportView,
  type ListTransactions,
  type Suggestion,
} from './bank-imports.schemas.js';
import { identities } from './identity.js';
import { parseStatementFile } from './parsers/index.js';
import type { ParsedEntry, ParsedStatement, ParseResult } from './parsers/types.js';
import { Matcher } from './suggestions.js';
import { bookAcceptedLines } from './bank-imports.booking.js';
// Registers which statement files imports keep (file deletes consult it).
import './bank-imports.retention.js';
import { presentTransaction } from './bank-imports.presenter.js';
import { emitEvent } from '../webhook-endpoints/index.js';

/** Content types a statement can be uploaded as (decisions §8). */
const STATEMENT_TYPES = ['text/csv', 'application/xml', 'text/xml', 'text/plain'];

function activeExists(): AppError {
  return new AppError(
    'state_conflict',
    'An import is already active: finalize or discard it first (GET /v1/bank-statement-imports/active).',
  );
}

function notActive(row: repo.ImportRow): AppError {
  return new AppError('state_conflict', `The import is ${row.status}, not ACTIVE.`);
}

/**
 * Statements and lines in a currency that is not (or no longer) ISO 4217 — DEM in an old
 * sample — cannot be booked: they are left out with a problem each; a file with nothing left
 * is refused.
 */
function knownCurrencies(parsed: ParseResult): ParseResult {
  const errors = [...parsed.errors];
  const statements = parsed.statements.flatMap((s, statement) => {
    if (!isCurrency(s.currency)) {
      errors.push({
        statement,
        message: `Statement in ${s.currency}, not an ISO 4217 currency: left out.`,
      });
      return [];
    }
    const entries = s.entries.filter((e, entry) => {
      if (isCurrency(e.currency)) return true;
      errors.push({
        statement,
        entry,
        message: `Entry in ${e.currency}, not an ISO 4217 currency: left out.`,
      });
      return false;
    });
    return [{ ...s, entries }];
  });
  if (statements.length === 0 && parsed.statements.length > 0)
    throw new AppError(
      'file_unprocessable',
      `The statements are in ${[...new Set(parsed.statements.map((s) => s.currency))].join(', ')}, not in an ISO 4217 currency.`,
    );
  return { ...parsed, statements, errors };
}

/** Each statement's figures, and whether its lines add up from opening to closing balance. */
function summarize(statements: ParsedStatement[]): StoredStatement[] {
  return statements.map((s, index) => {
    const sum = s.entries.reduce((total, e) => total + e.amountMinor, 0);
    return {
      index,
      statementId: s.statementId,
      account: s.account,
      currency: s.currency,
      openingMinor: s.openingBalanceMinor,
      openingDate: s.openingDate,
      closingMinor: s.closingBalanceMinor,
      closingDate: s.closingDate,
      entries: s.entries.length,
      balanceOk:
        s.openingBalanceMinor === null || s.closingBalanceMinor === null
          ? null
          : s.openingBalanceMinor + sum === s.closingBalanceMinor,
    };
  });
}

/** The lines booked within the import's period (inclusive), and how many fell outside. */
function withinPeriod(statements: ParsedStatement[], from: string, to: string) {
  const kept: Array<{ entry: ParsedEntry; statement: number }> = [];
  let outsidePeriod = 0;
  statements.forEach((s, statement) => {
    for (const entry of s.entries)
      if (entry.bookingDate >= from && entry.bookingDate <= to) kept.push({ entry, statement });
      else outsidePeriod++;
  });
  return { kept, outsidePeriod };
}

/** A statement line as staged for review: its data, identity, decision and suggestions. */
function stagedLine(
  entry: ParsedEntry,
  line: {
    importId: string;
    idx: number;
    accountId: string;
    statement: number;
    identity: string;
    decision: 'ACCEPTED' | 'REJECTED' | null;
    duplicate: { import_id: string; idx: number; payment_id: string | null } | undefined;
    suggestions: Suggestion[];
  },
): Insertable<DB['bank_import_transactions']> {
  const { duplicate } = line;
  return {
    import_id: line.importId,
    idx: line.idx,
    account_id: line.accountId,
    statement_index: line.statement,
    booking_date: entry.bookingDate,
    value_date: entry.valueDate,
    amount: entry.amountMinor,
    currency: entry.currency,
    counterparty_name: entry.counterpartyName,
    counterparty_iban: entry.counterpartyIban,
    counterparty_bic: entry.counterpartyBic,
    purpose: entry.purpose,
    end_to_end_id: entry.endToEndId,
    mandate_reference: entry.mandateReference,
    bank_reference: entry.bankReference,
    booking_text: entry.bookingText,
    reversal: entry.reversal ? 1 : 0,
    return_reason: entry.returnReason === undefined ? null : (entry.returnReason ?? ''),
    identity: line.identity,
    decision: line.decision,
    duplicate_of: duplicate
      ? JSON.stringify({
          importId: duplicate.import_id,
          index: duplicate.idx,
          paymentId: duplicate.payment_id,
        })
      : null,
    suggestions: JSON.stringify(line.suggestions),
  };
}

/**
 * Bank statement imports (decisions §11): parse and stage, review line by line, finalize in
 * one database transaction. The import is one record with one version: every decision and
 * the finalize carry it and bump it.
 */
export class BankImportsService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreateImport): Promise<ImportView> {
    const now = this.ctx.clock.now();
    assertIsoDate(input.periodFrom, '/body/periodFrom');
    assertIsoDate(input.periodTo, '/body/periodTo');
    if (input.periodTo < input.periodFrom)
      throw invalidField('/body/periodTo', 'must be on or after periodFrom', 'invalid_value');
    if (await repo.findActive(this.ctx.db, actor.accountId)) throw activeExists();
    const { file, parsed } = await this.readStatement(actor, input);
    const { kept, outsidePeriod } = withinPeriod(
      parsed.statements,
      input.periodFrom,
      input.periodTo,
    );
    const importId = newId('bankImport');
    const auto = input.autoApprove === true;
    const { rows, undecided } = await this.stage(actor.accountId, importId, kept, auto);
    const problems: StoredProblems = { parser: parsed.errors, outsidePeriod };
    const row: repo.ImportRow = {
      id: importId,
      account_id: actor.accountId,
      file_id: file.id,
      file_name: input.fileName ?? file.fileName,
      format: parsed.format,
      period_from: input.periodFrom,
      period_to: input.periodTo,
      auto_approve: auto ? 1 : 0,
      status: 'ACTIVE',
      statements: JSON.stringify(summarize(parsed.statements)),
      problems: JSON.stringify(problems),
      transaction_count: rows.length,
      undecided_count: undecided,
      finalized_at: null,
      result: null,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.store(actor, row, rows, now);
    return this.view(row);
  }

  /** The uploaded statement file, parsed (with the account's SOLL/HABEN convention). */
  private async readStatement(actor: Actor, input: CreateImport) {
    const file = await requireUploadedFile(this.ctx, actor.accountId, input.fileId, {
      field: 'fileId',
      key: input.key,
      accept: STATEMENT_TYPES,
      actor,
    });
    const account = await findAccount(this.ctx.db, actor.accountId);
    const parsed = knownCurrencies(
      parseStatementFile(await file.read(), {
        incomingPaymentTerm: (account?.incoming_payment_term ?? 'HABEN') as 'SOLL' | 'HABEN',
      }),
    );
    return { file: file.file, parsed };
  }

  /**
   * The import's lines: each with its identity, the booked transaction it duplicates (if
   * any), the matcher's suggestions, and (auto-approve) its decision; and how many are left
   * undecided.
   */
  private async stage(
    accountId: string,
    importId: string,
    kept: ReturnType<typeof withinPeriod>['kept'],
    auto: boolean,
  ) {
    const ids = identities(kept.map((k) => k.entry));
    const booked = await repo.bookedIdentities(this.ctx.db, accountId, ids);
    const matcher = await Matcher.load(
      this.ctx.db,
      accountId,
      kept.map((k) => k.entry),
    );
    let undecided = 0;
    const rows = kept.map(({ entry, statement }, idx) => {
      const duplicate = booked.get(ids[idx]!);
      const decision = auto ? (duplicate ? 'REJECTED' : 'ACCEPTED') : null;
      if (decision === null) undecided++;
      return stagedLine(entry, {
        importId,
        idx,
        accountId,
        statement,
        identity: ids[idx]!,
        decision,
        duplicate,
        suggestions: matcher.suggest(entry),
      });
    });
    return { rows, undecided };
  }

  /** The import and its lines with their audit event, in one transaction; 409 if one is active. */
  private async store(
    actor: Actor,
    row: repo.ImportRow,
    rows: Parameters<typeof repo.insertLines>[1],
    now: Date,
  ): Promise<void> {
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await repo.insertImport(trx, row);
        await repo.insertLines(trx, rows);
        await appendAudit(
          trx,
          actor,
          {
            action: 'bank_import.created',
            resourceType: 'bank_import',
            resourceId: row.id,
            changes: {
              fileId: row.file_id,
              format: row.format,
              periodFrom: row.period_from,
              periodTo: row.period_to,
              autoApprove: row.auto_approve === 1,
              transactionCount: rows.length,
            },
          },
          now,
        );
      });
    } catch (err) {
      // Another import became active between the check above and this insert.
      if (isUniqueViolation(err)) throw activeExists();
      throw err;
    }
  }

  async get(accountId: string, id: string): Promise<ImportView> {
    const row = await repo.findImport(this.ctx.db, accountId, id);
    if (!row) throw notFound('Bank statement import');
    return this.view(row);
  }

  async active(accountId: string): Promise<ImportView> {
    const row = await repo.findActive(this.ctx.db, accountId);
    if (!row) throw new AppError('not_found', 'No bank statement import is active.');
    return this.view(row);
  }

  async transactions(
    accountId: string,
    id: string,
    query: ListTransactions,
  ): Promise<{ data: ImportTransaction[]; nextCursor: string | null }> {
    if (!(await repo.findImport(this.ctx.db, accountId, id)))
      throw notFound('Bank statement import');
    const limit = query.limit ?? 100;
    const rows = await repo.listTransactions(this.ctx.db, accountId, id, {
      limit,
      afterIndex: decodeIndexCursor(query.cursor),
      decision: query.decision,
      duplicate: query.duplicate,
    });
    const page = rows.slice(0, limit);
    return {
      data: page.map(presentTransaction),
      nextCursor: rows.length > limit ? encodeIndexCursor(page[page.length - 1]!.idx) : null,
    };
  }

  async decide(
    actor: Actor,
    id: string,
    index: number,
    input: DecisionInput,
    ifMatch: IfMatch,
  ): Promise<ImportView> {
    const now = this.ctx.clock.now();
    const updated = await this.ctx.db.transaction().execute(async (trx) => {
      const result = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Bank statement import',
        run: async (version) => {
          const before = await repo.findImport(trx, actor.accountId, id);
          if (!before || version === undefined || before.version !== version) return undefined;
          if (before.status !== 'ACTIVE') throw notActive(before);
          const line = await repo.findLine(trx, id, index);
          if (!line) throw notFound(`Transaction ${index} of the import`);
          await repo.decideLine(trx, id, index, input.decision);
          const after = await repo.updateImport(trx, actor.accountId, id, version, {
            undecided_count: before.undecided_count - (line.decision === null ? 1 : 0),
            updated_at: now.toISOString(),
          });
          return after && { after, previous: line.decision };
        },
        current: () => repo.importVersion(trx, actor.accountId, id),
      });
      await appendAudit(
        trx,
        actor,
        {
          action: 'bank_import.transaction_decided',
          resourceType: 'bank_import',
          resourceId: id,
          changes: { index, decision: [result.previous, input.decision] },
        },
        now,
      );
      return result.after;
    });
    return this.view(updated);
  }

  async discard(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const discarded = await compareAndSet({
        expected: undefined,
        ifMatch,
        what: 'Bank statement import',
        run: async (version) => {
          const before = await repo.findImport(trx, actor.accountId, id);
          if (!before) return undefined;
          if (before.status !== 'ACTIVE') throw notActive(before);
          return repo.updateImport(
            trx,
            actor.accountId,
            id,
            version ?? before.version,
            { status: 'DISCARDED', updated_at: now.toISOString() },
            { status: 'ACTIVE' },
          );
        },
        current: () => repo.importVersion(trx, actor.accountId, id),
      });
      await repo.deleteTransactions(trx, id);
      await appendAudit(
        trx,
        actor,
        {
          action: 'bank_import.discarded',
          resourceType: 'bank_import',
          resourceId: id,
          changes: { transactionCount: discarded.transaction_count },
        },
        now,
      );
    });
  }

  /**
   * Books the import in ONE database transaction: the import's state moves ACTIVE → FINALIZED
   * first (compare-and-set on id, version and status, so a second finalize fails there and
   * books nothing), then every ACCEPTED line becomes a MARKED payment (or marks the open
   * payment it matched), categorised debits become budget entries, and each line enters the
   * ledger of imported lines. A crash anywhere rolls all of it back.
   */
  async finalize(actor: Actor, id: string, version: number, ifMatch: IfMatch): Promise<ImportView> {
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    try {
      const row = await this.ctx.db.transaction().execute(async (trx) => {
        const closed = await compareAndSet({
          expected: version,
          ifMatch,
          what: 'Bank statement import',
          run: async (v) => {
            const before = await repo.findImport(trx, actor.accountId, id);
            if (!before || v === undefined || before.version !== v) return undefined;
            if (before.status !== 'ACTIVE') throw notActive(before);
            if (before.undecided_count > 0)
              throw new AppError(
                'state_conflict',
                `${before.undecided_count} transactions are still undecided: accept or reject each before finalizing.`,
                { members: { undecidedCount: before.undecided_count } },
              );
            return repo.updateImport(
              trx,
              actor.accountId,
              id,
              v,
              { status: 'FINALIZED', finalized_at: at, updated_at: at },
              { status: 'ACTIVE' },
            );
          },
          current: () => repo.importVersion(trx, actor.accountId, id),
        });
        const result = await bookAcceptedLines(this.ctx, trx, actor, closed, at);
        const finished = await repo.setImportResult(trx, id, result);
        const counts = await repo.countDecisions(trx, actor.accountId, id);
        await emitEvent(
          this.ctx,
          trx,
          actor.accountId,
          'import.finalized',
          presentImport(finished, counts, [], null),
        );
        await appendAudit(
          trx,
          actor,
          {
            action: 'bank_import.finalized',
            resourceType: 'bank_import',
            resourceId: id,
            changes: result,
          },
          now,
        );
        return finished;
      });
      return await this.view(row);
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError(
          'duplicate',
          'A line of this import was booked by another import meanwhile; nothing was booked. Re-import the statement.',
        );
      throw err;
    }
  }

  private async view(row: repo.ImportRow): Promise<ImportView> {
    const [counts, rows] = await Promise.all([
      repo.countDecisions(this.ctx.db, row.account_id, row.id),
      repo.listTransactions(this.ctx.db, row.account_id, row.id, { limit: INLINE_TRANSACTIONS }),
    ]);
    const inline = rows.slice(0, INLINE_TRANSACTIONS);
    const next =
      rows.length > INLINE_TRANSACTIONS ? encodeIndexCursor(inline[inline.length - 1]!.idx) : null;
    return presentImport(row, counts, inline, next);
  }
}
