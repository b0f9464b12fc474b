import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable, RecordMeta, VersionField } from '../../http/schemas.js';

export const NOTE_PARENT_TYPES = ['PARTNER', 'CONTRACT'] as const;
export type NoteParentType = (typeof NOTE_PARENT_TYPES)[number];
export const NOTE_TYPES = ['NOTE', 'REMINDER'] as const;
export type NoteType = (typeof NOTE_TYPES)[number];

const fields = {
  parentType: Type.Enum(NOTE_PARENT_TYPES, {
    description: 'What the note is attached to: PARTNER or CONTRACT.',
  }),
  parentId: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'The partner (`ptr_…`) or contract (`ctr_…`) of this account the note is attached to; another id answers 422 reference_not_found.',
  }),
  type: Type.Enum(NOTE_TYPES, {
    description: 'NOTE or REMINDER (default NOTE); a REMINDER needs a dueDate and is mailed then.',
  }),
  title: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Short title, 1–200 characters.',
  }),
  content: Type.String({ maxLength: 10_000, description: 'Free text, up to 10 000 characters.' }),
  dueDate: IsoDate('Day the reminder is due and mailed; required for REMINDER'),
  done: Type.Boolean({ description: 'Whether the note is done; done reminders are not mailed.' }),
};

export const NoteSchema = Type.Object(
  {
    ...RecordMeta,
    parentType: fields.parentType,
    parentId: fields.parentId,
    type: fields.type,
    title: fields.title,
    content: fields.content,
    dueDate: Nullable(Type.String(), 'Day the reminder is due (YYYY-MM-DD), or null.'),
    done: fields.done,
  },
  { additionalProperties: false, description: 'A note or reminder on a partner or contract.' },
);
export type Note = Static<typeof NoteSchema>;

export const CreateNoteBody = Type.Object(
  {
    parentType: fields.parentType,
    parentId: fields.parentId,
    type: Type.Optional(fields.type),
    title: fields.title,
    content: fields.content,
    dueDate: Type.Optional(fields.dueDate),
  },
  { additionalProperties: false },
);
export type CreateNote = Static<typeof CreateNoteBody>;

/** Partial update: omitted fields stay, `null` clears dueDate (decisions §6). */
export const UpdateNoteBody = Type.Object(
  {
    version: VersionField,
    title: Type.Optional(fields.title),
    content: Type.Optional(fields.content),
    dueDate: Type.Optional(
      Nullable(fields.dueDate, 'Due day (YYYY-MM-DD); null clears it (not for a REMINDER).'),
    ),
    done: Type.Optional(fields.done),
  },
  { additionalProperties: false },
);
export type UpdateNote = Static<typeof UpdateNoteBody>;

export const ListNotesQuery = Type.Object(
  {
    ...PageQuery,
    parentType: Type.Optional(
      Type.Enum(NOTE_PARENT_TYPES, { description: 'Only notes on this kind of record.' }),
    ),
    parentId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only notes on this partner or contract.',
      }),
    ),
    type: Type.Optional(Type.Enum(NOTE_TYPES, { description: 'Only notes of this type.' })),
    done: Type.Optional(Type.Boolean({ description: 'Only done (true) or open (false) notes.' })),
    dueBefore: Type.Optional(IsoDate('Only notes with a dueDate before this day (strictly)')),
  },
  { additionalProperties: false },
);
export type ListNotes = Static<typeof ListNotesQuery>;
