/**
 * Turns the document @fastify/swagger builds from the routes into one a generator can use
 * (docs/openapi.md): an `operationId` on every operation, named component schemas for
 * resources, request bodies and list pages, errors as `application/problem+json`, the status
 * codes every operation can answer, and the headers the service sends. The routes stay as
 * they are; this runs once when the document is built (`npm run openapi`, `/openapi.json`).
 */
import { isDeepStrictEqual } from 'node:util';
import { INT32_MAX, INT32_MIN } from './input-limits.js';
import { isPageSchema } from './csv.js';
import { bodyIsOptional } from './optional-body.js';
import { RESOURCE_EXAMPLES } from './openapi-examples.js';

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses?: Record<string, Response>;
  security?: Record<string, unknown>[];
  description?: string;
}
interface Response extends Json {
  /** Absent on a `$ref` to a shared response. */
  description?: string;
  $ref?: string;
  headers?: Record<string, Json>;
  content?: Record<string, { schema?: Json }>;
}
interface Document extends Json {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; responses?: Record<string, Json> } & Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Operations whose id the CRUD rule would name badly: actions, singletons, auth flows. Keyed
 * by `METHOD path`; a route that neither the rule nor this table names fails `openapi:check`.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /health': 'getHealth',
  'GET /ready': 'getReadiness',
  'POST /v1/auth/register': 'register',
  'POST /v1/auth/confirm': 'confirmEmail',
  'POST /v1/auth/login': 'login',
  'POST /v1/auth/refresh': 'refreshSession',
  'POST /v1/auth/logout': 'logout',
  'POST /v1/auth/forgot-password': 'requestPasswordReset',
  'POST /v1/auth/reset-password': 'resetPassword',
  'POST /v1/web/session': 'webSignIn',
  'POST /v1/web/session/refresh': 'webRefreshSession',
  'DELETE /v1/web/session': 'webSignOut',
  'POST /v1/web/setup/check': 'checkSetupLink',
  'POST /v1/web/setup': 'completeSetup',
  'POST /v1/users': 'inviteUser',
  'POST /v1/users/confirm': 'previewInvitation',
  'GET /v1/account/addresses': 'getAccountSettings',
  'PUT /v1/account/addresses': 'replaceAccountSettings',
  'PATCH /v1/account/addresses': 'updateAccountSettings',
  'GET /v1/account/company': 'getCompany',
  'PUT /v1/account/company': 'updateCompany',
  'POST /v1/account/company/check': 'checkCompany',
  'GET /v1/account/billing': 'getBilling',
  'PUT /v1/account/billing/card': 'setBillingCard',
  'PUT /v1/account/billing/bank-account': 'setBillingBankAccount',
  'GET /v1/plans': 'listPlans',
  'PATCH /v1/plans': 'changePlan',
  'GET /v1/licenses': 'getLicense',
  'GET /v1/usage': 'getUsage',
  'POST /v1/newsletter/signup': 'signUpForNewsletter',
  'GET /v1/newsletter/confirm': 'confirmNewsletter',
  'GET /v1/newsletter/unsubscribe': 'showNewsletterUnsubscribe',
  'POST /v1/newsletter/unsubscribe': 'unsubscribeFromNewsletter',
  'PATCH /v1/me/newsletter-subscription': 'updateMyNewsletterSubscription',
  'POST /v1/files/upload-url': 'createUploadUrl',
  'PUT /v1/files/upload': 'uploadFile',
  'GET /v1/files/download-url': 'createDownloadUrl',
  'GET /v1/files/download': 'downloadFile',
  'POST /v1/document-templates/compile': 'compileDocumentTemplate',
  'POST /v1/documents/processing': 'createDocumentForProcessing',
  'POST /v1/documents/rasterize': 'rasterizeDocument',
  'GET /v1/documents/{documentId}/einvoice': 'getDocumentEinvoice',
  'GET /v1/documents/{documentId}/finalize-check': 'getDocumentFinalizeCheck',
  'GET /v1/documents/{documentId}/send-preview': 'getDocumentSendPreview',
  'GET /v1/account/invoice-readiness': 'getInvoiceReadiness',
  'GET /v1/documents/numbering': 'getInvoiceNumbering',
  'PUT /v1/documents/numbering': 'updateInvoiceNumbering',
  'POST /v1/documents/{documentId}/cancel': 'cancelDocument',
  'POST /v1/documents/{documentId}/send': 'sendDocument',
  'GET /v1/dashboard/cash-anchor': 'getCashAnchor',
  'PUT /v1/dashboard/cash-anchor': 'setCashAnchor',
  'GET /v1/dashboard/stats': 'getDashboardStats',
  'GET /v1/dashboard/timeseries': 'getDashboardTimeseries',
  'POST /v1/bank-statement-imports': 'createBankStatementImport',
  'GET /v1/bank-statement-imports/active': 'getActiveBankStatementImport',
  'POST /v1/bank-statement-imports/{importId}/finalize': 'finalizeBankStatementImport',
  'PATCH /v1/bank-statement-imports/{importId}/transactions/{index}':
    'decideBankStatementTransaction',
  'POST /v1/webhooks/provider-subscriptions': 'receiveSubscriptionWebhook',
  'POST /v1/webhooks/provider': 'receivePaymentWebhook',
  'POST /v1/webhook-endpoints/{webhookEndpointId}/rotate-secret': 'rotateWebhookEndpointSecret',
  'POST /v1/webhook-endpoints/{webhookEndpointId}/deliveries/{deliveryId}/replay':
    'replayWebhookDelivery',
  'GET /v1/exports/datev': 'exportDatev',
  'GET /v1/exports/datev/settings': 'getDatevSettings',
  'PUT /v1/exports/datev/settings': 'updateDatevSettings',
  'PUT /v1/documents/{documentId}/dunning-block': 'setDocumentDunningBlock',
  'POST /v1/dunning/runs': 'runDunning',
  'GET /v1/dunning/settings': 'getDunningSettings',
  'PUT /v1/dunning/settings': 'updateDunningSettings',
  'GET /v1/customer-link-settings': 'getCustomerLinkSettings',
  'PUT /v1/customer-link-settings': 'updateCustomerLinkSettings',
  'DELETE /v1/documents/{documentId}/customer-links/{linkId}': 'revokeDocumentCustomerLink',
  'GET /v1/partners/{partnerId}/mandates': 'listPartnerMandates',
  'POST /v1/partners/{partnerId}/mandates': 'createPartnerMandate',
  'GET /v1/sepa/mandates/{mandateId}': 'getMandate',
  'PUT /v1/sepa/mandates/{mandateId}': 'updateMandate',
  'POST /v1/sepa/mandates/{mandateId}/revoke': 'revokeMandate',
  'GET /v1/partners/{partnerId}/bank-account': 'getPartnerBankAccount',
  'PUT /v1/partners/{partnerId}/bank-account': 'setPartnerBankAccount',
  'GET /v1/sepa/settings': 'getSepaSettings',
  'PUT /v1/sepa/settings': 'updateSepaSettings',
  'POST /v1/sepa/collections': 'createCollection',
  'GET /v1/sepa/collections': 'listCollections',
  'GET /v1/sepa/collections/{runId}': 'getCollection',
  'GET /v1/sepa/collections/{runId}/file': 'getCollectionFile',
  'POST /v1/sepa/transfers': 'createTransfer',
  'GET /v1/sepa/transfers': 'listTransfers',
  'GET /v1/sepa/transfers/{runId}': 'getTransfer',
  'GET /v1/sepa/transfers/{runId}/file': 'getTransferFile',
  'GET /v1/partners/numbering': 'getPartnerNumbering',
  'PUT /v1/partners/numbering': 'updatePartnerNumbering',
};

