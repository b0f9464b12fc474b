import type { AppContext } from '../../context.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { notFound } from '../../shared/errors.js';
import { decodeCursor, JsonPage, searchText } from '../../http/pagination.js';
import type { JsonRecord } from '../../db/json-object.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { createInOneRound, plainVersion, updateInOneRound } from '../../shared/one-round.js';
import { newId } from '../../shared/ids.js';
import { leitwegIdProblem, looksLikeLeitwegId } from '../../shared/leitweg-id.js';
import { normalizeVatId } from '../../shared/vat-id.js';
import { electronicAddressError, throwFieldErrors, vatIdError } from '../account/index.js';
import { numberUnique, withSequenceNumber } from './partner-numbers.service.js';
import { presentPartner } from './partners.presenter.js';
import * as repo from './partners.repository.js';
import type { CreatePartner, ListPartners, Partner, UpdatePartner } from './partners.schemas.js';
import { lockUploadedFile, requireImageFile } from '../files/index.js';
import { emitEvent, prefetchEndpoints, withoutEndpoints } from '../webhook-endpoints/index.js';

/**
 * The buyer's e-invoicing fields checked beyond their schema, all problems in one 400: the VAT
 * id's syntax (and German check digit), a Leitweg-ID's check digits when the buyer reference
 * starts like one, and the electronic address's EAS scheme and value.
 */
function checkBuyerFields(input: CreatePartner | UpdatePartner): void {
  const reference = input.buyerReference;
  const leitweg =
    reference != null && looksLikeLeitwegId(reference) ? leitwegIdProblem(reference) : undefined;
  throwFieldErrors([
    ...vatIdError(input.vatId, '/body/vatId'),
    ...(leitweg
      ? [{ path: '/body/buyerReference', message: leitweg, code: 'invalid_format' }]
      : []),
    ...electronicAddressError(input.electronicAddress, '/body/electronicAddress'),
  ]);
}

const vatIdValue = (value: string | null | undefined) =>
  value == null ? null : normalizeVatId(value);

/**
 * Partners: the reference resource. Each write runs in one transaction holding the change,
 * its version bump and its audit event (STYLE rule 6); reads are scoped by account.
 */
