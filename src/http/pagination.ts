import { Type } from 'typebox';
import { AppError } from './errors.js';

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

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, id: lastId })).toString('base64url');
}

/** The id a cursor points after; a cursor that was not ours is a 400. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === 1 &&
      typeof (parsed as { id?: unknown }).id === 'string'
    )
      return (parsed as { id: string }).id;
  } catch {
    // fall through to the error below
  }
  throw new AppError('validation_failed', 'The cursor is not valid.', {
    errors: [
      {
        path: '/querystring/cursor',
        message: 'is not a cursor this API issued',
        code: 'invalid_format',
      },
    ],
  });
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

/** Lower-cased, accent-folded text for case-insensitive search that works alike on both databases. */
export function searchText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
