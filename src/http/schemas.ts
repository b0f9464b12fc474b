import { DOCUMENT_DATE_MAX, DOCUMENT_DATE_MIN, DOCUMENT_DATE_PATTERN } from '../shared/dates.js';
import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';
import { ERROR_CODES } from '../shared/errors.js';

/** The RFC 9457 problem body every error answers (decisions §5). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type.' }),
    title: Type.String({ description: 'Short, human-readable summary of the problem type.' }),
    status: Type.Integer({ description: 'HTTP status code.' }),
    detail: Type.Optional(Type.String({ description: 'What went wrong with this request.' })),
    code: Type.String({
      description: 'Stable snake_case error code.',
      enum: Object.keys(ERROR_CODES),
    }),
    requestId: Type.String({ description: 'The `x-request-id` of this request.' }),
    currentVersion: Type.Optional(
      Type.Integer({ description: 'On 409 version_conflict and 412: the stored version.' }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer to the field, e.g. `/body/name`.' }),
          message: Type.String({ description: 'Why the value was refused.' }),
          code: Type.String({ description: 'Stable code of the field problem, e.g. `required`.' }),
        }),
        { description: 'One entry per refused field.' },
      ),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details.' },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid (validation_failed, malformed_json).',
  401: 'Missing or invalid API key or bearer token.',
  403: 'The caller may not do this.',
  404: 'Not found (another account’s id is not found either).',
  409: 'Conflict (version_conflict, state_conflict, duplicate, in_use).',
  412: 'If-Match does not match the current version.',
  413: 'The body is too large.',
  422: 'A reference or business rule failed.',
  429: 'Too many requests; see Retry-After.',
  503: 'Not available now (service_unavailable); try again shortly.',
};

/** Problem responses for the OpenAPI document, by status. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((s) => [s, Type.Ref('Problem', { description: STATUS_TEXT[s] ?? 'Problem.' })]),
  );
}

/**
 * A value or `null`. Primitive types become `type: [T, "null"]` rather than `anyOf`: the
 * response serializer then writes them directly instead of running a validator per field to
 * pick a branch (measured: a visible share of a point read's CPU).
 */
export function Nullable<T extends TSchema>(
  schema: T,
  description: string,
): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array')
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], description });
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()], { description }));
}

export const TagsSchema = Type.Array(
  Type.String({ minLength: 1, maxLength: 50, pattern: '^\\S(.*\\S)?$' }),
  {
    maxItems: 50,
    uniqueItems: true,
    description: 'Free labels, up to 50 of up to 50 characters each; filter lists with `tag`.',
  },
);

/**
 * Every date-only field of every body and query: `format: date` (RFC 3339 full-date), which
 * the app's validator checks as a real calendar date, so `2026-02-30` or `2026-13-45` answers
 * 400 `validation_failed` naming the field, like any other schema error (problem.ts).
 */
export const IsoDate = (description: string) =>
  Type.String({
    format: 'date',
    maxLength: 10,
    description: `${description} (YYYY-MM-DD, a real calendar date).`,
  });

/**
 * A date a document carries (its date, due, delivery and service dates): a real calendar
 * date from 2000-01-01 to 2099-12-31. A document's own date is also held to one year ahead
 * of today by the documents service, which knows the clock.
 */
export const DocumentDate = (description: string) =>
  Type.String({
    format: 'date',
    maxLength: 10,
    pattern: DOCUMENT_DATE_PATTERN,
    description: `${description} (YYYY-MM-DD, a real calendar date from ${DOCUMENT_DATE_MIN} to ${DOCUMENT_DATE_MAX}).`,
  });

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

/** `id`, `version`, `createdAt`, `updatedAt`: the fields every record answers (decisions §6). */
export const RecordMeta = {
  id: Type.String({ description: 'Type-prefixed, time-ordered id.' }),
  version: Type.Integer({
    minimum: 1,
    description: 'Optimistic-locking version; 1 when created, +1 per write.',
  }),
  createdAt: Timestamp('When the record was created (RFC 3339 UTC).'),
  updatedAt: Timestamp('When the record was last changed (RFC 3339 UTC).'),
};

export const VersionField = Type.Integer({
  minimum: 1,
  description:
    'The version you read; a stale version answers 409 version_conflict and changes nothing.',
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Repeats within 24 h replay the first response instead of writing again.',
    }),
  ),
});

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'The ETag (`"<version>"`) you read; a mismatch answers 412.',
    }),
  ),
});

/** Path parameter `name` holding an id of the given prefix. */
export function IdParams<K extends string>(name: K, prefix: string) {
  return Type.Object({
    [name]: Type.String({
      minLength: 1,
      maxLength: 64,
      description: `Id (\`${prefix}_…\`); an unknown id answers 404.`,
    }),
  } as Record<K, ReturnType<typeof Type.String>>);
}

const LineId = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

/** An invoice line as written: on documents and on a contract's billing plan. */
export const LineItemInput = Type.Object(
  {
    productId: Type.Optional(LineId('A product of this account (`prd_…`); fills what is omitted.')),
    description: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Line text; default the product’s name.',
      }),
    ),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000_000,
      description: 'Quantity, at most 3 decimals.',
    }),
    unitPrice: Type.Optional(
      Type.Number({
        minimum: -1_000_000_000_000,
        maximum: 1_000_000_000_000,
        description:
          'Net price per unit in major units of the document currency (negative: a discount); default the product’s price.',
      }),
    ),
    taxRateId: Type.Optional(
      LineId('A tax rate of this account (`txr_…`); default the product’s, else the default rate.'),
    ),
    unitCode: Type.Optional(
      Type.String({
        pattern: '^[A-Z0-9]{1,3}$',
        description:
          'Unit of the quantity, UN/ECE Recommendation 20 code (BT-130): `C62` one (default), `H87` piece, `HUR` hour, `DAY` day, `MON` month, `KGM` kilogram, `LS` lump sum, …',
      }),
    ),
  },
  { additionalProperties: false },
);