const pascal = (word: string) =>
  word
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word) || word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const isParam = (segment: string) => segment.startsWith('{');

/**
 * `listPartners`, `createPartner`, `getPartner`, `updatePartner`, `deletePartner`, and for
 * nested collections the parent in the name (`listBankStatementImportTransactions`).
 */
export function operationIdOf(method: string, path: string, methods: string[]): string {
  const explicit = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
  if (explicit) return explicit;
  const segments = path.split('/').filter((s) => s.length > 0 && s !== 'v1');
  const statics = segments.filter((s) => !isParam(s));
  const last = segments.at(-1) ?? '';
  const parents = statics.slice(0, -1).map((s) => pascal(singular(s)));
  const lastStatic = statics.at(-1) ?? '';
  if (isParam(last)) {
    const noun = [...parents, pascal(singular(lastStatic))].join('');
    const verb =
      method === 'get'
        ? 'get'
        : method === 'delete'
          ? 'delete'
          : method === 'patch' && methods.includes('put')
            ? 'patch'
            : 'update';
    return `${verb}${noun}`;
  }
  if (method === 'get') return `list${parents.join('')}${pascal(lastStatic)}`;
  if (method === 'post') return `create${parents.join('')}${pascal(singular(lastStatic))}`;
  throw new Error(`Name the operation ${method.toUpperCase()} ${path} in OPERATION_IDS`);
}

