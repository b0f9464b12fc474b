import fs from 'node:fs';
import path from 'node:path';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormatsImport from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import sjson from 'secure-json-parse';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { migrate, openDatabase, statisticsOff, type Database } from './db/database.js';
import { findBadDates } from './db/date-check.js';
import { sealAllAudit, setAuditLogger, settleAudit } from './shared/audit.js';
import { LogOutput } from './shared/log-output.js';
import { AccessLog, loggedUrl } from './http/access-log.js';
import { registerAuth } from './http/auth.js';
import { registerWebApp, type AppShell } from './http/web-app.js';
import { AppError } from './shared/errors.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerCsv } from './http/csv.js';
import { builtAnswers } from './http/built-answers.js';
import { boundIntegers, registerInputLimits } from './http/input-limits.js';
import { registerOptionalBodies } from './http/optional-body.js';
import {
  frameworkProblem,
  registerProblemHandlers,
  sendProblem,
  writeClientError,
} from './http/problem.js';
import { refineOpenApi } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limit.js';
import { AccountPlans, loadPlanCatalogue, UsageMeter, planRoutes } from './modules/plans/index.js';
import { ProblemSchema } from './http/schemas.js';
import {
  AddressSchema,
  DashboardWidgetSettingsSchema,
  accountRoutes,
  findAccount,
  lockAccount,
} from './modules/account/index.js';
import { apiTokenRoutes } from './modules/api-tokens/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { BankAccountSchema, CardSchema, billingRoutes } from './modules/billing/index.js';
import { CredentialCache, credentialLookup, authRoutes } from './modules/auth/index.js';
import { healthRoutes } from './modules/health/index.js';
import { createBackupSchedule } from './modules/backups/index.js';
import { contractRoutes } from './modules/contracts/index.js';
import {
  customerLinkIssuer,
  customerLinkRoutes,
  customerPageRoutes,
} from './modules/customer-pages/index.js';
import { dunningRoutes } from './modules/dunning/index.js';
import { recurringInvoiceRoutes } from './modules/recurring-invoices/index.js';
import { newsletterRoutes } from './modules/newsletter/index.js';
import { noteRoutes } from './modules/notes/index.js';
import { partnerRoutes } from './modules/partners/index.js';
import { webhookRoutes } from './modules/webhooks/index.js';
import { webhookEndpointRoutes } from './modules/webhook-endpoints/index.js';
import { productRoutes } from './modules/products/index.js';
import { taxRateRoutes } from './modules/tax-rates/index.js';
import { userRoutes } from './modules/users/index.js';
import { budgetRoutes } from './modules/budgets/index.js';
import { documentTemplateRoutes, TemplateFieldSchema } from './modules/document-templates/index.js';
import { documentRoutes } from './modules/documents/index.js';
import { fileRoutes, createStorage } from './modules/files/index.js';
import { paymentRoutes } from './modules/payments/index.js';
import { dashboardRoutes } from './modules/dashboard/index.js';
import { bankImportRoutes } from './modules/bank-imports/index.js';
import { exportRoutes } from './modules/exports/index.js';
import { sepaRoutes } from './modules/sepa/index.js';
import { PdfRenderer } from './shared/pdf/renderer.js';
import { DbJobQueue } from './shared/jobs.js';
import { systemClock, type Clock } from './shared/clock.js';
import { MemoryCounterStore, RedisCounterStore, type CounterStore } from './shared/counters.js';
import { closePdfWorkers } from './shared/pdf/worker-pool.js';
import { createMailer, outboxDir, type Mailer } from './shared/mail.js';
import { randomBase62 } from './shared/secrets.js';
import { KONTOR_VERSION } from './shared/version.js';
import type { Access, App } from './http/types.js';

export type { App } from './http/types.js';

/** Schemas referenced by `$ref` from routes: one definition, one OpenAPI component each. */
const SHARED_SCHEMAS = [
  ProblemSchema,
  AddressSchema,
  DashboardWidgetSettingsSchema,
  CardSchema,
  BankAccountSchema,
  TemplateFieldSchema,
];

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/**
 * Compiled validators and serializers, by schema, for every app this process builds. Compiling
 * the schemas of ~130 routes takes about a second of CPU when an app first gets ready; a test
 * run builds an app per test file (and the bench in-process ones), so each schema is compiled
 * once per process instead of once per app. The key is the schema's JSON (route schemas are
 * plain data), with the part it validates or the shared schemas it may reference.
 */
