import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStorageFull, isUnavailable, isUnstorableValue } from '../db/dialect.js';
import {
  DOCUMENT_DATE_MAX,
  DOCUMENT_DATE_MIN,
  DOCUMENT_DATE_PATTERN,
  MONTH_PATTERN,
} from '../shared/dates.js';
import { AppError, ERROR_CODES, type ErrorCode, type FieldError } from '../shared/errors.js';

const KEYWORD_CODES: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  enum: 'not_in_enum',
  const: 'not_in_enum',
  type: 'wrong_type',
  maxLength: 'too_long',
  minLength: 'too_short',
  maxItems: 'too_many',
  minItems: 'too_few',
  maximum: 'too_large',
  minimum: 'too_small',
  exclusiveMinimum: 'too_small',
  exclusiveMaximum: 'too_large',
  pattern: 'invalid_format',
  format: 'invalid_format',
  uniqueItems: 'duplicate_items',
  multipleOf: 'too_many_decimals',
  anyOf: 'invalid_value',
  oneOf: 'invalid_value',
};

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

const isDateFormat = (e: AjvError) => e.keyword === 'format' && e.params.format === 'date';
const isDocumentDateRange = (e: AjvError) =>
  e.keyword === 'pattern' && e.params.pattern === DOCUMENT_DATE_PATTERN;

/**
 * What a date, time, month or address must look like, in words and by example: Ajv's own
 * messages show the pattern's regular expression.
 */
function readableFormat(e: AjvError): string | undefined {
  if (e.keyword === 'format')
    switch (e.params.format) {
      case 'date':
        return 'must be a real calendar date, expected YYYY-MM-DD';
      case 'date-time':
        return 'must be a date and time with its zone, expected YYYY-MM-DDThh:mm:ssZ or …+01:00';
      case 'email':
        return 'must be an email address, expected name@example.com';
      default:
        return undefined;
    }
  if (e.keyword === 'pattern' && e.params.pattern === MONTH_PATTERN)
    return 'must be a month, expected YYYY-MM';
  return undefined;
}