/** The noun of a CRUD operation id (`getPartner` → `Partner`), else undefined. */
function resourceOf(operationId: string): { verb: string; noun: string } | undefined {
  const m = /^(list|create|get|update|patch|replace|delete)([A-Z]\w*)$/.exec(operationId);
  return m ? { verb: m[1]!, noun: m[2]! } : undefined;
}

const jsonSchemaOf = (r: { content?: Record<string, { schema?: Json }> } | undefined) =>
  r?.content?.['application/json']?.schema;

/** Registers `schema` as `name` (or finds it registered as is) and answers a `$ref` to it. */
function named(doc: Document, name: string, schema: Json, fallback?: string): Json {
  if (typeof schema.$ref === 'string') return schema;
  const schemas = doc.components.schemas;
  for (const [existing, registered] of Object.entries(schemas))
    if (isDeepStrictEqual(registered, schema)) return { $ref: `#/components/schemas/${existing}` };
  let unique = name in schemas && fallback ? fallback : name;
  for (let i = 2; unique in schemas; i++) unique = `${name}${i}`;
  schemas[unique] = schema;
  return { $ref: `#/components/schemas/${unique}` };
}

function nameSchemas(doc: Document, op: Operation): void {
  const id = op.operationId!;
  const crud = resourceOf(id);
  const body = jsonSchemaOf(op.requestBody);
  if (body && op.requestBody?.content?.['application/json'])
    op.requestBody.content['application/json'].schema = named(
      doc,
      crud && crud.verb !== 'list' && crud.verb !== 'get'
        ? `${pascal(crud.verb)}${crud.noun}`
        : `${pascal(id)}Request`,
      body,
    );
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const schema = jsonSchemaOf(response);
    if (!schema || !response.content?.['application/json']) continue;
    let name = `${pascal(id)}Response`;
    if (crud?.verb === 'list') {
      const items = (schema.properties as Json | undefined)?.data as Json | undefined;
      const item = items?.items as Json | undefined;
      if (item) items!.items = named(doc, singular(crud.noun), item);
      name = `${singular(crud.noun)}Page`;
    } else if (crud) name = crud.noun;
    response.content['application/json'].schema = named(doc, name, schema, `${pascal(id)}Response`);
  }
}

/** `application/json` errors become `application/problem+json`, as they are sent. */
function problemJson(op: Operation): void {
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^[45]/.test(status) || !response.content?.['application/json']) continue;
    const { ['application/json']: problem, ...rest } = response.content;
    response.content = { 'application/problem+json': problem, ...rest };
  }
}

const PROBLEM = {
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};
const header = (description: string, schema: Json = { type: 'string' }) => ({
  description,
  schema,
});
/** A header sent with every answer it is declared on (test/openapi-conformance.ts checks it). */
const always = (description: string, schema?: Json) => ({
  ...header(description, schema),
  required: true,
});
/** A count or a number of seconds, as the rate limiter sends it. */
const COUNT = { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX };
// Not `required`: an installation that runs with RATE_LIMITS=off sends none of them.
const RATE_HEADERS = {
  'RateLimit-Limit': header(
    'Requests allowed in the current window (user or account, whichever is nearer its end). Sent unless the installation runs with RATE_LIMITS=off, as are the other RateLimit-* headers.',
    COUNT,
  ),
  'RateLimit-Remaining': header('Requests left in that window.', COUNT),
  'RateLimit-Reset': header('Seconds until that window ends.', COUNT),
};

const RETRY_AFTER = { 'Retry-After': always('Seconds to wait.', COUNT) };
/** Answers given before the rate limit runs: 401 unknown credential, 403 role, 414 router. */
const BEFORE_RATE_LIMIT = ['401', '403', '414'];

/**
 * The answers any operation of its kind can give, declared where the route left them out (in the
 * words of `problems()` in http/schemas.ts, so that alike answers share one component).
 */
