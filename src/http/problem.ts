import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUnavailable } from '../db/dialect.js';
import { AppError, ERROR_CODES, type ErrorCode, type FieldError } from './errors.js';

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

/** Ajv errors → `[{path, message, code}]` with JSON pointers such as `/body/name`. */
export function fieldErrors(context: string, validation: AjvError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of validation) {
    let path = `/${context}${e.instancePath}`;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path += `/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    }
    const code = KEYWORD_CODES[e.keyword] ?? 'invalid_value';
    const dedupe = `${path}|${code}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    out.push({ path, message, code });
  }
  return out;
}

function send(
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
  const { status, title } = ERROR_CODES[code];
  reply.header('x-request-id', req.id);
  for (const [k, v] of Object.entries(extra.headers ?? {})) reply.header(k, v);
  const body: Record<string, unknown> =
    status >= 500
      ? { type: `https://kontor.dev/problems/${code}`, title, status, code, requestId: req.id }
      : {
          type: `https://kontor.dev/problems/${code}`,
          title,
          status,
          detail,
          code,
          requestId: req.id,
          ...extra.members,
          ...(extra.errors ? { errors: extra.errors } : {}),
        };
  return reply.code(status).type('application/problem+json').serializer(JSON.stringify).send(body);
}

/**
 * Routes every failure to one RFC 9457 renderer (decisions §5): AppErrors keep their code,
 * schema failures list each field, framework errors map by their code, and anything else is
 * a 500 whose body carries only the request id (the log has the rest).
 */
export function registerProblemHandlers(app: FastifyInstance): void {
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
    const path = req.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0)
      return send(req, reply, 'method_not_allowed', `${req.method} is not allowed on ${path}.`, {
        headers: { allow: allowed.join(', ') },
      });
    return send(req, reply, 'route_not_found', `No route serves ${req.method} ${path}.`);
  });

  app.setErrorHandler((err: FastifyError | AppError | Error, req, reply) => {
    if (err instanceof AppError)
      return send(req, reply, err.code, err.message, {
        errors: err.extras.errors,
        members: err.extras.members,
        headers: err.extras.headers,
      });
    const fe = err as FastifyError & { validationContext?: string };
    if (fe.validation) {
      const errors = fieldErrors(fe.validationContext ?? 'body', fe.validation);
      return send(
        req,
        reply,
        'validation_failed',
        `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
        { errors },
      );
    }
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(req, reply, 'malformed_json', 'The request body is not valid JSON.');
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(req, reply, 'payload_too_large', 'The request body is larger than allowed.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(req, reply, 'unsupported_media_type', 'Send the body as application/json.');
      default:
        break;
    }
    if (err instanceof SyntaxError && fe.statusCode === 400)
      return send(req, reply, 'malformed_json', 'The request body is not valid JSON.');
    if (isUnavailable(err)) {
      req.log.error({ err }, 'database unavailable');
      return send(req, reply, 'service_unavailable', 'Try again shortly.', {
        headers: { 'retry-after': '1' },
      });
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return send(req, reply, 'bad_request', fe.message);
    }
    req.log.error({ err }, 'unhandled error');
    return send(req, reply, 'internal_error', 'Internal server error.');
  });
}
