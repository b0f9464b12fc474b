import type { AppContext } from '../../context.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { CustomerViews, ReservedLink } from '../../shared/customer-links.js';
import { deriveKey, randomBase62, seal, sha256, unseal } from '../../shared/secrets.js';
import { customerDocument, findDocument, type CustomerDocument } from '../documents/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import * as repo from './customer-links.repository.js';
import {
  DEFAULT_VALID_DAYS,
  MAX_VALID_DAYS,
  type CreateCustomerLink,
  type CreatedCustomerLink,
  type CustomerLink,
  type CustomerLinkSettings,
  type PutCustomerLinkSettings,
} from './customer-links.schemas.js';

const DAY_MS = 86_400_000;
/** Base62 characters of a link token: 32 ≈ 190 bits from the CSPRNG. */
export const TOKEN_LENGTH = 32;
const TOKEN_PATTERN = /^[0-9A-Za-z]{32}$/;
/** The document types a customer's page shows. */
const PAGE_TYPES = new Set(['INVOICE', 'QUOTE']);

/** The page of a link's token: `PUBLIC_URL/c/{token}`. */
export const pageUrl = (ctx: AppContext, token: string) => `${ctx.config.publicUrl}/c/${token}`;

function statusOf(row: repo.CustomerLinkRow, now: Date): CustomerLink['status'] {
  if (row.revoked_at !== null) return 'REVOKED';
  return row.expires_at <= now.toISOString() ? 'EXPIRED' : 'ACTIVE';
}

/** Row → response, field by field. */
export function presentLink(row: repo.CustomerLinkRow, now: Date): CustomerLink {
  return {
    id: row.id,
    documentId: row.document_id,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    status: statusOf(row, now),
    createdAt: row.created_at,
    createdBy: row.created_by,
    firstViewedAt: row.first_viewed_at,
    lastViewedAt: row.last_viewed_at,
    viewCount: Number(row.view_count),
  };
}

function presentSettings(row: repo.CustomerLinkSettingsRow | undefined): CustomerLinkSettings {
  return {
    enabled: row?.enabled === 1,
    validDays: row?.valid_days ?? DEFAULT_VALID_DAYS,
    version: row?.version ?? 0,
    updatedAt: row?.updated_at ?? null,
  };
}

/** The expiry a new link gets: the one asked for (checked), else `validDays` from now. */
function expiryOf(input: CreateCustomerLink, validDays: number, now: Date): string {
  if (input.expiresAt === undefined)
    return new Date(now.getTime() + validDays * DAY_MS).toISOString();
  const at = Date.parse(input.expiresAt);
  const invalid = (message: string) =>
    new AppError('validation_failed', `expiresAt ${message}.`, {
      errors: [{ path: '/body/expiresAt', message, code: 'invalid_value' }],
    });
  if (Number.isNaN(at)) throw invalid('must be an RFC 3339 timestamp');
  if (at <= now.getTime()) throw invalid('must be in the future');
  if (at > now.getTime() + MAX_VALID_DAYS * DAY_MS)
    throw invalid(`must be at most ${MAX_VALID_DAYS} days ahead`);
  return new Date(at).toISOString();
}

/**
 * Links to the customer's page (docs/customer-page.md): created for one FINAL invoice or quote,
 * listed with their views, revoked. The token is shown once, in the URL of the create answer;
 * only its SHA-256 is stored, so a leaked database opens no page.
 */
export class CustomerLinksService {
  /** Seals the URL of a printed link (AES-256-GCM, a key of its own from the app secret). */
  private readonly urlKey: Buffer;

  constructor(private readonly ctx: AppContext) {
    this.urlKey = deriveKey(ctx.appSecret, 'customer-link-url');
  }

  /** The document a link may be made for: FINAL, an invoice or a quote (404 / 409 / 422). */
  private async pageDocument(accountId: string, documentId: string): Promise<CustomerDocument> {
    const doc = await customerDocument(this.ctx, this.ctx.db, accountId, documentId);
    if (!doc) {
      const exists = await this.documentExists(accountId, documentId);
      if (!exists) throw notFound('Document');
      throw new AppError(
        'state_conflict',
        'Only a FINAL document has a page for its customer; finalize it first.',
      );
    }
    if (!PAGE_TYPES.has(doc.document.documentType))
      throw new AppError(
        'business_rule_violated',
        `Customer pages show invoices and quotes, not a ${doc.document.documentType} document.`,
      );
    return doc;
  }

  private async documentExists(accountId: string, documentId: string): Promise<boolean> {
    return (await findDocument(this.ctx.db, accountId, documentId)) !== undefined;
  }

  async create(
    actor: Actor,
    documentId: string,
    input: CreateCustomerLink,
  ): Promise<CreatedCustomerLink> {
    await this.pageDocument(actor.accountId, documentId);
    const now = this.ctx.clock.now();
    const settings = await repo.findSettings(this.ctx.db, actor.accountId);
    const expiresAt = expiryOf(input, settings?.valid_days ?? DEFAULT_VALID_DAYS, now);
    return this.insert(actor, documentId, expiresAt, now);
  }

