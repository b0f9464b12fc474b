import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../shared/errors.js';

/**
 * Limits every request input obeys whatever its route's schema says, checked in one place so
 * that no route can forget them (issue 11, "every bad input is a 4xx problem"):
 *
 * - nesting: objects and arrays at most `MAX_DEPTH` levels deep. Free-form objects (a
 *   document's `fields`) would otherwise carry thousands of levels into recursive code,
 *   JSON columns and the audit diff;
 * - text: no NUL character (PostgreSQL cannot store it in `text` or `jsonb`, SQLite can, so
 *   it is refused on both alike) and no lone UTF-16 surrogate (not Unicode; both drivers
 *   would silently store U+FFFD instead), in values and in property names;
 * - integers: within PostgreSQL's `integer`, see `boundIntegers`.
 */

/** Deepest nesting of objects and arrays a request may send; the body itself is level 1. */
export const MAX_DEPTH = 32;

/** The range of PostgreSQL's `integer` (and a safe one for SQLite's): where integers are stored. */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

// With the `u` flag a well-formed surrogate pair is one code point, so \p{Cs} matches only
// lone surrogates. NUL is the one control character refused: it is what PostgreSQL cannot store.
// eslint-disable-next-line no-control-regex
const BAD_TEXT = /[\u0000\p{Cs}]/u;

/** `~` and `/` escaped as a JSON pointer segment needs. */
function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function textProblem(value: string): { message: string; code: string } | undefined {
  const bad = BAD_TEXT.exec(value);
  if (!bad) return undefined;
  return bad[0] === '\u0000'
    ? { message: 'must not contain the NUL character (\\u0000)', code: 'invalid_character' }
    : {
        message: 'must be valid Unicode (it holds a lone surrogate)',
        code: 'invalid_character',
      };
}

/** Objects and arrays as parsed from JSON or a query string; buffers and streams are left alone. */
function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as object | null;
  // Plain objects, and the query parser's objects whose prototype has no prototype.
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

/**
 * The problems of one request part (`body`, `querystring`, `params`), each with a JSON pointer
 * such as `/body/fields/note`. Stops at the first `max` problems; never descends past
 * `MAX_DEPTH`, so the walk's own recursion is bounded.
 */
export function inputProblems(value: unknown, context: string, max = 10): FieldError[] {
  const out: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (out.length >= max) return;
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem) out.push({ path, ...problem });
      return;
    }
    if (!isContainer(node)) return;
    if (depth > MAX_DEPTH) {
      out.push({
        path,
        message: `must not nest objects and arrays more than ${MAX_DEPTH} levels deep`,
        code: 'too_deep',
      });
      return;
    }
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((item, i) => [String(i), item])
      : Object.entries(node);
    for (const [key, item] of entries) {
      const itemPath = `${path}/${pointerSegment(key)}`;
      if (!Array.isArray(node)) {
        const problem = textProblem(key);
        if (problem) {
          out.push({ path: itemPath, message: `name ${problem.message}`, code: problem.code });
          if (out.length >= max) return;
          continue;
        }
      }
      walk(item, itemPath, depth + 1);
      if (out.length >= max) return;
    }
  };
  walk(value, `/${context}`, 1);
  return out;
}

/** Whether `value` keeps every limit: the walk of `inputProblems` without building paths. */
function keepsLimits(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return !BAD_TEXT.test(value);
  if (!isContainer(value)) return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => keepsLimits(item, depth + 1));
  for (const key in value)
    if (BAD_TEXT.test(key) || !keepsLimits(value[key], depth + 1)) return false;
  return true;
}

/**
 * Before each route's schema runs: a 400 `validation_failed` naming every field that breaks
 * the limits above, in the body, the query string or the path.
 */
export function registerInputLimits(app: FastifyInstance): void {
  app.addHook('preValidation', (req: FastifyRequest, _reply, done) => {
    // Nearly every request keeps the limits: checked without building a problem list.
    if (keepsLimits(req.params, 1) && keepsLimits(req.query, 1) && keepsLimits(req.body, 1))
      return done();
    const errors = [
      ...inputProblems(req.params, 'params'),
      ...inputProblems(req.query, 'querystring'),
      ...inputProblems(req.body, 'body'),
    ];
    if (errors.length === 0) return done();
    done(
      new AppError(
        'validation_failed',
        `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
        { errors },
      ),
    );
  });
}

type Schema = Record<string, unknown>;

function isIntegerSchema(schema: Schema): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

/**
 * A copy of `schema` in which every integer without a tighter bound gets PostgreSQL's
 * `integer` range: a `version` of 1e20 is a whole number to JSON Schema but overflows the
 * column (SQLSTATE 22003) on PostgreSQL and compares as a float on SQLite. Applied when
 * validators are compiled, so every route, present and future, gets it.
 */
export function boundIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((item: unknown) => boundIntegers(item)) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema))
    // `enum`, `const`, `default` and `examples` hold data, not schemas.
    out[key] = ['enum', 'const', 'default', 'examples'].includes(key)
      ? value
      : boundIntegers(value);
  if (isIntegerSchema(out)) {
    const max = out.maximum;
    const min = out.minimum;
    if (typeof max !== 'number' || max > INT32_MAX) out.maximum = INT32_MAX;
    if (typeof min !== 'number' || min < INT32_MIN) out.minimum = INT32_MIN;
  }
  return out as T;
}
