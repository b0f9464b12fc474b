import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { ibanProblem, maskIban, normalizeIban } from '../../shared/iban.js';
import { newId } from '../../shared/ids.js';
import { deriveKey, seal, unseal } from '../../shared/secrets.js';
import { findPartner } from '../partners/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import * as repo from './sepa.repository.js';
import type {
  CreateMandate,
  ListMandates,
  Mandate,
  PartnerBankAccount,
  PutBankAccount,
  Scheme,
  SequenceState,
  UpdateMandate,
} from './sepa.schemas.js';

const NEXT_SEQUENCE = {
  FIRST: 'FRST',
  RECURRING: 'RCUR',
  FINAL: 'FNAL',
  ONE_OFF: 'OOFF',
} as const;

/** The SeqTp a mandate's next collection uses; null when it can no longer be collected on. */
export function nextSequenceType(row: repo.MandateRow): 'FRST' | 'RCUR' | 'FNAL' | 'OOFF' | null {
  if (row.revoked_at !== null) return null;
  const state = row.sequence_state as SequenceState;
  return state === 'COMPLETED' ? null : NEXT_SEQUENCE[state];
}

export function presentMandate(row: repo.MandateRow, amendmentPending = false): Mandate {
  const next = nextSequenceType(row);
  return {
    id: row.id,
    partnerId: row.partner_id,
    reference: row.reference,
    signedOn: row.signed_on,
    iban: row.iban_masked,
    bic: row.bic,
    debtorName: row.debtor_name,
    scheme: row.scheme as Scheme,
    amendmentPending,
    sequenceState: row.sequence_state as SequenceState,
    nextSequenceType: next,
    active: next !== null,
    revokedAt: row.revoked_at,
    lastCollectionDate: row.last_collection_date,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** 400 naming the IBAN field when it is not a valid IBAN; else the IBAN normalised. */
export function checkedIban(value: string, path: string): string {
  const problem = ibanProblem(value);
  if (problem)
    throw new AppError('validation_failed', `The IBAN ${problem}.`, {
      errors: [{ path, message: problem, code: 'invalid_format' }],
    });
  return normalizeIban(value);
}

/** The key the debtor and payee IBANs are sealed with (never the billing key). */
export function sepaKey(ctx: AppContext): Buffer {
  return deriveKey(ctx.appSecret, 'sepa-iban');
}

export function openIban(key: Buffer, sealed: string): string {
  return unseal(key, sealed);
}

/** The ids among `mandateIds` with a change the next collection has to carry. */
async function pendingOf(
  db: Executor,
  accountId: string,
  mandateIds: string[],
): Promise<Set<string>> {
  return new Set(
    (await repo.pendingAmendments(db, accountId, mandateIds)).map((a) => a.mandate_id),
  );
}

/** 409 for a change a mandate cannot take: revoked, completed, or a scheme after collections. */
function refuseChange(before: repo.MandateRow, input: UpdateMandate): void {
  if (before.revoked_at)
    throw new AppError('state_conflict', 'A revoked mandate cannot be changed.');
  if (before.sequence_state === 'COMPLETED')
    throw new AppError(
      'state_conflict',
      'A completed mandate (its final or one-off collection was made) cannot be changed.',
    );
  if (
    input.scheme !== undefined &&
    input.scheme !== before.scheme &&
    before.last_collection_date !== null
  )
    throw new AppError(
      'state_conflict',
      'The scheme of a mandate collected on cannot change: create a new mandate.',
      {
        errors: [
          {
            path: '/body/scheme',
            message: 'cannot change after a collection',
            code: 'state_conflict',
          },
        ],
      },
    );
}

const duplicateReference = () =>
  new AppError('duplicate', 'A mandate with this reference exists in the account.', {
    errors: [{ path: '/body/reference', message: 'is taken', code: 'duplicate' }],
  });

/**
 * SEPA mandates and partner bank accounts. Each write runs in one transaction holding the
 * change, its version bump, its audit event and its webhook event.
 */
export class MandatesService {
  private readonly key: Buffer;

  constructor(private readonly ctx: AppContext) {
    this.key = sepaKey(ctx);
  }

  private async requirePartner(accountId: string, partnerId: string): Promise<void> {
    if (!(await findPartner(this.ctx.db, accountId, partnerId))) throw notFound('Partner');
  }

  async create(actor: Actor, partnerId: string, input: CreateMandate): Promise<Mandate> {
    await this.requirePartner(actor.accountId, partnerId);
    const iban = checkedIban(input.iban, '/body/iban');
    const now = this.ctx.clock.now().toISOString();
    const row: repo.MandateRow = {
      id: newId('sepaMandate'),
      account_id: actor.accountId,
      partner_id: partnerId,
      reference: input.reference,
      signed_on: input.signedOn,
      iban_sealed: seal(this.key, iban),
      iban_masked: maskIban(iban),
      bic: input.bic == null ? null : input.bic.toUpperCase(),
      debtor_name: input.debtorName,
      sequence_state: input.sequenceState ?? 'FIRST',
      scheme: input.scheme ?? 'CORE',
      revoked_at: null,
      last_collection_date: null,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    const mandate = presentMandate(row);
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await repo.insertMandate(trx, row);
        await appendAudit(
          trx,
          actor,
          {
            action: 'mandate.created',
            resourceType: 'sepa_mandate',
            resourceId: row.id,
            changes: { ...mandate, maskedAccount: row.iban_masked },
          },
          new Date(now),
        );
        await emitEvent(this.ctx, trx, actor.accountId, 'mandate.created', mandate);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateReference();
      throw err;
    }
    return mandate;
  }

  async list(
    accountId: string,
    partnerId: string,
    query: ListMandates,
  ): Promise<{ data: Mandate[]; nextCursor: string | null }> {
    await this.requirePartner(accountId, partnerId);
    const limit = query.limit ?? 25;
    const rows = await repo.listMandates(this.ctx.db, accountId, partnerId, {
      limit,
      afterId: decodeCursor(query.cursor),
      active: query.active,
    });
    const page = toPage(rows, limit);
    const pending = await pendingOf(
      this.ctx.db,
      accountId,
      page.rows.map((r) => r.id),
    );
    return {
      data: page.rows.map((r) => presentMandate(r, pending.has(r.id))),
      nextCursor: page.nextCursor,
    };
  }

  async get(accountId: string, id: string): Promise<Mandate> {
    const row = await repo.findMandate(this.ctx.db, accountId, id);
    if (!row) throw notFound('Mandate');
    return presentMandate(row, (await pendingOf(this.ctx.db, accountId, [id])).has(id));
  }

  /**
   * Changes a mandate (docs/sepa-domain.md, "Amendments"). A new reference, debtor IBAN or
   * debtor name is recorded with the values before; on a mandate collected on before, a new
   * reference or IBAN is pending until the next collection carries it (`AmdmntInd`). A revoked
   * or completed mandate answers 409; so does a new scheme on a mandate collected on before.
   */
  async update(actor: Actor, id: string, input: UpdateMandate, ifMatch: IfMatch): Promise<Mandate> {
    const now = this.ctx.clock.now().toISOString();
    const iban = input.iban === undefined ? undefined : checkedIban(input.iban, '/body/iban');
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        const before = await repo.findMandate(trx, actor.accountId, id);
        if (before) refuseChange(before, input);
        const values = before ? this.changes(before, input, iban, now) : {};
        const after = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Mandate',
          run: (v) =>
            v === undefined
              ? Promise.resolve(undefined)
              : repo.updateMandate(trx, actor.accountId, id, v, values, true),
          current: () => repo.mandateVersion(trx, actor.accountId, id),
        });
        const amendment = await this.recordAmendment(trx, actor, before!, after, now);
        const pending = (await pendingOf(trx, actor.accountId, [id])).has(id);
        const mandate = presentMandate(after, pending);
        await appendAudit(
          trx,
          actor,
          {
            action: 'sepa_mandate.updated',
            resourceType: 'sepa_mandate',
            resourceId: id,
            changes: {
              ...diff(presentMandate(before!, mandate.amendmentPending), mandate),
              ...(amendment ? { amendment } : {}),
            },
          },
          new Date(now),
        );
        await emitEvent(this.ctx, trx, actor.accountId, 'mandate.updated', mandate);
        return mandate;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateReference();
      throw err;
    }
  }

  private changes(
    before: repo.MandateRow,
    input: UpdateMandate,
    iban: string | undefined,
    now: string,
  ): Partial<repo.MandateRow> {
    const values: Partial<repo.MandateRow> = { updated_at: now };
    if (input.reference !== undefined) values.reference = input.reference;
    if (input.signedOn !== undefined) values.signed_on = input.signedOn;
    if (iban !== undefined && iban !== openIban(this.key, before.iban_sealed)) {
      values.iban_sealed = seal(this.key, iban);
      values.iban_masked = maskIban(iban);
    }
    if (input.bic !== undefined) values.bic = input.bic === null ? null : input.bic.toUpperCase();
    if (input.debtorName !== undefined) values.debtor_name = input.debtorName;
    if (input.sequenceState !== undefined) values.sequence_state = input.sequenceState;
    if (input.scheme !== undefined) values.scheme = input.scheme;
    return values;
  }

  /**
   * The change of reference, IBAN or name as a row with the values before (none when none of
   * them changed); pending when the mandate was collected on and the reference or IBAN moved.
   */
  private async recordAmendment(
    trx: Executor,
    actor: Actor,
    before: repo.MandateRow,
    after: repo.MandateRow,
    now: string,
  ): Promise<Record<string, unknown> | undefined> {
    const reference = before.reference !== after.reference;
    const iban = before.iban_sealed !== after.iban_sealed;
    if (!reference && !iban && before.debtor_name === after.debtor_name) return undefined;
    const pending = before.last_collection_date !== null && (reference || iban);
    const row: repo.AmendmentRow = {
      id: newId('sepaMandateAmendment'),
      account_id: actor.accountId,
      mandate_id: before.id,
      original_reference: before.reference,
      original_iban_sealed: before.iban_sealed,
      original_iban_masked: before.iban_masked,
      original_bic: before.bic,
      original_debtor_name: before.debtor_name,
      reference: after.reference,
      iban_masked: after.iban_masked,
      bic: after.bic,
      debtor_name: after.debtor_name,
      pending: pending ? 1 : 0,
      carried_end_to_end_id: null,
      created_at: now,
    };
    await repo.insertAmendment(trx, row);
    return {
      id: row.id,
      pending,
      originalReference: row.original_reference,
      originalIban: row.original_iban_masked,
      originalDebtorName: row.original_debtor_name,
    };
  }

  /** Revokes a mandate (once: a revoked one answers 409 state_conflict). */
  async revoke(actor: Actor, id: string, version: number, ifMatch: IfMatch): Promise<Mandate> {
    const now = this.ctx.clock.now().toISOString();
    return this.ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findMandate(trx, actor.accountId, id);
      if (before?.revoked_at)
        throw new AppError('state_conflict', 'The mandate is revoked already.');
      const after = await compareAndSet({
        expected: version,
        ifMatch,
        what: 'Mandate',
        run: (v) =>
          v === undefined
            ? Promise.resolve(undefined)
            : repo.updateMandate(
                trx,
                actor.accountId,
                id,
                v,
                { revoked_at: now, updated_at: now },
                true,
              ),
        current: () => repo.mandateVersion(trx, actor.accountId, id),
      });
      const mandate = presentMandate(after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'mandate.revoked',
          resourceType: 'sepa_mandate',
          resourceId: id,
          changes: { revokedAt: now },
        },
        new Date(now),
      );
      await emitEvent(this.ctx, trx, actor.accountId, 'mandate.revoked', mandate);
      return mandate;
    });
  }

  async getBankAccount(accountId: string, partnerId: string): Promise<PartnerBankAccount> {
    await this.requirePartner(accountId, partnerId);
    return presentBankAccount(
      partnerId,
      await repo.findBankAccount(this.ctx.db, accountId, partnerId),
    );
  }

  /** Sets a partner's bank account; version 1 names "nothing set yet" (like billing). */
  async putBankAccount(
    actor: Actor,
    partnerId: string,
    input: PutBankAccount,
    ifMatch: IfMatch,
  ): Promise<PartnerBankAccount> {
    await this.requirePartner(actor.accountId, partnerId);
    const iban = checkedIban(input.iban, '/body/iban');
    const now = this.ctx.clock.now().toISOString();
    const values = {
      holder_name: input.holderName,
      iban_sealed: seal(this.key, iban),
      iban_masked: maskIban(iban),
      bic: input.bic == null ? null : input.bic.toUpperCase(),
      updated_at: now,
    };
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        const row = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Bank account',
          run: async (v) => {
            if (v === undefined) return undefined;
            const existing = await repo.findBankAccount(trx, actor.accountId, partnerId);
            if (existing) return repo.updateBankAccount(trx, actor.accountId, partnerId, v, values);
            if (v !== 1) return undefined;
            const inserted = {
              account_id: actor.accountId,
              partner_id: partnerId,
              ...values,
              version: 2,
              created_at: now,
            };
            await repo.insertBankAccount(trx, inserted);
            return inserted;
          },
          current: async () =>
            (await repo.findBankAccount(trx, actor.accountId, partnerId))?.version ?? 1,
        });
        await appendAudit(
          trx,
          actor,
          {
            action: 'partner.bank_account_set',
            resourceType: 'partner',
            resourceId: partnerId,
            changes: { account: row.iban_masked, holderName: row.holder_name, bic: row.bic },
          },
          new Date(now),
        );
        return presentBankAccount(partnerId, row);
      });
    } catch (err) {
      // Two first PUTs raced on the insert: the loser's version 1 is stale now.
      if (isUniqueViolation(err)) throw versionConflict('Bank account', 2);
      throw err;
    }
  }
}

export function presentBankAccount(
  partnerId: string,
  row: repo.BankAccountRow | undefined,
): PartnerBankAccount {
  return {
    partnerId,
    holderName: row?.holder_name ?? null,
    iban: row?.iban_masked ?? null,
    bic: row?.bic ?? null,
    version: row?.version ?? 1,
    updatedAt: row?.updated_at ?? null,
  };
}
