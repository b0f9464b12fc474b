import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { isForeignKeyViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { notFound, referenceNotFound } from '../../shared/errors.js';
import { decodeCursor, searchText, toPage } from '../../http/pagination.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { newId } from '../../shared/ids.js';
import { registerReference } from '../../shared/references.js';
import { findAccount } from '../account/index.js';
import { findPartner, type PartnerRow } from '../partners/index.js';
import { billingColumns, normaliseBilling } from './contract-billing.js';
import { advancedOf, presentContract } from './contracts.presenter.js';
import * as repo from './contracts.repository.js';
import {
  assertDateOrder,
  assertIsoDate,
  assertReminderOverride,
  cannotDeleteActive,
  convertAmount,
  derivedColumns,
  isActivation,
  minorAmount,
  normaliseAdvanced,
} from './contracts.rules.js';
import type {
  Contract,
  ContractAdvanced,
  ContractStatus,
  CreateContract,
  ListContracts,
  UpdateContract,
} from './contracts.schemas.js';

// A partner with contracts cannot be deleted: DELETE /v1/partners/{id} answers 409 in_use.
registerReference('partner', { table: 'contracts', column: 'partner_id', label: 'contracts' });

/**
 * Contracts (decisions §7): DRAFT → ACTIVE, never back; only drafts can be deleted. Each write
 * runs in one transaction holding the change, its version bump and its audit event.
 */
export class ContractsService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreateContract): Promise<Contract> {
    const now = this.ctx.clock.now();
    const today = isoDate(now);
    assertIsoDate(input.startDate, '/body/startDate');
    assertIsoDate(input.endDate, '/body/endDate');
    const endDate = input.endDate ?? null;
    assertDateOrder(input.startDate, endDate);
    const totalValue = minorAmount(input.totalValue, input.currency, '/body/totalValue');
    const advanced = normaliseAdvanced(input.advanced ?? null);
    const billing = normaliseBilling(input.billing ?? null);
    const tags = input.tags ?? [];
    return this.referencing(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        const partner = await this.partnerOf(trx, actor.accountId, input.partnerId);
        await this.assertOverride(trx, actor.accountId, advanced);
        const row: repo.ContractRow = {
          id: newId('contract'),
          account_id: actor.accountId,
          name: input.name,
          search_name: searchText(input.name),
          // Denormalised from the partner; the client's partnerName/partnerType are not used.
          partner_id: partner.id,
          partner_name: partner.name,
          partner_type: partner.type,
          start_date: input.startDate,
          end_date: endDate,
          total_value: totalValue,
          currency: input.currency,
          status: input.status ?? 'DRAFT',
          description: input.description ?? null,
          tags: JSON.stringify(tags),
          advanced: advanced === null ? null : JSON.stringify(advanced),
          ...billingColumns(billing),
          ...derivedColumns(endDate, advanced, today),
          version: 1,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        };
        await repo.insertContract(trx, row, tags);
        const contract = presentContract(row, today);
        await appendAudit(
          trx,
          actor,
          {
            action: 'contract.created',
            resourceType: 'contract',
            resourceId: row.id,
            changes: contract,
          },
          now,
        );
        return contract;
      }),
    );
  }

  async get(accountId: string, id: string): Promise<Contract> {
    const row = await repo.findContract(this.ctx.db, accountId, id);
    if (!row) throw notFound('Contract');
    return presentContract(row, isoDate(this.ctx.clock.now()));
  }

  async list(
    accountId: string,
    query: ListContracts,
  ): Promise<{ data: Contract[]; nextCursor: string | null }> {
    assertIsoDate(query.activeOn, '/querystring/activeOn');
    assertIsoDate(query.deadlineBefore, '/querystring/deadlineBefore');
    const limit = query.limit ?? 25;
    const rows = await repo.listContracts(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      status: query.status,
      partnerId: query.partnerId,
      tag: query.tag,
      activeOn: query.activeOn,
      deadlineBefore: query.deadlineBefore,
      q: query.q,
    });
    const page = toPage(rows, limit);
    const today = isoDate(this.ctx.clock.now());
    return { data: page.rows.map((r) => presentContract(r, today)), nextCursor: page.nextCursor };
  }

  async update(
    actor: Actor,
    id: string,
    input: UpdateContract,
    ifMatch: IfMatch,
  ): Promise<Contract> {
    const now = this.ctx.clock.now();
    const today = isoDate(now);
    assertIsoDate(input.startDate, '/body/startDate');
    assertIsoDate(input.endDate, '/body/endDate');
    const tags = input.tags === undefined ? undefined : (input.tags ?? []);

    return this.referencing(() =>
      this.ctx.db.transaction().execute(async (trx) => {
        const updated = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Contract',
          run: async (version) => {
            const before = await repo.findContract(trx, actor.accountId, id);
            // A stale version is answered as a conflict before any rule is checked on old data.
            if (!before || version === undefined || before.version !== version) return undefined;
            const { values, activation } = await this.changes(trx, actor, before, input, now);
            if (tags !== undefined) values.tags = JSON.stringify(tags);
            const after = await repo.updateContract(
              trx,
              actor.accountId,
              id,
              version,
              values,
              // The activation is a compare-and-set on the status as well (STYLE rule 8).
              activation ? 'DRAFT' : undefined,
            );
            return after && { before, after, activation };
          },
          current: async () => (await repo.contractState(trx, actor.accountId, id))?.version,
        });
        if (tags !== undefined) await repo.replaceTags(trx, actor.accountId, id, tags);
        const contract = presentContract(updated.after, today);
        await appendAudit(
          trx,
          actor,
          {
            action: updated.activation ? 'contract.activated' : 'contract.updated',
            resourceType: 'contract',
            resourceId: id,
            changes: diff(presentContract(updated.before, today), contract),
          },
          now,
        );
        return contract;
      }),
    );
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    const today = isoDate(this.ctx.clock.now());
    return deleteRecord(this.ctx, actor, {
      resource: 'contract',
      what: 'Contract',
      id,
      ifMatch,
      // Only a DRAFT is deleted; the status is part of the statement, not a prior check.
      run: (trx, version) => repo.deleteContract(trx, actor.accountId, id, version, 'DRAFT'),
      current: async (trx) => {
        const state = await repo.contractState(trx, actor.accountId, id);
        if (state !== undefined && state.status !== 'DRAFT') throw cannotDeleteActive();
        return state?.version;
      },
      present: (row) => presentContract(row, today),
    });
  }

  /** The columns a PUT changes, checked against the stored record it applies to. */
  private async changes(
    trx: Transaction<DB>,
    actor: Actor,
    before: repo.ContractRow,
    input: UpdateContract,
    now: Date,
  ): Promise<{ values: Partial<repo.ContractRow>; activation: boolean }> {
    const values: Partial<repo.ContractRow> = { updated_at: now.toISOString() };
    const activation = isActivation(before.status as ContractStatus, input.status);
    if (activation) values.status = 'ACTIVE';
    if (input.name !== undefined) {
      values.name = input.name;
      values.search_name = searchText(input.name);
    }
    if (
      input.partnerId !== undefined ||
      input.partnerName !== undefined ||
      input.partnerType !== undefined
    ) {
      // The names always come from the partner record (decisions §6), refreshed here.
      const partner = await this.partnerOf(
        trx,
        actor.accountId,
        input.partnerId ?? before.partner_id,
      );
      values.partner_id = partner.id;
      values.partner_name = partner.name;
      values.partner_type = partner.type;
    }
    const startDate = input.startDate ?? before.start_date;
    const endDate = input.endDate === undefined ? before.end_date : input.endDate;
    assertDateOrder(startDate, endDate);
    values.start_date = startDate;
    values.end_date = endDate;
    const currency = input.currency ?? before.currency;
    if (input.totalValue !== undefined)
      values.total_value = minorAmount(input.totalValue, currency, '/body/totalValue');
    else if (input.currency !== undefined)
      values.total_value = convertAmount(Number(before.total_value), before.currency, currency);
    values.currency = currency;
    if (input.description !== undefined) values.description = input.description;
    let advanced = advancedOf(before);
    if (input.advanced !== undefined) {
      advanced = normaliseAdvanced(input.advanced);
      await this.assertOverride(trx, actor.accountId, advanced);
      values.advanced = advanced === null ? null : JSON.stringify(advanced);
    }
    if (input.billing !== undefined)
      Object.assign(values, billingColumns(normaliseBilling(input.billing)));
    Object.assign(values, derivedColumns(endDate, advanced, isoDate(now)));
    return { values, activation };
  }

  private async partnerOf(
    trx: Transaction<DB>,
    accountId: string,
    partnerId: string,
  ): Promise<PartnerRow> {
    const partner = await findPartner(trx, accountId, partnerId);
    if (!partner) throw referenceNotFound('partnerId', 'Partner');
    return partner;
  }

  private async assertOverride(
    trx: Transaction<DB>,
    accountId: string,
    advanced: ContractAdvanced | null,
  ): Promise<void> {
    if (typeof advanced?.reminderEmail !== 'string') return;
    const account = await findAccount(trx, accountId);
    assertReminderOverride(advanced, account?.allow_contract_reminder_override === 1);
  }

  /** A partner deleted while this write ran trips the foreign key: answered like a missing one. */
  private async referencing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isForeignKeyViolation(err)) throw referenceNotFound('partnerId', 'Partner');
      throw err;
    }
  }
}
