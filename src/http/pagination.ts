import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';

/**
 * Keyset pagination (decisions §6). Ids are time-ordered, so "newest first, then id" is simply
 * `ORDER BY id DESC`, and the cursor is the last id of the page, wrapped so clients treat it
 * as opaque. Rows inserted while a client pages sort before its cursor and never shift a page.
 */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 25,
      description: 'Page size, 1–100 (default 25).',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Opaque cursor from the previous page’s `nextCursor`.',
    }),
  ),
};

/** `{data, nextCursor}` for a list of `item`. */
export function PageOf<T extends Parameters<typeof Type.Array>[0]>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item, { description: 'The records of this page, newest first.' }),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` to get the next page; null on the last page.',
      }),
    },
    { additionalProperties: false },
  );
}

/** The opaque cursor pointing after the record `lastId`. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId })).toString('base64url');
}

/** A TypeID as `newId` makes them: a 3-letter prefix and 26 lower-case Crockford base32 digits. */
const ID_SHAPE = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

/** The position a list of numbered lines pages by: what a 32-bit `integer` column holds. */
const INDEX_SHAPE = /^(0|[1-9]\d{0,9})$/;

/** 400: a cursor this API did not issue (or not for this list). */
export function invalidCursor(): AppError {
  return new AppError('validation_failed', 'The cursor is not valid.', {
    errors: [
      {
        path: '/querystring/cursor',
        message: 'is not a cursor this API issued',
        code: 'invalid_format',
      },
    ],
  });
}

/** The payload of a cursor if it has the shape this API writes; else a 400. */
function decodePayload(cursor: string, shape: RegExp): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof parsed === 'object' && parsed !== null) {
      const { v, id } = parsed as { v?: unknown; id?: unknown };
      // The payload goes into a WHERE clause: only a value of the shape this API wrote does,
      // so a forged one is a 400 rather than a driver error (NUL, out of range) or a bogus page.
      if (v === 1 && typeof id === 'string' && shape.test(id)) return id;
    }
  } catch {
    // fall through to the error below
  }
  throw invalidCursor();
}

/** The id a cursor points after; a cursor that was not ours is a 400. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : decodePayload(cursor, ID_SHAPE);
}

/** A cursor of a list paged by a line number (`idx`) rather than by id. */
export function encodeIndexCursor(lastIndex: number): string {
  return encodeCursor(String(lastIndex));
}

/** The line number an index cursor points after; a cursor that was not ours is a 400. */
export function decodeIndexCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const index = Number(decodePayload(cursor, INDEX_SHAPE));
  if (index > 2_147_483_647) throw invalidCursor();
  return index;
}

/** Given `limit + 1` rows fetched, the page and the cursor of the next one. */
export function toPage<T extends { id: string }>(
  rows: T[],
  limit: number,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(page[page.length - 1]!.id) };
}

/**
 * A page whose records are JSON texts the database keeps (src/db/json-object.ts), answered as
 * they are: `jsonPageReply` has them written into the body without parsing or serialising
 * them. Its `data` parses them, for callers that need values (the CSV export calls the list
 * handler).
 */
export class JsonPage<T> {
  private constructor(
    private readonly records: string[],
    readonly nextCursor: string | null,
  ) {}

  /** Given `limit + 1` rows fetched, as `toPage` does. */
  static of<T>(rows: { id: string; json: string }[], limit: number): JsonPage<T> {
    const page = toPage(rows, limit);
    return new JsonPage<T>(
      page.rows.map((r) => r.json),
      page.nextCursor,
    );
  }

  get data(): T[] {
    return JSON.parse(`[${this.records.join(',')}]`) as T[];
  }

  /** The `{data, nextCursor}` body. */
  body(): string {
    const cursor = this.nextCursor === null ? 'null' : `"${this.nextCursor}"`;
    return `{"data":[${this.records.join(',')}],"nextCursor":${cursor}}`;
  }
}

/**
 * Has `reply` answer the `JsonPage` a handler returns as its body, past the route's schema
 * serializer. Returned, not sent: the CSV export calls the same handler and reads `data`.
 */
export function jsonPageReply<T>(reply: FastifyReply, page: JsonPage<T>): JsonPage<T> {
  reply.type('application/json; charset=utf-8').serializer(jsonPageBody);
  return page;
}

/**
 * Has `reply` answer `json`, a record's JSON text the database wrote, as it is: a text sent
 * with a JSON content type passes Fastify's serializer untouched. Typed as the route's answer
 * (`T`), which the text is, so the route keeps its schema's reply type.
 */
export function jsonText<T>(reply: FastifyReply, json: string): T {
  reply.type('application/json; charset=utf-8');
  return json as unknown as T;
}

function jsonPageBody(payload: unknown): string {
  if (payload instanceof JsonPage) return payload.body();
  // What else the reply sends: the CSV export's head (a text) on HEAD.
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/** Lower-cased, accent-folded text for case-insensitive search that works alike on both databases. */
export function searchText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
