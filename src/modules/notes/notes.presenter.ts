import type { Note } from './notes.schemas.js';
import type { NoteRow } from './notes.repository.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentNote(row: NoteRow): Note {
  return {
    id: row.id,
    version: row.version,
    parentType: row.parent_type as Note['parentType'],
    parentId: row.parent_id,
    type: row.type as Note['type'],
    title: row.title,
    content: row.content,
    dueDate: row.due_date,
    done: row.done === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
