import type { AppContext } from '../../context.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { newId } from '../../shared/ids.js';
import {
  compileTemplate,
  type AccountData,
  type CompanyData,
  type CompileData,
  type CompiledTemplate,
} from '../../shared/templating/index.js';
import { findAccount, readCompany } from '../account/index.js';
import type { CompileDocumentTemplate } from './document-templates-compile.schemas.js';
import {
  accountRenderData,
  auditedTemplate,
  presentTemplate,
} from './document-templates.presenter.js';
import * as repo from './document-templates.repository.js';
import {
  applyUpdate,
  assertSavable,
  checkState,
  rowValues,
  stateOf,
  systemKeyReadOnly,
  withDefaults,
  type TemplateState,
} from './document-templates.rules.js';
import type {
  CreateDocumentTemplate,
  DocumentTemplate,
  ListDocumentTemplates,
  UpdateDocumentTemplate,
} from './document-templates.schemas.js';
import { ensureSystemTemplates } from './system-templates.js';

/** The account as a compile needs it: its settings and its company (the seller). */
interface CompileAccount {
  account: AccountData;
  company: CompanyData;
}

// Deleting a template that documents were generated from answers 409 in_use as soon as the
// documents module registers its reference (documents.template_id) for 'document_template':
// `remove` runs through `deleteRecord`, which checks every reference registered for it.

/**
 * Document templates: letters and offers with sandboxed placeholders (decisions §7, §9).
 * Every write compiles the sources with sample data and stores the result; each write runs
 * in one transaction with its version bump and audit event.
 */
export class DocumentTemplatesService {
  constructor(private readonly ctx: AppContext) {}

  private async account(accountId: string): Promise<CompileAccount> {
    const row = await findAccount(this.ctx.db, accountId);
    if (!row) throw notFound('Account');
    return { account: accountRenderData(row), company: readCompany(row) };
  }

  private compileState(state: TemplateState, on: CompileAccount, data?: CompileData) {
    return compileTemplate(state, {
      ...on,
      data,
      today: isoDate(this.ctx.clock.now()),
      renderLimit: this.ctx.config.templateRenderLimitMs,
    });
  }

  async create(actor: Actor, input: CreateDocumentTemplate): Promise<DocumentTemplate> {
    if (input.systemKey !== undefined) throw systemKeyReadOnly();
    const now = this.ctx.clock.now();
    const account = await this.account(actor.accountId);
    const state = withDefaults(input);
    checkState(state, account.account.currency);
    const compiled = this.compileState(state, account);
    assertSavable(state, compiled);
    const row: repo.TemplateRow = {
      id: newId('documentTemplate'),
      account_id: actor.accountId,
      ...rowValues(state, compiled),
      // The account's own template: no system layout to follow.
      system_source_hash: null,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.ctx.db.transaction().execute(async (trx) => {
      await repo.insertTemplates(trx, [row]);
      await appendAudit(
        trx,
        actor,
        {
          action: 'document_template.created',
          resourceType: 'document_template',
          resourceId: row.id,
          changes: auditedTemplate(row),
        },
        now,
      );
    });
    return presentTemplate(row);
  }

  /** Renders a body with sample or supplied data and reports its problems; saves nothing. */
  async compile(accountId: string, input: CompileDocumentTemplate): Promise<CompiledTemplate> {
    const account = await this.account(accountId);
    const state = withDefaults(input);
    checkState(state, account.account.currency);
    return this.compileState(state, account, input.data);
  }

  async get(accountId: string, id: string): Promise<DocumentTemplate> {
    const row = await repo.findTemplate(this.ctx.db, accountId, id);
    if (!row) throw notFound('Document template');
    return presentTemplate(row);
  }

  async list(
    accountId: string,
    query: ListDocumentTemplates,
  ): Promise<{ data: DocumentTemplate[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    // An account made before a system template existed gets it here, where clients look
    // for it (`?systemKey=INVOICE`).
    await ensureSystemTemplates(this.ctx.db, accountId, this.ctx.clock.now());
    const rows = await repo.listTemplates(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      documentType: query.documentType,
      status: query.status,
      systemKey: query.systemKey,
      q: query.q,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentTemplate), nextCursor: page.nextCursor };
  }

  /**
   * Partial update. The merged template is compiled before the transaction (rendering is
   * CPU work, kept out of it); the compare-and-set on the version it was merged from then
   * guarantees nobody changed it in between.
   */
  async update(
    actor: Actor,
    id: string,
    input: UpdateDocumentTemplate,
    ifMatch: IfMatch,
  ): Promise<DocumentTemplate> {
    const now = this.ctx.clock.now();
    const before = await repo.findTemplate(this.ctx.db, actor.accountId, id);
    if (!before) throw notFound('Document template');
    const current =
      input.version === before.version &&
      (typeof ifMatch !== 'number' || ifMatch === before.version);
    let values: ReturnType<typeof rowValues> | undefined;
    if (current) {
      const account = await this.account(actor.accountId);
      const state = applyUpdate(stateOf(before), input);
      checkState(state, account.account.currency);
      const compiled = this.compileState(state, account);
      assertSavable(state, compiled);
      values = rowValues(state, compiled);
    }
    return this.ctx.db.transaction().execute(async (trx) => {
      const after = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Document template',
        // A stale version was not compiled: it answers 409/412 here, and nothing changes.
        run: (version) =>
          values === undefined || version === undefined
            ? Promise.resolve(undefined)
            : repo.updateTemplate(trx, actor.accountId, id, version, {
                ...values,
                updated_at: now.toISOString(),
              }),
        current: () => repo.templateVersion(trx, actor.accountId, id),
      });
      await appendAudit(
        trx,
        actor,
        {
          action: 'document_template.updated',
          resourceType: 'document_template',
          resourceId: id,
          changes: diff(auditedTemplate(before), auditedTemplate(after)),
        },
        now,
      );
      return presentTemplate(after);
    });
  }

  /** Deletes a user template; system templates answer 409 state_conflict. */
  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'document_template',
      what: 'Document template',
      id,
      ifMatch,
      run: async (trx, version) => {
        const row = await repo.findTemplate(trx, actor.accountId, id);
        if (!row) return undefined;
        if (row.system_key !== null)
          throw new AppError('state_conflict', 'System templates cannot be deleted.');
        return repo.deleteTemplate(trx, actor.accountId, id, version);
      },
      current: (trx) => repo.templateVersion(trx, actor.accountId, id),
      present: auditedTemplate,
    });
  }
}
