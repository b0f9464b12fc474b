import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { CreateNoteBody, ListNotesQuery, NoteSchema, UpdateNoteBody } from './notes.schemas.js';
import { NotesService } from './notes.service.js';

const Params = IdParams('noteId', 'not');
const tags = ['notes'];

/** `/v1/notes`: HTTP only — input, one service call, status, ETag and body. */
export function noteRoutes(app: App, ctx: AppContext): void {
  const service = new NotesService(ctx);

  noteCollectionRoutes(app, service);
  noteItemRoutes(app, service);
}

/** `/v1/notes`: list and create. */
function noteCollectionRoutes(app: App, service: NotesService): void {
  app.get(
    '/v1/notes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List notes and reminders',
        querystring: ListNotesQuery,
        response: { 200: PageOf(NoteSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/notes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a note or reminder on a partner or contract',
        headers: IdempotencyHeaders,
        body: CreateNoteBody,
        response: { 201: NoteSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const note = await service.create(actorOf(req), req.body);
      setEtag(reply, note.version);
      reply.header('location', `/v1/notes/${note.id}`);
      return reply.code(201).send(note);
    },
  );
}

/** `/v1/notes/{noteId}`: read, update and delete one. */
function noteItemRoutes(app: App, service: NotesService): void {
  app.get(
    '/v1/notes/:noteId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a note',
        params: Params,
        response: { 200: NoteSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const note = await service.get(req.principal!.accountId, req.params.noteId);
      setEtag(reply, note.version);
      return note;
    },
  );

  app.put(
    '/v1/notes/:noteId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a note (partial: omitted fields stay, null clears dueDate)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateNoteBody,
        response: { 200: NoteSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const note = await service.update(
        actorOf(req),
        req.params.noteId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, note.version);
      return note;
    },
  );

  app.delete(
    '/v1/notes/:noteId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a note',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.noteId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