  private async insert(
    actor: Actor,
    documentId: string,
    expiresAt: string,
    now: Date,
  ): Promise<CreatedCustomerLink> {
    const { row, url } = this.newLink(actor, documentId, expiresAt, now, false);
    const link = presentLink(row, now);
    await this.ctx.db.transaction().execute((trx) => this.write(trx, actor, row, now));
    return { ...link, url };
  }

  /** A fresh token and its page's URL. */
  private draw(): ReservedLink {
    const token = randomBase62(TOKEN_LENGTH);
    return { token, url: pageUrl(this.ctx, token) };
  }

  /**
   * A new link's row and URL (of the `reserved` token when given, else a fresh one); a printed
   * link keeps its URL sealed.
   */
  private newLink(
    actor: Actor,
    documentId: string,
    expiresAt: string,
    now: Date,
    printed: boolean,
    reserved?: ReservedLink,
  ): { row: repo.CustomerLinkRow; url: string } {
    const { token, url } = reserved && TOKEN_PATTERN.test(reserved.token) ? reserved : this.draw();
    const row: repo.CustomerLinkRow = {
      id: newId('customerLink'),
      account_id: actor.accountId,
      document_id: documentId,
      token_hash: sha256(token),
      expires_at: expiresAt,
      revoked_at: null,
      created_by: actor.userId,
      first_viewed_at: null,
      last_viewed_at: null,
      view_count: 0,
      created_at: now.toISOString(),
      url_sealed: printed ? seal(this.urlKey, url) : null,
    };
    return { row, url };
  }

  /** Writes a new link and its audit event in the caller's transaction. */
  private async write(
    trx: Transaction<DB>,
    actor: Actor,
    row: repo.CustomerLinkRow,
    now: Date,
  ): Promise<void> {
    await repo.insertLink(trx, row);
    await appendAudit(
      trx,
      actor,
      {
        action: 'customer_link.created',
        resourceType: 'document',
        resourceId: row.document_id,
        changes: { ...presentLink(row, now), ...(row.url_sealed ? { printed: true } : {}) },
      },
      now,
    );
  }

  /**
   * Before a finalize renders the PDF (its trial render): the token of the printed link drawn
   * now, when the account enables links and the type has a page, so the one render prints its
   * URL. Nothing is stored: `atFinalize` writes the link with this token in the finalizing
   * transaction, or the token is forgotten with the failed finalize.
   */
  async reserve(accountId: string, documentType: string): Promise<ReservedLink | undefined> {
    if (!PAGE_TYPES.has(documentType)) return undefined;
    const settings = await repo.findSettings(this.ctx.db, accountId);
    return settings?.enabled === 1 ? this.draw() : undefined;
  }

  /**
   * In the transaction that makes a document FINAL: its printed link, when the account enables
   * links and the type has a page, with the token `reserve` drew for the render when given.
   */
  async atFinalize(
    trx: Transaction<DB>,
    actor: Actor,
    documentId: string,
    documentType: string,
    reserved?: ReservedLink,
  ): Promise<string | undefined> {
    if (!PAGE_TYPES.has(documentType)) return undefined;
    const settings = await repo.findSettings(trx, actor.accountId);
    if (settings?.enabled !== 1) return undefined;
    const now = this.ctx.clock.now();
    const expiresAt = new Date(now.getTime() + settings.valid_days * DAY_MS).toISOString();
    const { row, url } = this.newLink(actor, documentId, expiresAt, now, true, reserved);
    await this.write(trx, actor, row, now);
    return url;
  }

  /** The URL printed on the document's PDF (made at finalization), whatever its state since. */
  async printedUrl(accountId: string, documentId: string): Promise<string | undefined> {
    const row = await repo.findPrintedLink(this.ctx.db, accountId, documentId);
    return row?.url_sealed ? unseal(this.urlKey, row.url_sealed) : undefined;
  }

  /** The views over a document's links; undefined when it has none. */
  async views(accountId: string, documentId: string): Promise<CustomerViews | undefined> {
    const { links, ...views } = await repo.documentViews(this.ctx.db, accountId, documentId);
    return links > 0 ? views : undefined;
  }

  async list(accountId: string, documentId: string) {
    const rows = await repo.listLinks(this.ctx.db, accountId, documentId);
    if (rows.length === 0 && !(await this.documentExists(accountId, documentId)))
      throw notFound('Document');
    const now = this.ctx.clock.now();
    const { links: _count, ...views } = await repo.documentViews(
      this.ctx.db,
      accountId,
      documentId,
    );
    return { data: rows.map((r) => presentLink(r, now)), ...views };
  }