function commonResponses(path: string, method: string, op: Operation): void {
  const responses = (op.responses ??= {});
  const authenticated = (op.security ?? []).some((s) => 'bearer' in s);
  const withKey = (op.security ?? []).some((s) => 'apiKey' in s);
  const params = op.parameters ?? [];
  const add = (status: string, description: string) => {
    responses[status] ??= { description, ...PROBLEM };
  };
  // Path parameters are bounded too (an id is at most 64 characters), so each can fail.
  if (params.some((p) => p.in !== 'header') || op.requestBody)
    add('400', 'The request is invalid (validation_failed, malformed_json).');
  if (withKey) add('401', 'Missing or invalid API key or bearer token.');
  if (path.includes('{')) add('404', 'Not found (another account’s id is not found either).');
  if (params.some((p) => p.in === 'header' && p.name === 'if-match'))
    add('412', 'If-Match does not match the current version.');
  if (params.some((p) => p.in === 'header' && p.name === 'idempotency-key'))
    add('409', 'A request with this Idempotency-Key is still running (idempotency_in_progress).');
  // The router refuses a path segment over maxParamLength (app.ts) before any hook runs.
  if (path.includes('{'))
    add('414', 'A path segment is longer than 200 characters (uri_too_long).');
  if (op.requestBody?.content?.['application/json'])
    add('415', 'The body is not application/json (unsupported_media_type).');
  if (authenticated)
    add('429', 'Past the plan’s rate limit (rate_limited) or monthly quota (quota_exceeded).');
  // The plan's limit, the auth flows' and the newsletter's throttles all send Retry-After.
  const tooMany = responses['429'];
  if (tooMany) tooMany.headers = { ...tooMany.headers, ...RETRY_AFTER };
  // What any operation can meet (http/problem.ts): a bug, the database out of reach (every
  // operation but the liveness probe reads it), a full disk on a write.
  add('500', 'An unexpected error (internal_error); the problem carries only the request id.');
  if (path !== '/health') add('503', 'Not available now (service_unavailable); try again shortly.');
  const unavailable = responses['503'];
  if (unavailable)
    unavailable.headers = {
      ...unavailable.headers,
      'Retry-After': header('Seconds to wait (sent while the database is unreachable).', COUNT),
    };
  if (method !== 'get') {
    add('507', 'The storage is full (insufficient_storage); nothing was written.');
    responses['507']!.headers = { ...responses['507']!.headers, ...RETRY_AFTER };
  }
}

const RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '412': 'PreconditionFailed',
  '413': 'ContentTooLarge',
  '414': 'UriTooLong',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableContent',
  '428': 'PreconditionRequired',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
  '507': 'InsufficientStorage',
};

/**
 * Error answers written out alike on several operations become one `components.responses`
 * entry and a `$ref` (written out, they made the document 1.21 MB when there were fewer). The
 * variant without RateLimit-* (public operations) is `<Name>Public`; any other is numbered.
 */
function shareResponses(doc: Document): void {
  const shared = (doc.components.responses ??= {});
  const keyOf = (status: string, response: Response) =>
    /^[45]/.test(status) && !response.$ref && status in RESPONSE_NAMES
      ? `${status} ${JSON.stringify(response)}`
      : undefined;
  const counts = new Map<string, number>();
  for (const item of Object.values(doc.paths))
    for (const method of METHODS)
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        const key = keyOf(status, response);
        if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
      }
  const names = new Map<string, string>();
  for (const item of Object.values(doc.paths))
    for (const method of METHODS) {
      const responses = item[method]?.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        const key = keyOf(status, response);
        if (!key || (counts.get(key) ?? 0) < 2) continue;
        let name = names.get(key);
        if (!name) {
          const base = response.description?.includes('idempotency_in_progress')
            ? 'IdempotencyInProgress'
            : response.content?.['text/html']
              ? 'InvalidLink'
              : RESPONSE_NAMES[status]!;
          const limited = Boolean(response.headers?.['RateLimit-Limit']);
          // Answers given before the rate limit, or past it (5xx), and the links' pages (public
          // only) have no public variant.
          const unlimited =
            BEFORE_RATE_LIMIT.includes(status) || status.startsWith('5') || base === 'InvalidLink';
          name = limited || unlimited ? base : `${base}Public`;
          for (let i = 2; name in shared; i++) name = `${base}${i}`;
          shared[name] = response;
          names.set(key, name);
        }
        responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
}

/**
 * Lists also answer `text/csv` when asked with `Accept: text/csv` (src/http/csv.ts): the
 * alternative is declared beside the JSON page, with the headers only it sends.
 */
