import type { AppContext } from '../../context.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import type { AppError } from '../../shared/errors.js';
import { notFound, referenceNotFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { assertIsoDate, invalidField as invalid } from '../../http/field-rules.js';
import { newId } from '../../shared/ids.js';
import { registerReference } from '../../shared/references.js';
import { presentNote } from './notes.presenter.js';
import * as repo from './notes.repository.js';
import type { CreateNote, ListNotes, Note, NoteParentType, UpdateNote } from './notes.schemas.js';

// A partner or contract with notes cannot be deleted: its DELETE answers 409 in_use. The
// parent is polymorphic (parent_type + parent_id), so no foreign key can back these
// references; the count in the parent's delete is the only guard.
registerReference('partner', { table: 'notes', column: 'parent_id', label: 'notes' });
registerReference('contract', { table: 'notes', column: 'parent_id', label: 'notes' });

const PARENTS: Record<NoteParentType, { table: 'partners' | 'contracts'; what: string }> = {
  PARTNER: { table: 'partners', what: 'Partner' },
  CONTRACT: { table: 'contracts', what: 'Contract' },
};

function dueDateRequired(): AppError {
  return invalid('/body/dueDate', 'is required for a REMINDER', 'required');
}

/**
 * Notes and reminders on partners and contracts. Each write runs in one transaction holding
 * the change, its version bump and its audit event (STYLE rule 6); reads are scoped by account.
 */
export class NotesService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreateNote): Promise<Note> {
    const now = this.ctx.clock.now();
    const type = input.type ?? 'NOTE';
    assertIsoDate(input.dueDate, '/body/dueDate');
    if (type === 'REMINDER' && input.dueDate === undefined) throw dueDateRequired();
    const row: repo.NoteRow = {
      id: newId('note'),
      account_id: actor.accountId,
      parent_type: input.parentType,
      parent_id: input.parentId,
      type,
      title: input.title,
      content: input.content,
      due_date: input.dueDate ?? null,
      done: 0,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const note = presentNote(row);
    await this.ctx.db.transaction().execute(async (trx) => {
      const parent = PARENTS[input.parentType];
      if (!(await repo.parentExists(trx, actor.accountId, parent.table, input.parentId)))
        throw referenceNotFound('parentId', parent.what);
      await repo.insertNote(trx, row);
      await appendAudit(
        trx,
        actor,
        { action: 'note.created', resourceType: 'note', resourceId: row.id, changes: note },
        now,
      );
    });
    return note;
  }

  async get(accountId: string, id: string): Promise<Note> {
    const row = await repo.findNote(this.ctx.db, accountId, id);
    if (!row) throw notFound('Note');
    return presentNote(row);
  }

  async list(
    accountId: string,
    query: ListNotes,
  ): Promise<{ data: Note[]; nextCursor: string | null }> {
    assertIsoDate(query.dueBefore, '/querystring/dueBefore');
    const limit = query.limit ?? 25;
    const rows = await repo.listNotes(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      parentType: query.parentType,
      parentId: query.parentId,
      type: query.type,
      done: query.done,
      dueBefore: query.dueBefore,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentNote), nextCursor: page.nextCursor };
  }

  async update(actor: Actor, id: string, input: UpdateNote, ifMatch: IfMatch): Promise<Note> {
    const now = this.ctx.clock.now();
    assertIsoDate(input.dueDate, '/body/dueDate');
    const values: Partial<repo.NoteRow> = { updated_at: now.toISOString() };
    if (input.title !== undefined) values.title = input.title;
    if (input.content !== undefined) values.content = input.content;
    if (input.dueDate !== undefined) values.due_date = input.dueDate;
    if (input.done !== undefined) values.done = input.done ? 1 : 0;

    return this.ctx.db.transaction().execute(async (trx) => {
      const updated = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Note',
        run: async (version) => {
          const before = await repo.findNote(trx, actor.accountId, id);
          // A stale version is answered as a conflict before any rule is checked on old data.
          if (!before || version === undefined || before.version !== version) return undefined;
          if (before.type === 'REMINDER' && input.dueDate === null) throw dueDateRequired();
          const after = await repo.updateNote(trx, actor.accountId, id, version, values);
          return after && { before, after };
        },
        current: () => repo.noteVersion(trx, actor.accountId, id),
      });
      const note = presentNote(updated.after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'note.updated',
          resourceType: 'note',
          resourceId: id,
          changes: diff(presentNote(updated.before), note),
        },
        now,
      );
      return note;
    });
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'note',
      what: 'Note',
      id,
      ifMatch,
      run: (trx, version) => repo.deleteNote(trx, actor.accountId, id, version),
      current: (trx) => repo.noteVersion(trx, actor.accountId, id),
      present: presentNote,
    });
  }
}
