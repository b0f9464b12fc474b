import type { FastifyInstance, preValidationHookHandler } from 'fastify';

/**
 * Whether a body schema asks for nothing: an object whose fields are all optional. Such an
 * action (cancel a document, run dunning) is complete without a body, so none is needed.
 */
export function bodyIsOptional(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, required } = schema as { type?: unknown; required?: unknown };
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}

const METHODS_WITH_BODY = ['POST', 'PUT', 'PATCH'];

/** A missing body (or an empty one sent as JSON) is `{}` when every field is optional. */
const emptyBodyIsObject: preValidationHookHandler = (req, _reply, done) => {
  if (req.body === undefined) req.body = {};
  done();
};

/**
 * Routes whose body fields are all optional take a request without a body, or with an empty
 * one with or without `content-type: application/json`, as `{}` rather than answering 400
 * "body must be object"; the OpenAPI document says `requestBody.required: false` for them
 * (http/openapi.ts).
 */
export function registerOptionalBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => METHODS_WITH_BODY.includes(m))) return;
    if (!bodyIsOptional(route.schema?.body)) return;
    route.preValidation = [emptyBodyIsObject, ...[route.preValidation ?? []].flat()];
  });
}