const compiled = {
  validators: new Map<string, (data: unknown) => boolean>(),
  serializers: new Map<string, (data: unknown) => string>(),
};
let sharedValidators: ReturnType<typeof createValidators> | undefined;

type SerializerFactory = ReturnType<typeof SerializerSelector>;
/** Fastify's own serializer compiler (fast-json-stringify), kept per schema (see `compiled`). */
const cachedSerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  const shared = Object.keys(externalSchemas ?? {}).join(',');
  return (route) => {
    const key = `${shared}|${JSON.stringify(route.schema)}`;
    let serializer = compiled.serializers.get(key);
    if (!serializer) compiled.serializers.set(key, (serializer = compile(route)));
    return serializer;
  };
};

/** Body: exact types, unknown fields rejected. Query, params, headers: strings coerced to the declared type. */
function createValidators() {
  const base: AjvOptions = {
    allErrors: true,
    strict: false,
    removeAdditional: false,
    useDefaults: true,
  };
  const body = addFormats(new Ajv({ ...base, coerceTypes: false }));
  const other = addFormats(new Ajv({ ...base, coerceTypes: 'array' }));
  for (const schema of SHARED_SCHEMAS) {
    body.addSchema(boundIntegers(schema));
    other.addSchema(boundIntegers(schema));
  }
  return { body, other };
}

export interface BuildOptions {
  clock?: Clock;
  mailer?: Mailer;
  logger?: FastifyServerOptions['logger'];
  /** Where the production log configuration writes (default stdout); used by the bench. */
  logStream?: NodeJS.WritableStream;
  /**
   * pg-boss's schema on PostgreSQL (default `pgboss`). The test suite gives each of its workers
   * its own, so one worker's `drain()` never runs another's jobs.
   */
  jobsSchema?: string;
  /** The built web app to serve (default `web/dist`); false serves the API alone. */
  webDist?: string | false;
}

/** The app secret: `APP_SECRET`, or one generated on first start and kept in `DATA_DIR`. */
function loadAppSecret(config: Config): string {
  if (config.appSecret) return config.appSecret;
  const file = path.join(config.dataDir, 'secrets.json');
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { appSecret?: string };
    if (stored.appSecret) return stored.appSecret;
  } catch {
    // not there yet: generated below
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const appSecret = randomBase62(48);
  fs.writeFileSync(file, JSON.stringify({ appSecret }, null, 2), { mode: 0o600, flag: 'wx' });
  return appSecret;
}

function loggerOptions(
  config: Config,
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    // Standard output is written asynchronously and in batches (4 KB or 200 ms, whichever
    // comes first; shared/log-output.ts), which writes what is left when the process exits,
    // also on a fatal error.
    stream: stream ?? new LogOutput(),
    // Credentials never reach the log, whatever a future serializer adds.
    redact: {
      // Fixed paths only: wildcard paths cost a walk of every logged object.
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers.cookie',
        'body.password',
        'body.newPassword',
        'body.code',
        'body.refreshToken',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        // Signed links carry their token in the query string or a customer page's path.
        url: loggedUrl(req.url),
        ip: req.ip,
      }),
    },
  };
}

// Request ids: a random per-process prefix and a counter; unique across replicas, and no
// CSPRNG call per request.
const requestIdPrefix = randomBase62(10);
let requestCounter = 0;
const nextRequestId = () => `req_${requestIdPrefix}${(requestCounter++).toString(36)}`;

/**
 * Fastify's own hop count trusts no peer at all (it cannot tell who the nearest one is), so a
 * count becomes a function that trusts that many peers from the socket outwards; an address
 * list goes to Fastify's proxy-addr as it is. Either way `req.ip` is the right-most address
 * that no trusted proxy added, never an entry the client wrote left of it.
 */
function proxyTrust(trust: Config['trustProxy']) {
  return typeof trust === 'number' ? (_addr: string, hop: number) => hop < trust : trust;
}