/** Ajv errors → `[{path, message, code}]` with JSON pointers such as `/body/name`. */
export function fieldErrors(context: string, validation: AjvError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // A value that is no date at all is told so once, not also that it is out of range.
  const notDates = new Set(validation.filter(isDateFormat).map((e) => e.instancePath));
  for (const e of validation) {
    let path = `/${context}${e.instancePath}`;
    let message = e.message ?? 'is invalid';
    let code = KEYWORD_CODES[e.keyword] ?? 'invalid_value';
    const readable = readableFormat(e);
    if (readable) {
      message = readable;
    } else if (isDocumentDateRange(e)) {
      if (notDates.has(e.instancePath)) continue;
      message = `must be from ${DOCUMENT_DATE_MIN} to ${DOCUMENT_DATE_MAX}`;
      code = 'out_of_range';
    } else if (e.keyword === 'required') {
      path += `/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    }
    const dedupe = `${path}|${code}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    out.push({ path, message, code });
  }
  return out;
}

/** The RFC 9457 body of `code`; a 5xx body carries only the request id (decisions §5). */
export function problemBody(
  code: ErrorCode,
  detail: string,
  requestId: string,
  extra: { errors?: FieldError[]; members?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const { status, title } = ERROR_CODES[code];
  const type = `https://kontor.dev/problems/${code}`;
  if (status >= 500) return { type, title, status, code, requestId };
  return {
    type,
    title,
    status,
    detail,
    code,
    requestId,
    ...extra.members,
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
}

/** Answers the problem `code` on `reply`; also used where Fastify's router fails (`frameworkErrors`). */
export function sendProblem(
  req: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extra: {
    errors?: FieldError[];
    members?: Record<string, unknown>;
    headers?: Record<string, string>;
  } = {},
) {
  reply.header('x-request-id', req.id);
  for (const [k, v] of Object.entries(extra.headers ?? {})) reply.header(k, v);
  return reply
    .code(ERROR_CODES[code].status)
    .type('application/problem+json')
    .serializer(JSON.stringify)
    .send(problemBody(code, detail, req.id, extra));
}

/**
 * Errors Fastify raises before a route runs (router, body parser), by their code: each is the
 * client's fault and gets its own problem rather than Fastify's plain JSON.
 */
export function frameworkProblem(err: { code?: string }): [ErrorCode, string] | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ['malformed_json', 'The request body is not valid JSON.'];
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ['payload_too_large', 'The request body is larger than allowed.'];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ['unsupported_media_type', 'Send the body as application/json.'];
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return ['uri_too_long', 'A path segment of the URL is longer than allowed.'];
    case 'FST_ERR_BAD_URL':
      return ['bad_request', 'The URL is not validly percent-encoded.'];
    case undefined:
    default:
      return undefined;
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refused (malformed, headers too
 * large, too slow) never reaches a route, so the problem is written to the socket directly,
 * which is then closed as Node does.
 */
export function writeClientError(
  err: Error & { code?: string },
  socket: Duplex,
  requestId: string,
): void {
  // A reset connection has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'request_timeout'
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers_too_large'
        : 'bad_request';
  const detail =
    code === 'request_timeout'
      ? 'The request was not received in time.'
      : code === 'headers_too_large'
        ? 'The request headers are larger than allowed.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify(problemBody(code, detail, requestId));
  const { status, title } = ERROR_CODES[code];
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

/**
 * Routes every failure to one RFC 9457 renderer (decisions §5): AppErrors keep their code,
 * schema failures list each field, framework errors map by their code, and anything else is
 * a 500 whose body carries only the request id (the log has the rest).
 */
export function registerProblemHandlers(
  app: FastifyInstance,
  hooks: {
    onStorageFull?: () => void;
    /** Answers a request no route serves with the web app, when it is one of its routes. */
    appShell?: (req: FastifyRequest, reply: FastifyReply) => boolean;
  } = {},
): void {
  registerNotFound(app, hooks.appShell);
  registerErrorHandler(app, hooks);
}

/** 404 `route_not_found`, or 405 with `Allow` when the path exists for other methods. */
function registerNotFound(
  app: FastifyInstance,
  appShell?: (req: FastifyRequest, reply: FastifyReply) => boolean,
): void {
  const routes: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(
      `^${route.url
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
        .replace(/\\\*/g, '.*')}/?$`,
    );
    for (const method of methods) routes.push({ pattern, method });
  });

  app.setNotFoundHandler((req, reply) => {
    if (appShell?.(req, reply) === true) return reply;
    const path = req.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    // A wildcard route of this very method that found nothing (a missing asset) is a 404.
    if (allowed.length > 0 && !allowed.includes(req.method))
      return sendProblem(
        req,
        reply,
        'method_not_allowed',
        `${req.method} is not allowed on ${path}; it allows ${allowed.join(', ')}.`,
        { headers: { allow: allowed.join(', ') }, members: { allowedMethods: allowed } },
      );
    return sendProblem(req, reply, 'route_not_found', `No route serves ${req.method} ${path}.`);
  });
}

/** Every thrown error as a problem: domain, validation, framework, storage, or a bare 500. */
function registerErrorHandler(app: FastifyInstance, hooks: { onStorageFull?: () => void }): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, req, reply) => {
    if (err instanceof AppError)
      return sendProblem(req, reply, err.code, err.message, {
        errors: err.extras.errors,
        members: err.extras.members,
        headers: err.extras.headers,
      });
    const fe = err as FastifyError & { validationContext?: string };
    if (fe.validation) {
      const errors = fieldErrors(fe.validationContext ?? 'body', fe.validation);
      return sendProblem(
        req,
        reply,
        'validation_failed',
        `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
        { errors },
      );
    }
    const framework = frameworkProblem(fe);
    if (framework) return sendProblem(req, reply, ...framework);
    if (err instanceof SyntaxError && fe.statusCode === 400)
      return sendProblem(req, reply, 'malformed_json', 'The request body is not valid JSON.');
    if (isStorageFull(err)) {
      req.log.error({ err }, 'storage full');
      hooks.onStorageFull?.();
      return sendProblem(req, reply, 'insufficient_storage', 'Storage is full.', {
        headers: { 'retry-after': '60' },
      });
    }
    if (isUnstorableValue(err)) {
      // The schema should have refused the value: logged so that the gap gets closed.
      req.log.warn({ err }, 'value refused by the database');
      return sendProblem(
        req,
        reply,
        'value_not_storable',
        'A value of the request is out of range or holds characters that cannot be stored.',
      );
    }
    if (isUnavailable(err)) {
      req.log.error({ err }, 'database unavailable');
      return sendProblem(req, reply, 'service_unavailable', 'Try again shortly.', {
        headers: { 'retry-after': '1' },
      });
    }
    if (fe.statusCode === 414) return sendProblem(req, reply, 'uri_too_long', fe.message);
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return sendProblem(req, reply, 'bad_request', fe.message);
    }
    req.log.error({ err }, 'unhandled error');
    return sendProblem(req, reply, 'internal_error', 'Internal server error.');
  });
}