export class PartnersService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreatePartner): Promise<Partner> {
    checkBuyerFields(input);
    await requireImageFile(this.ctx, actor, input.logoFileId ?? null, 'logoFileId');
    const type = input.type ?? 'CUSTOMER';
    const given = input.partnerNumber;
    if (given !== undefined)
      return numberUnique(given, () => this.insert(actor, input, type, given));
    return withSequenceNumber(this.ctx.db, actor.accountId, type, (number) =>
      this.insert(actor, input, type, number),
    );
  }

  private async insert(
    actor: Actor,
    input: CreatePartner,
    type: string,
    number: string,
  ): Promise<Partner> {
    const now = this.ctx.clock.now();
    const tags = input.tags ?? [];
    const row: repo.PartnerRow = {
      id: newId('partner'),
      account_id: actor.accountId,
      name: input.name,
      search_name: searchText(input.name),
      type,
      description: input.description ?? null,
      website: input.website ?? null,
      logo_file_id: input.logoFileId ?? null,
      addresses: JSON.stringify(input.addresses ?? []),
      tags: JSON.stringify(tags),
      vat_id: vatIdValue(input.vatId),
      buyer_reference: input.buyerReference ?? null,
      electronic_address: input.electronicAddress ? JSON.stringify(input.electronicAddress) : null,
      einvoice_format: input.einvoiceFormat ?? null,
      language: input.language ?? null,
      dunning_blocked: input.dunningBlocked ? 1 : 0,
      consumer: boolValue(input.consumer),
      partner_number: number,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const partner = presentPartner(row);
    if (row.logo_file_id === null && (await this.createInOneRound(actor, row, tags, partner, now)))
      return partner;
    await this.ctx.db.transaction().execute(async (trx) => {
      if (row.logo_file_id !== null)
        await lockUploadedFile(trx, actor.accountId, row.logo_file_id, 'logoFileId');
      await repo.insertPartner(trx, row, tags);
      await appendAudit(
        trx,
        actor,
        {
          action: 'partner.created',
          resourceType: 'partner',
          resourceId: row.id,
          changes: partner,
        },
        now,
      );
      await emitEvent(this.ctx, trx, actor.accountId, 'partner.created', partner);
    });
    return partner;
  }

  /**
   * PostgreSQL: a create without a logo to lock as one round trip and one statement — the
   * partner, its tags and its audit event (`createInOneRound`). False when it wrote nothing (on
   * SQLite, or when the account has an endpoint for `partner.created`: the reading way writes
   * the deliveries). docs/scaling.md, "One round trip per create".
   */
  private createInOneRound(
    actor: Actor,
    row: repo.PartnerRow,
    tags: string[],
    partner: Partner,
    now: Date,
  ): Promise<boolean> {
    return createInOneRound(
      this.ctx.db,
      actor,
      partnerEvent('partner.created', row.id),
      now,
      partner,
      (trx, write) => repo.insertPartnerAudited(trx, row, tags, write),
    );
  }

  /** A partner's version and its answer, as the database keeps it (`answer_json`). */
  async get(accountId: string, id: string): Promise<JsonRecord> {
    const found = await repo.findPartnerJson(this.ctx.db, accountId, id);
    if (!found) throw notFound('Partner');
    return found;
  }

  /** A page of partners; its records are the JSON texts the database keeps (`answer_json`). */
  async list(accountId: string, query: ListPartners): Promise<JsonPage<Partner>> {
    const limit = query.limit ?? 25;
    const rows = await repo.listPartnersJson(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      type: query.type,
      tag: query.tag,
      q: query.q,
      partnerNumber: query.partnerNumber,
    });
    return JsonPage.of(rows, limit);
  }

  update(actor: Actor, id: string, input: UpdatePartner, ifMatch: IfMatch): Promise<Partner> {
    return numberUnique(input.partnerNumber, () => this.change(actor, id, input, ifMatch));
  }

  private async change(
    actor: Actor,
    id: string,
    input: UpdatePartner,
    ifMatch: IfMatch,
  ): Promise<Partner> {
    checkBuyerFields(input);
    const now = this.ctx.clock.now();
    const values: Partial<repo.PartnerRow> = { updated_at: now.toISOString() };
    if (input.name !== undefined) {
      values.name = input.name;
      values.search_name = searchText(input.name);
    }
    if (input.type !== undefined) values.type = input.type;
    if (input.description !== undefined) values.description = input.description;
    if (input.website !== undefined) values.website = input.website;
    if (input.logoFileId !== undefined) values.logo_file_id = input.logoFileId;
    if (input.addresses !== undefined) values.addresses = JSON.stringify(input.addresses ?? []);
    if (input.vatId !== undefined) values.vat_id = vatIdValue(input.vatId);
    if (input.buyerReference !== undefined) values.buyer_reference = input.buyerReference;
    if (input.electronicAddress !== undefined)
      values.electronic_address = input.electronicAddress
        ? JSON.stringify(input.electronicAddress)
        : null;
    if (input.einvoiceFormat !== undefined) values.einvoice_format = input.einvoiceFormat;
    if (input.language !== undefined) values.language = input.language;
    if (input.dunningBlocked !== undefined) values.dunning_blocked = input.dunningBlocked ? 1 : 0;
    if (input.consumer !== undefined) values.consumer = boolValue(input.consumer);
    if (input.partnerNumber !== undefined) values.partner_number = input.partnerNumber;
    const tags = input.tags === undefined ? undefined : (input.tags ?? []);
    if (tags !== undefined) values.tags = JSON.stringify(tags);

    await requireImageFile(this.ctx, actor, input.logoFileId, 'logoFileId');
    const version = plainVersion(input.version, ifMatch);
    if (version !== undefined && tags === undefined && input.logoFileId == null) {
      const partner = await this.updateInOneRound(actor, id, version, values, now);
      if (partner) return partner;
    }
    return this.ctx.db.transaction().execute(async (trx) => {
      // Goes out with the update (PostgreSQL): the event at the end needs no round trip.
      await prefetchEndpoints(trx, actor.accountId);
      if (input.logoFileId != null)
        await lockUploadedFile(trx, actor.accountId, input.logoFileId, 'logoFileId');
      const updated = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Partner',
        run: (version) =>
          version === undefined
            ? Promise.resolve(undefined)
            : repo.updatePartnerWithBefore(trx, actor.accountId, id, version, values),
        current: () => repo.partnerVersion(trx, actor.accountId, id),
      });
      if (tags !== undefined) await repo.replaceTags(trx, actor.accountId, id, tags);
      const partner = presentPartner(updated.after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'partner.updated',
          resourceType: 'partner',
          resourceId: id,
          changes: diff(presentPartner(updated.before), partner),
        },
        now,
      );
      await emitEvent(this.ctx, trx, actor.accountId, 'partner.updated', partner);
      return partner;
    });
  }

  /**
   * PostgreSQL: a plain update (no tags, no logo to lock) as one round trip and one statement:
   * the update and its audit event diffed by the database (`updateInOneRound`). Undefined when
   * it wrote nothing — on SQLite, when the version or the partner did not match (the reading
   * way then answers 404, 409 or 412), or when the account has an endpoint for
   * `partner.updated` (the reading way writes the deliveries). docs/scaling.md, "One round
   * trip per update".
   */
  private async updateInOneRound(
    actor: Actor,
    id: string,
    version: number,
    values: Partial<repo.PartnerRow>,
    now: Date,
  ): Promise<Partner | undefined> {
    const row = await updateInOneRound(
      this.ctx.db,
      actor,
      partnerEvent('partner.updated', id),
      now,
      (trx, write) => repo.updatePartnerAudited(trx, actor.accountId, id, version, values, write),
    );
    return row && presentPartner(row);
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'partner',
      what: 'Partner',
      id,
      ifMatch,
      run: (trx, version) => repo.deletePartner(trx, actor.accountId, id, version),
      current: (trx) => repo.partnerVersion(trx, actor.accountId, id),
      present: presentPartner,
    });
  }
}

/** A partner's event written in one round, on the condition that no endpoint wants it. */
const partnerEvent = (action: 'partner.created' | 'partner.updated', resourceId: string) => ({
  action,
  resourceType: 'partner',
  resourceId,
  guard: withoutEndpoints,
});

/** A stored tri-state flag: 1, 0 or null (not known). */
function boolValue(value: boolean | null | undefined): number | null {
  return value === undefined || value === null ? null : value ? 1 : 0;
}
