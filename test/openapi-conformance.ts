/**
 * Every answer the tests receive through a test app's `inject` is checked against the committed
 * OpenAPI document (docs/openapi.md, "Conformance"): the status is declared for the operation,
 * the content type is declared for that status, the body matches its schema (JSON bodies by
 * JSON Schema 2020-12 with ajv, text by its string schema), an answer without declared content
 * has neither body nor content type, and the declared headers marked `required` are present
 * and every declared header sent matches its schema. A violation fails the test that caused it,
 * naming method, route, operation and status. `openapi:check` keeps the document equal to what
 * the routes produce, so this proves the routes answer what they declare.
 *
 * Each schema is compiled once per process (the test workers do not isolate files) and only
 * when an answer first needs it. `OPENAPI_CONFORMANCE=report` records violations without
 * failing (to list them all in one run); the tally of every file lands in
 * `test-results/reports/openapi-conformance.jsonl` and the run's total is printed at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { TALLY_FILE } from './openapi-tally.js';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface Header {
  required?: boolean;
  schema?: Json;
}
interface Response {
  $ref?: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { responses?: Record<string, Response> };
}

/** The answer as `inject` gives it (light-my-request), reduced to what is checked. */
export interface CheckedAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const ROOT = path.resolve(import.meta.dirname, '..');

const doc = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'openapi', 'openapi.json'), 'utf8'),
) as Document;

// ajv-formats is CommonJS; its default export is the function under Node's ESM.
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's own formats: the bounds of int32/int64 are written out as minimum/maximum, and
// binary/byte/password say how a string is meant, not what it may hold.
for (const format of ['int32', 'int64', 'binary', 'byte', 'password', 'float', 'double'])
  ajv.addFormat(format, true);
ajv.addSchema(doc, 'openapi');

/** A JSON pointer into the document as a URI fragment ajv resolves. */
const pointer = (...parts: string[]) =>
  parts.map((p) => `/${encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');

const validators = new Map<string, ValidateFunction>();
function validatorAt(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.getSchema(`openapi#${ref}`);
    if (!validate) throw new Error(`No schema at ${ref} in openapi/openapi.json`);
    validators.set(ref, validate);
  }
  return validate;
}

interface Route {
  template: string;
  segments: (string | null)[];
  methods: Record<string, Operation>;
}
const routes: Route[] = Object.entries(doc.paths).map(([template, methods]) => ({
  template,
  segments: template
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith('{') ? null : s)),
  methods,
}));

/**
 * The documented path a request path answers to, as the router picks it: at the first segment
 * where two templates differ, the literal one wins (`/v1/files/download` over `/{fileId}`).
 */
export function routeOf(pathname: string): Route | undefined {
  const parts = pathname.split('/').slice(1);
  // A path that does not percent-decode reaches no route: the router answers it (400).
  if (!parts.every(decodes)) return undefined;
  let best: Route | undefined;
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    if (!route.segments.every((s, i) => s === null || s === parts[i])) continue;
    if (!best || literalFirst(route, best)) best = route;
  }
  return best;
}
const decodes = (segment: string) => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};
const literalFirst = (a: Route, b: Route) => {
  const i = a.segments.findIndex((s, j) => (s === null) !== (b.segments[j] === null));
  return i >= 0 && a.segments[i] !== null;
};

/** The response declared for `status` (exact, then `4XX`, then `default`) and where it lives. */
function declared(op: Operation, at: string, status: number) {
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
  if (!key) return undefined;
  const response = op.responses[key]!;
  if (!response.$ref) return { response, base: `${at}${pointer('responses', key)}` };
  const name = response.$ref.replace('#/components/responses/', '');
  return {
    response: doc.components.responses![name]!,
    base: pointer('components', 'responses', name),
  };
}

const isJson = (mediaType: string) => /^application\/(.+\+)?json$/.test(mediaType);
const firstHeader = (value: string | string[] | number | undefined) =>
  Array.isArray(value) ? value[0] : value === undefined ? undefined : String(value);

/**
 * Whether the app has a route for `method` on the documented path: a request it has none for
 * (a HEAD where the GET has no HEAD twin, a method the path lacks) is answered by the router's
 * 404, not by the operation.
 */
export type Routed = (method: string, template: string) => boolean;