/** The Fastify instance: logging, request ids, limits, and problems from the framework too. */
function createServer(config: Config, options: BuildOptions) {
  return Fastify({
    logger: options.logger ?? loggerOptions(config, options.logStream),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming)
        ? incoming
        : nextRequestId();
    },
    requestIdHeader: false,
    // The app's own logger gets the access line written directly (http/access-log.ts).
    logController: new AccessLog(options.logger === undefined),
    bodyLimit: config.bodyLimit,
    trustProxy: proxyTrust(config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Every answer is a problem, also from the router (a path segment over maxParamLength is
    // 414, a broken percent-encoding 400) and from Node's HTTP parser.
    frameworkErrors: (err, req, reply) => {
      void sendProblem(req, reply, ...(frameworkProblem(err) ?? ['bad_request', err.message]));
    },
    clientErrorHandler: (err, socket) => writeClientError(err, socket, nextRequestId()),
    schemaController: { compilersFactory: { buildSerializer: cachedSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();
}

/**
 * After migrating: a warning with the count of stored dates the API refuses today (rows from
 * before dates were checked, or written by hand), so an operator learns of them at the
 * upgrade; `kontor doctor` lists them (docs/operations.md, "Dates").
 */
async function warnOfBadDates(db: Database['db'], log: FastifyBaseLogger, clock: Clock) {
  const bad = await findBadDates(db, clock.now());
  if (bad.length > 0)
    log.warn(
      { count: bad.length },
      `${bad.length} stored date(s) are impossible or out of range; run \`npx kontor doctor\` to list them`,
    );
}

/**
 * After migrating, on PostgreSQL without autovacuum: a warning that the planner has no
 * statistics (`statisticsOff`), with what to do, since nothing else would tell the operator.
 */
async function warnOfNoStatistics(database: Database, log: FastifyBaseLogger) {
  if (await statisticsOff(database.db, database.kind))
    log.warn(
      'PostgreSQL runs without autovacuum (autovacuum or track_counts is off): unless ANALYZE is run, its planner gets no column statistics and keeps plans made while tables were small, so reads may come to scan whole accounts as they grow. Turn autovacuum on (the default), or run ANALYZE regularly.',
    );
}

/** Database (migrated, pending audit chained) and, with `REDIS_URL`, two Redis connections. */
async function openBackends(config: Config, log: FastifyBaseLogger, clock: Clock) {
  const database = openDatabase(config, log);
  let redis: Redis | undefined;
  let subscriber: Redis | undefined;
  try {
    await migrate(database.db);
    await warnOfBadDates(database.db, log, clock);
    await warnOfNoStatistics(database, log);
    // Events a previous process committed but did not live to chain (audit.ts).
    setAuditLogger(log);
    await sealAllAudit(database.db);
    if (config.redisUrl) {
      // Auto-pipelining: the commands of one event-loop turn (every request's rate-limit
      // script under load) go out in one write.
      const redisOptions = {
        maxRetriesPerRequest: 2,
        lazyConnect: true,
        enableAutoPipelining: true,
      };
      redis = new Redis(config.redisUrl, redisOptions);
      subscriber = new Redis(config.redisUrl, redisOptions);
      redis.on('error', (err) => log.error({ err }, 'redis error'));
      subscriber.on('error', (err) => log.error({ err }, 'redis subscriber error'));
      await Promise.all([redis.connect(), subscriber.connect()]);
    }
  } catch (err) {
    redis?.disconnect();
    subscriber?.disconnect();
    await database.close();
    throw err;
  }
  return { database, redis, subscriber };
}

/** The services every module receives (`AppContext`), built on the open backends. */
async function createContext(
  config: Config,
  options: BuildOptions,
  log: FastifyBaseLogger,
  { database, redis, subscriber }: Awaited<ReturnType<typeof openBackends>>,
): Promise<AppContext> {
  const clock = options.clock ?? systemClock;
  const counters: CounterStore = redis
    ? new RedisCounterStore(redis)
    : new MemoryCounterStore(() => clock.now().getTime());
  const credentials = new CredentialCache({
    ttlMs: 60_000,
    now: () => Date.now(),
    externalChangeCounter: database.externalChangeCounter,
    publisher: redis,
    logger: log,
  });
  if (subscriber) await credentials.listen(subscriber);

  const plans = loadPlanCatalogue(config.plansFile);
  const appSecret = loadAppSecret(config);
  return {
    config,
    plans,
    accountPlans: new AccountPlans(database.db, plans, { findAccount, lockAccount }),
    usage: new UsageMeter(database.db, counters, log),
    database,
    db: database.db,
    clock,
    mailer: options.mailer ?? mailerOf(config, log),
    counters,
    credentials,
    appSecret,
    storage: await createStorage(config, appSecret),
    renderer: new PdfRenderer(config, log),
    // PostgreSQL: pg-boss (retries, dead letters, schedules once across replicas), loaded only
    // there; SQLite: the embedded `jobs` table. One interface for both.
    jobs:
      config.database.kind === 'postgres'
        ? new (await import('./shared/pgboss-jobs.js')).PgBossJobQueue({
            connectionString: config.database.url,
            logger: log,
            pollMs: config.jobPollIntervalMs,
            schema: options.jobsSchema,
          })
        : new DbJobQueue({
            db: database.db,
            clock,
            logger: log,
            pollMs: config.jobPollIntervalMs,
          }),
    backups: createBackupSchedule({ config, database, clock, logger: log }),
    logger: log,
  };
}

/**
 * The configured mailer. Without `SMTP_URL` mail only lands in the outbox directory; an
 * operator who expects invoices to reach customers is told once, at start, what to set.
 */
function mailerOf(config: Config, log: FastifyBaseLogger): Mailer {
  const mailer = createMailer(config);
  if (mailer.delivery === 'outbox')
    log.warn(
      { outbox: outboxDir(config.dataDir) },
      'SMTP_URL is not set: mail does not leave this machine — every message (invoices, sign-up codes, reminders) is only written as a file to the outbox directory. Set SMTP_URL to send through a mail server.',
    );
  return mailer;
}

/** What closing the app closes, in order: work first, then connections, the database last. */
function closeWithApp(app: App, ctx: AppContext, redis: Redis | undefined): void {
  app.addHook('onClose', async () => {
    await ctx.jobs.close();
    await ctx.usage.close();
    ctx.credentials.close();
    ctx.mailer.close();
    await ctx.renderer.close();
    // The process's PDF worker threads end with the app; a later job would start new ones.
    await closePdfWorkers();
    await ctx.storage.close();
    // Leased rate-limit counts go back before the connection does.
    await ctx.counters
      .close?.()
      .catch((err: unknown) => ctx.logger.warn({ err }, 'lease release failed'));
    redis?.disconnect();
    // Audit events committed a moment ago are chained before the database goes.
    await settleAudit(ctx.db);
    await ctx.database.close();
  });
}

/** Validation (exact bodies, bounded integers) and JSON parsing (anything else is 415). */
function registerParsing(app: App): void {
  const validators = (sharedValidators ??= createValidators());
  // Integers are bounded to what the database's integer columns hold (input-limits.ts).
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const key = `${httpPart === 'body' ? 'body' : 'other'}|${JSON.stringify(schema)}`;
    let validate = compiled.validators.get(key);
    if (!validate) {
      const ajv = httpPart === 'body' ? validators.body : validators.other;
      compiled.validators.set(key, (validate = ajv.compile(boundIntegers(schema))));
    }
    return validate;
  });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  // JSON only: anything else answers 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, sjson.parse(body, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new AppError('malformed_json', 'The request body is not valid JSON.'), undefined);
    }
  });
}