function csvAlternative(op: Operation): void {
  const ok = op.responses?.['200'];
  if (!ok?.content || !isPageSchema(jsonSchemaOf(ok))) return;
  ok.content['text/csv'] = {
    schema: {
      type: 'string',
      description:
        'With `Accept: text/csv`: every record the filters select (not one page), streamed. UTF-8 with BOM, `;` between fields, CRLF, a header line of the field names (nested ones dotted, addresses per type: `addresses.BILLING.city`), decimal comma, amounts with the decimals of their currency (`1179,90`), dates DD.MM.YYYY, timestamps ISO 8601 in UTC (`2026-11-28T08:15:00Z`), booleans ja/nein (docs/api-conventions.md, "CSV").',
    },
  };
  ok.headers = {
    ...ok.headers,
    'Content-Disposition': header(
      'With text/csv only: `attachment; filename="<resource>-<YYYY-MM-DD>.csv"`.',
    ),
    Vary: always('`accept`: the answer depends on the Accept header.', {
      type: 'string',
      enum: ['accept'],
    }),
  };
}

/** ETag, Location and Idempotent-Replayed where the service sends them. */
function successHeaders(doc: Document, op: Operation): void {
  const idempotent = (op.parameters ?? []).some(
    (p) => p.in === 'header' && p.name === 'idempotency-key',
  );
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const headers: Record<string, Json> = { ...response.headers };
    const ref = jsonSchemaOf(response)?.$ref;
    const schema =
      typeof ref === 'string'
        ? doc.components.schemas[ref.split('/').at(-1)!]
        : jsonSchemaOf(response);
    const required = (schema?.required as string[] | undefined) ?? [];
    if (required.includes('version'))
      headers.ETag = always(
        'The version as a strong entity tag (`"3"`); send it back in If-Match.',
      );
    if (status === '201') headers.Location = always('Path of the created record.');
    if (idempotent)
      headers['Idempotent-Replayed'] = header(
        '`true` when this is a stored answer replayed for a repeated Idempotency-Key.',
        { type: 'string', enum: ['true'] },
      );
    if (Object.keys(headers).length > 0) response.headers = headers;
  }
}

/**
 * The rate limit runs once the bearer is known: every answer of an authenticated operation
 * carries RateLimit-* except those given before it (401 unknown credential, 403 role, 414 from
 * the router).
 */
function rateLimitHeaders(op: Operation): void {
  if (!(op.security ?? []).some((s) => 'bearer' in s)) return;
  for (const [status, response] of Object.entries(op.responses ?? {}))
    if (/^[24]/.test(status) && !BEFORE_RATE_LIMIT.includes(status) && !response.$ref)
      response.headers = { ...response.headers, ...RATE_HEADERS };
}

/**
 * Integers as they are checked and sent: what a client sends is bounded to PostgreSQL's
 * `integer` (`boundIntegers`, int32); what Kontor sends is a JavaScript number (int64 within
 * ±2^53 − 1).
 */