/** What is wrong with an answer to `method pathname`: empty when it is as documented. */
export function violationsOf(
  method: string,
  pathname: string,
  answer: CheckedAnswer,
  routed: Routed = () => true,
): { operation?: string; problems: string[] } {
  const route = routeOf(pathname);
  // HEAD answers as GET does, without the body.
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const op = route?.methods[verb];
  if (!route || !op || !routed(method.toUpperCase(), route.template)) return { problems: [] };
  const operation = `${method.toUpperCase()} ${route.template} (${op.operationId})`;
  const found = declared(op, pointer('paths', route.template, verb), answer.statusCode);
  if (!found) return { operation, problems: [`status ${answer.statusCode} is not declared`] };
  const { response, base } = found;
  const problems: string[] = [];
  const contentType = firstHeader(answer.headers['content-type']);
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase();
  const content = response.content ?? {};
  const withBody = method.toUpperCase() !== 'HEAD';
  if (Object.keys(content).length === 0) {
    if (contentType) problems.push(`content-type ${contentType} on an answer without content`);
    if (answer.body.length > 0) problems.push('a body on an answer without content');
  } else if (!mediaType) {
    problems.push(`no content-type (declared: ${Object.keys(content).join(', ')})`);
  } else {
    const declaredType = Object.keys(content).find(
      (t) =>
        t === mediaType ||
        t === '*/*' ||
        (t.endsWith('/*') && mediaType.startsWith(t.slice(0, -1))),
    );
    if (!declaredType)
      problems.push(
        `content-type ${mediaType} is not declared (declared: ${Object.keys(content).join(', ')})`,
      );
    else if (withBody && content[declaredType]!.schema)
      problems.push(
        ...bodyProblems(
          answer.body,
          mediaType,
          `${base}${pointer('content', declaredType, 'schema')}`,
        ),
      );
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = firstHeader(answer.headers[name.toLowerCase()]);
    if (value === undefined) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    if (!header.schema) continue;
    const validate = validatorAt(`${base}${pointer('headers', name, 'schema')}`);
    const type = (header.schema as { type?: unknown }).type;
    const numeric = (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value);
    const typed = numeric ? Number(value) : value;
    if (!validate(typed))
      problems.push(
        `header ${name}: ${JSON.stringify(value)} ${(validate.errors ?? []).map((e) => e.message).join(', ')}`,
      );
  }
  return { operation, problems };
}

function bodyProblems(body: string, mediaType: string, ref: string): string[] {
  let value: unknown = body;
  if (isJson(mediaType)) {
    try {
      value = JSON.parse(body);
    } catch {
      return [`the ${mediaType} body is not JSON: ${JSON.stringify(body.slice(0, 80))}`];
    }
  }
  const validate = validatorAt(ref);
  if (validate(value)) return [];
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `body${e.instancePath || ''} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
}

/** This process's tally since the last flush (one test file). */
const tally = { checked: 0, ms: 0, violations: [] as string[] };
const reportOnly = process.env.OPENAPI_CONFORMANCE === 'report';

/**
 * Checks one answer; throws (failing the test that asked) when it is not as documented, unless
 * `OPENAPI_CONFORMANCE=report`.
 */
export function checkAnswer(
  method: string,
  url: string,
  answer: CheckedAnswer,
  routed: Routed,
): void {
  const started = performance.now();
  const pathname = new URL(url, 'http://test').pathname;
  const { operation, problems } = violationsOf(method, pathname, answer, routed);
  tally.ms += performance.now() - started;
  if (!operation) return;
  tally.checked++;
  if (problems.length === 0) return;
  const message = `${operation} answered ${answer.statusCode}, which openapi/openapi.json does not describe:\n  ${problems.join('\n  ')}`;
  tally.violations.push(message);
  if (!reportOnly) throw new Error(message);
}

/** Appends this file's tally to the run's tally file and starts the next one. */
export function flushTally(testFile: string): void {
  if (tally.checked === 0) return;
  fs.mkdirSync(path.dirname(TALLY_FILE), { recursive: true });
  fs.appendFileSync(
    TALLY_FILE,
    `${JSON.stringify({ file: path.relative(ROOT, testFile), ...tally, ms: Math.round(tally.ms) })}\n`,
  );
  tally.checked = 0;
  tally.ms = 0;
  tally.violations = [];
}