/** The OpenAPI document (`/openapi.json`, refined by http/openapi.ts) and its UI at `/docs`. */
async function registerDocs(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kontor API',
        version: KONTOR_VERSION,
        description:
          'Back-office API for small businesses. Every `/v1` endpoint needs `x-api-key` (the client application) and, unless noted, `Authorization: Bearer` (a personal API token or a session access token). Errors are RFC 9457 problems.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
          webClient: {
            type: 'apiKey',
            in: 'header',
            name: 'x-kontor-client',
            description:
              'The web app: the value `web`, public by design. It grants nothing alone: on user routes only with the access token of a web sign-in, on the auth routes that take it only with the secret the person has (docs/web.md).',
          },
          webSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'kontor_session',
            description: 'The HttpOnly cookie holding a web session’s refresh token.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        (json.$id as string | undefined) ?? `def-${i}`,
    },
    transformObject: (document) =>
      'openapiObject' in document
        ? (refineOpenApi(
            document.openapiObject as Record<string, unknown>,
          ) as typeof document.openapiObject)
        : document.swaggerObject,
    transform: ({ schema, url, route }) => {
      const access = route.config?.access;
      const security = securityOf(access, route.config);
      const adminWhen = route.config?.adminWhen?.what;
      const description =
        access === 'admin'
          ? 'Needs the admin role.'
          : adminWhen && `Needs the admin role for ${adminWhen}.`;
      const response = schema?.response as Record<string, unknown> | undefined;
      return {
        schema: {
          ...schema,
          security,
          ...(access === 'admin' && !schema?.description ? { description } : {}),
          ...(adminWhen
            ? { description: `${schema?.description ?? ''} ${description}`.trim() }
            : {}),
          // The role check answers 403 on every admin route, declared or not.
          ...(description && response && !response['403']
            ? { response: { ...response, 403: { $ref: 'Problem', description } } }
            : {}),
        },
        url,
      };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get(
    '/openapi.json',
    { config: { access: 'public' }, schema: { hide: true } },
    (_req, reply) => reply.type('application/json').send(app.swagger()),
  );
}