  /** Revokes a link at once; revoking a revoked link is 409. */
  async revoke(actor: Actor, documentId: string, linkId: string): Promise<CustomerLink> {
    const now = this.ctx.clock.now();
    return this.ctx.db.transaction().execute(async (trx) => {
      const revoked = await repo.revokeLink(
        trx,
        actor.accountId,
        documentId,
        linkId,
        now.toISOString(),
      );
      if (!revoked) {
        const current = await repo.findLink(trx, actor.accountId, documentId, linkId);
        if (!current) throw notFound('Customer link');
        throw new AppError('state_conflict', `Customer link ${linkId} is already revoked.`);
      }
      const link = presentLink(revoked, now);
      await appendAudit(
        trx,
        actor,
        {
          action: 'customer_link.revoked',
          resourceType: 'document',
          resourceId: documentId,
          changes: { linkId, revokedAt: link.revokedAt },
        },
        now,
      );
      return link;
    });
  }

  async settings(accountId: string): Promise<CustomerLinkSettings> {
    return presentSettings(await repo.findSettings(this.ctx.db, accountId));
  }

  async putSettings(
    actor: Actor,
    input: PutCustomerLinkSettings,
    ifMatch: IfMatch,
  ): Promise<CustomerLinkSettings> {
    const at = this.ctx.clock.now();
    const now = at.toISOString();
    const what = 'Customer link settings';
    return this.ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findSettings(trx, actor.accountId);
      const values = {
        enabled: input.enabled ? 1 : 0,
        valid_days: input.validDays ?? before?.valid_days ?? DEFAULT_VALID_DAYS,
        updated_at: now,
      };
      let after: repo.CustomerLinkSettingsRow;
      if (before)
        after = await compareAndSet({
          expected: input.version,
          ifMatch,
          what,
          run: (version) =>
            repo.updateSettings(trx, actor.accountId, version ?? before.version, values),
          current: () => Promise.resolve(before.version),
        });
      else {
        if (typeof ifMatch === 'number' && ifMatch !== 0)
          throw new AppError(
            'precondition_failed',
            'If-Match does not match the current version 0 (nothing saved yet).',
            { members: { currentVersion: 0 } },
          );
        if (input.version !== undefined && input.version !== 0) throw versionConflict(what, 0);
        const saved = await repo.insertSettings(trx, {
          account_id: actor.accountId,
          ...values,
          version: 1,
          created_at: now,
        });
        if (!saved) throw versionConflict(what, 1);
        after = saved;
      }
      await appendAudit(
        trx,
        actor,
        {
          action: before ? 'customer_link_settings.updated' : 'customer_link_settings.created',
          resourceType: 'customer_link_settings',
          resourceId: actor.accountId,
          changes: diff(presentSettings(before), presentSettings(after)),
        },
        at,
      );
      return presentSettings(after);
    });
  }

  /**
   * For `send`, when the account puts links into mails and the type has a page: the link printed
   * on the PDF while it is active (the mail and the PDF show the same page), else a new link.
   */
  async forMail(actor: Actor, documentId: string): Promise<string | undefined> {
    const settings = await repo.findSettings(this.ctx.db, actor.accountId);
    if (settings?.enabled !== 1) return undefined;
    const printed = await repo.findPrintedLink(this.ctx.db, actor.accountId, documentId);
    if (printed?.url_sealed && statusOf(printed, this.ctx.clock.now()) === 'ACTIVE')
      return unseal(this.urlKey, printed.url_sealed);
    const doc = await customerDocument(this.ctx, this.ctx.db, actor.accountId, documentId);
    if (!doc || !PAGE_TYPES.has(doc.document.documentType)) return undefined;
    const now = this.ctx.clock.now();
    const expiresAt = new Date(now.getTime() + settings.valid_days * DAY_MS).toISOString();
    return (await this.insert(actor, documentId, expiresAt, now)).url;
  }

  /**
   * The working link of a token, or undefined for a malformed, unknown, expired or revoked one:
   * the page answers all four alike.
   */
  async resolve(token: string): Promise<repo.CustomerLinkRow | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const row = await repo.findLinkByTokenHash(this.ctx.db, sha256(token));
    if (!row || statusOf(row, this.ctx.clock.now()) !== 'ACTIVE') return undefined;
    return row;
  }

  /**
   * Counts a view of the page (first and last view, count; no audit event per view) and, on
   * the first, emits `document.viewed` with the document.
   */
  async recordView(link: repo.CustomerLinkRow, doc: CustomerDocument): Promise<void> {
    const at = this.ctx.clock.now().toISOString();
    // Seen before: one statement, not awaited. The page is the hot path, and a write's answer
    // waits for the disk (group commit); a count lost to a crash in that moment is no harm.
    if (link.first_viewed_at !== null) {
      repo
        .countView(this.ctx.db, link.account_id, link.id, at)
        .catch((err: unknown) =>
          this.ctx.logger.warn({ err, linkId: link.id }, 'view not counted'),
        );
      return;
    }
    await this.ctx.db.transaction().execute(async (trx) => {
      const first = await repo.recordView(trx, link.account_id, link.id, at);
      if (first)
        await emitEvent(this.ctx, trx, link.account_id, 'document.viewed', {
          ...doc.document,
          viewedAt: at,
          customerLinkId: link.id,
        });
    });
  }
}
