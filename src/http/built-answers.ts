import type { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, RouteOptions } from 'fastify';

/** The app's schema serializer factory (fast-json-stringify, compiled once per schema). */
type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * An `onRoute` hook: a route whose config sets `builtAnswers` has its success answers written
 * by `JSON.stringify` instead of its schema's serializer; its other answers (problems) keep
 * the schema's. Such a route answers objects a presenter builds field by field in the
 * schema's shape (object literals of exactly the schema's fields, no stored or read object
 * spread into them), so the schema serializer's filtering and coercion would change nothing.
 * What it costs instead: its strings of strings are garbage of four and a half times what
 * `JSON.stringify` allocates (a page of 50 invoices: 583 KB against 131 KB), and on a list
 * that garbage drives the collector's pauses (docs/scaling.md, "Answers written as built").
 * Every answer the tests receive is checked against its schema, whose objects are closed
 * (but for a record of free values, such as a document's template `fields`), so a presenter
 * that strays from it fails there.
 */
export function builtAnswers(schemaSerializers: SerializerFactory) {
  return function onRoute(this: FastifyInstance, route: RouteOptions): void {
    if (route.config?.builtAnswers !== true || route.serializerCompiler) return;
    const schemaSerializer = schemaSerializers(this.getSchemas(), undefined);
    route.serializerCompiler = ({ httpStatus = '', ...target }) =>
      httpStatus.startsWith('2') ? JSON.stringify : schemaSerializer({ ...target, httpStatus });
  };
}