/**
 * A route's security requirements: the client key, or for the web app (docs/web.md) its
 * client header (`webClient`), the bearer for a user, and the session cookie where a web
 * route reads it.
 */
function securityOf(
  access: Access | undefined,
  config: { webClient?: boolean; webSession?: boolean } | undefined,
): Record<string, string[]>[] {
  switch (access) {
    case 'apiKey':
      return config?.webClient === true ? [{ apiKey: [] }, { webClient: [] }] : [{ apiKey: [] }];
    case 'user':
    case 'admin':
      return [
        { apiKey: [], bearer: [] },
        { webClient: [], bearer: [] },
      ];
    case 'public':
      if (config?.webSession === true) return [{ webClient: [], webSession: [] }];
      return config?.webClient === true ? [{ webClient: [] }] : [];
    case undefined:
      return [];
  }
}

/** Every module's routes, in one plugin. */
async function registerModules(app: App, ctx: AppContext): Promise<void> {
  await app.register((child, _opts, done) => {
    const typed = child as unknown as App;
    for (const routes of [
      healthRoutes,
      authRoutes,
      apiTokenRoutes,
      userRoutes,
      accountRoutes,
      auditRoutes,
      partnerRoutes,
      taxRateRoutes,
      productRoutes,
      contractRoutes,
      recurringInvoiceRoutes,
      billingRoutes,
      planRoutes,
      noteRoutes,
      newsletterRoutes,
      webhookRoutes,
      webhookEndpointRoutes,
      budgetRoutes,
      fileRoutes,
      documentTemplateRoutes,
      documentRoutes,
      paymentRoutes,
      dashboardRoutes,
      bankImportRoutes,
      exportRoutes,
      dunningRoutes,
      customerLinkRoutes,
      customerPageRoutes,
      sepaRoutes,
    ])
      routes(typed, ctx);
    done();
  });
}

/** Builds the app: plugins, error handling, authentication and every module. Never listens. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const app = createServer(config, options);
  app.addHook('onRoute', builtAnswers(cachedSerializers));
  const backends = await openBackends(config, app.log, options.clock ?? systemClock);
  const ctx = await createContext(config, options, app.log, backends);
  ctx.customerLinks = customerLinkIssuer(ctx);
  app.decorate('ctx', ctx);
  closeWithApp(app, ctx, backends.redis);
  registerParsing(app);
  // Before any route: the deny-by-default check must see every route, plugins' too.
  // The web app's shell answers app routes no API route serves (set once the app is found).
  let appShell: AppShell | undefined;
  registerProblemHandlers(app, {
    onStorageFull: () => ctx.database.reportStorageFull(),
    appShell: (req, reply) => appShell?.(req, reply) ?? false,
  });
  registerInputLimits(app);
  registerOptionalBodies(app);
  registerAuth(app, ctx, credentialLookup);
  registerRateLimits(app, ctx);
  registerIdempotency(app, ctx);
  // Before the modules: every list route they register also answers CSV.
  registerCsv(app, { now: () => ctx.clock.now() });
  await registerDocs(app);
  await registerModules(app, ctx);
  if (options.webDist !== false) appShell = await registerWebApp(app, options.webDist);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