function integerBounds(schema: unknown, input: boolean): void {
  if (Array.isArray(schema)) return schema.forEach((s) => integerBounds(s, input));
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Json;
  const types = [s.type].flat();
  if (types.includes('integer')) {
    const [lo, hi] = input
      ? [INT32_MIN, INT32_MAX]
      : [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    s.format ??= input ? 'int32' : 'int64';
    s.minimum = typeof s.minimum === 'number' ? Math.max(s.minimum, lo) : lo;
    s.maximum = typeof s.maximum === 'number' ? Math.min(s.maximum, hi) : hi;
  }
  for (const value of Object.values(s)) if (typeof value === 'object') integerBounds(value, input);
}

/**
 * The extension members problems carry besides `code`, `requestId`, `currentVersion` and
 * `errors` (the `members` of the AppErrors that send them), so a client can read them typed.
 */
function problemMembers(doc: Document): void {
  const problem = doc.components.schemas.Problem;
  const properties = problem?.properties as Record<string, Json> | undefined;
  if (!properties) throw new Error('The Problem schema has no properties');
  const strings = (description: string) => ({
    type: 'array',
    items: { type: 'string' },
    description,
  });
  const count = (description: string) => ({ type: 'integer', minimum: 0, description });
  const compiled = doc.components.schemas.CompileDocumentTemplateResponse?.properties as
    Record<string, Json> | undefined;
  const templateProblem = (compiled?.problems?.items as Json | undefined) ?? { type: 'object' };
  Object.assign(properties, {
    problems: {
      type: 'array',
      items: named(doc, 'TemplateProblem', templateProblem),
      description: 'template_invalid: what keeps the template from being saved as sent.',
    },
    exceeded: strings('plan_limit_exceeded: each usage the target plan does not cover.'),
    referencedBy: strings('in_use: what still refers to the record.'),
    retainedUntil: {
      type: 'string',
      format: 'date',
      description: 'in_use: the day until which the law requires keeping the record.',
    },
    limit: count('quota_exceeded (mails): the mails per day the plan includes.'),
    usedBytes: count('storage_limit_exceeded: bytes stored now.'),
    limitBytes: count('storage_limit_exceeded: bytes the plan includes.'),
    undecidedCount: count('state_conflict on finalize: transactions not yet decided.'),
  });
  if (compiled?.problems) compiled.problems.items = named(doc, 'TemplateProblem', templateProblem);
}

/** Short descriptions of the tags (the modules), in the order the docs list them. */
const TAGS: Record<string, string> = {
  auth: 'Registration, sign-in, sessions and password recovery.',
  web: 'The web app’s own sign-in (session cookie) and the one-time setup link.',
  users: 'The users of the account: invitations, roles, removal.',
  'api-tokens': 'Personal API tokens.',
  account: 'Account settings, company data and addresses.',
  billing: 'How the account pays for Kontor.',
  plans: 'Plans, licenses and usage.',
  partners: 'Customers and vendors.',
  contracts: 'Contracts with partners.',
  products: 'Products and services with prices.',
  'tax-rates': 'Tax rates and categories.',
  documents: 'Invoices, credit notes and letters; e-invoices.',
  'document-templates': 'Templates documents are generated from.',
  'customer-links':
    'Signed links to a FINAL invoice’s or quote’s page for the customer (no sign-in), and their settings.',
  payments: 'Incoming and outgoing payments.',
  'bank-statement-imports': 'Bank statements: import, review, book.',
  budgets: 'Budget categories and entries.',
  dashboard: 'Cash position and figures.',
  exports: 'Hand-off to the tax advisor: the DATEV export and its settings.',
  dunning: 'Payment reminders and dunning letters (Mahnwesen): runs and settings.',
  sepa: 'SEPA: direct-debit mandates, partners’ bank accounts, collections (pain.008) and transfers (pain.001).',
  notes: 'Notes and reminders on records.',
  files: 'Uploaded and generated files.',
  newsletter: 'Newsletter sign-up and subscriptions.',
  audit: 'The tamper-evident audit trail.',
  webhooks: 'Events from the payment provider.',
  'webhook-endpoints': 'Outbound webhooks: endpoints, signing secrets, deliveries.',
  health: 'Liveness and readiness.',
};

/** The finished document: run by @fastify/swagger's `transformObject`. */
export function refineOpenApi(input: Json): Json {
  // A copy: the routes' schemas stay as Fastify compiled them.
  const doc = structuredClone(input) as Document;
  doc.components.schemas ??= {};
  doc.servers ??= [
    {
      url: '/',
      description:
        'The server that serves this document: local (embedded), staging or production alike.',
      'x-internal': false,
    },
  ];
  doc.tags = Object.entries(TAGS).map(([name, description]) => ({ name, description }));
  for (const [path, item] of Object.entries(doc.paths)) {
    const methods = METHODS.filter((m) => item[m]);
    for (const method of methods) {
      const op = item[method]!;
      op.operationId = operationIdOf(method, path, methods);
      // A body whose fields are all optional may be left out (http/optional-body.ts).
      if (op.requestBody && bodyIsOptional(jsonSchemaOf(op.requestBody)))
        op.requestBody.required = false;
      problemJson(op);
      commonResponses(path, method, op);
      if (method === 'get') csvAlternative(op);
    }
  }
  // Names after ids: a schema is named by the first operation (in path order) that answers it.
  for (const item of Object.values(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      integerBounds(op.parameters, true);
      integerBounds(op.requestBody, true);
      integerBounds(op.responses, false);
      nameSchemas(doc, op);
      successHeaders(doc, op);
      rateLimitHeaders(op);
    }
  problemMembers(doc);
  integerBounds(doc.components.schemas, false);
  shareResponses(doc);
  for (const [name, example] of Object.entries(RESOURCE_EXAMPLES)) {
    const schema = doc.components.schemas[name];
    if (!schema) throw new Error(`The example names ${name}, which is no schema`);
    schema.example = example;
  }
  return doc;
}
