import path from 'node:path';
import proxyAddr from '@fastify/proxy-addr';

/**
 * One declaration per setting: its environment name, what it does, its embedded default and how
 * it is parsed. The README's configuration table is generated from this list
 * (`npm run docs:config`), so the two cannot drift apart.
 */
interface Setting<T> {
  env: string;
  description: string;
  /** Shown in the README; `undefined` means "not set". */
  defaultText: string;
  parse: (raw: string | undefined) => T;
}

export class ConfigError extends Error {
  constructor(env: string, problem: string) {
    super(`Invalid configuration: ${env} ${problem}`);
    this.name = 'ConfigError';
  }
}

function str(env: string, description: string, fallback?: string): Setting<string | undefined> {
  return {
    env,
    description,
    defaultText: fallback === undefined ? '—' : `\`${fallback}\``,
    parse: (raw) => (raw === undefined || raw === '' ? fallback : raw),
  };
}

function int(env: string, description: string, fallback: number, min: number, max: number) {
  return {
    env,
    description,
    defaultText: `\`${fallback}\``,
    parse: (raw: string | undefined): number => {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw)) throw new ConfigError(env, `must be a whole number, got "${raw}"`);
      const value = Number(raw);
      if (value < min || value > max)
        throw new ConfigError(env, `must be between ${min} and ${max}, got ${value}`);
      return value;
    },
  } satisfies Setting<number>;
}

function oneOf<const T extends string>(
  env: string,
  description: string,
  values: readonly T[],
  fallback: T,
): Setting<T> {
  return {
    env,
    description: `${description} One of ${values.map((v) => `\`${v}\``).join(', ')}.`,
    defaultText: `\`${fallback}\``,
    parse: (raw) => {
      if (raw === undefined || raw === '') return fallback;
      if (!(values as readonly string[]).includes(raw))
        throw new ConfigError(env, `must be one of ${values.join(', ')}, got "${raw}"`);
      return raw as T;
    },
  };
}

function url(env: string, description: string, protocols: string[]): Setting<string | undefined> {
  return {
    env,
    description,
    defaultText: '—',
    parse: (raw) => {
      if (raw === undefined || raw === '') return undefined;
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        throw new ConfigError(env, 'is not a valid URL');
      }
      if (!protocols.includes(parsed.protocol))
        throw new ConfigError(env, `must use one of ${protocols.join(', ')}`);
      return raw;
    },
  };
}

/** Who may name the client's address: nobody, the nearest `n` peers, or these ranges. */
export type TrustProxy = false | number | string[];

function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (/^true$/i.test(value))
    throw new ConfigError(
      'TRUST_PROXY',
      'must not be true: it believes every X-Forwarded-For entry, so any client could choose the address it is throttled and audited under. Set the number of proxies in front of Kontor (TRUST_PROXY=1) or their addresses and CIDR ranges (TRUST_PROXY=10.0.0.5,10.1.0.0/16); false ignores the header',
    );
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) throw new ConfigError('TRUST_PROXY', `must be at most 10 hops, got ${hops}`);
    return hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    try {
      // The parser Fastify trusts the list with, so what passes here is what it will match.
      proxyAddr.compile(entry);
    } catch {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be false, a number of hops, or comma-separated IP addresses and CIDR ranges (or loopback, linklocal, uniquelocal); "${entry}" is none of these`,
      );
    }
  }
  return entries;
}

export const settings = {
  port: int('PORT', 'TCP port the HTTP server listens on (0: any free port).', 3000, 0, 65535),
  host: str('HOST', 'Interface the HTTP server binds to (`0.0.0.0` in containers).', '127.0.0.1'),
  dataDir: str(
    'DATA_DIR',
    'Directory for the embedded database, files, mail outbox and generated secrets.',
    './data',
  ),
  databaseUrl: {
    env: 'DATABASE_URL',
    description:
      'Database. Unset: embedded SQLite at `DATA_DIR/kontor.sqlite`. `postgres://user:pass@host/db` selects PostgreSQL 15+; `sqlite:/path/file.sqlite` selects another SQLite file.',
    defaultText: '—',
    parse: (raw: string | undefined): string | undefined => {
      if (raw === undefined || raw === '') return undefined;
      if (!/^(postgres(ql)?:\/\/|sqlite:)/.test(raw))
        throw new ConfigError(
          'DATABASE_URL',
          'must start with postgres://, postgresql:// or sqlite:',
        );
      return raw;
    },
  } satisfies Setting<string | undefined>,
  redisUrl: url(
    'REDIS_URL',
    'Redis or a Redis-compatible server such as Valkey, for counters shared by all replicas (login throttling, rate limits, quotas) and the token-revocation broadcast. Unset: in-process counters.',
    ['redis:', 'rediss:'],
  ),
  smtpUrl: url(
    'SMTP_URL',
    'SMTP server for outgoing mail (`smtp://user:pass@host:587`, `smtps://…`). Unset: mail is only written to `DATA_DIR/outbox/*.eml` and does not leave the machine (a warning at start says so; a sent document answers `delivery: outbox`).',
    ['smtp:', 'smtps:'],
  ),
  mailFrom: str(
    'MAIL_FROM',
    'Sender (From) of all outgoing mail, e.g. `Firma GmbH <rechnung@firma.example>`; an address your SMTP server may send as. Documents sent to partners carry the company’s email (account company settings) as Reply-To, so answers reach the company.',
    'Kontor <no-reply@kontor.local>',
  ),
  publicUrl: str(
    'PUBLIC_URL',
    'Public base URL of the service, used in mail links and signed URLs. Default: `http://HOST:PORT`.',
  ),
  apiKeys: {
    env: 'API_KEYS',
    description:
      'Comma-separated client API keys accepted besides those created with `npx kontor api-keys create` (each at least 20 characters).',
    defaultText: '—',
    parse: (raw: string | undefined): string[] => {
      if (raw === undefined || raw.trim() === '') return [];
      const keys = raw
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '');
      for (const key of keys)
        if (key.length < 20)
          throw new ConfigError('API_KEYS', 'entries must be at least 20 characters');
      return keys;
    },
  } satisfies Setting<string[]>,
  appSecret: str(
    'APP_SECRET',
    'Secret (≥ 32 characters) that keys code hashes and signed links. Unset: generated once and kept in `DATA_DIR/secrets.json`. Set it to the same value on every replica.',
  ),
  providerWebhookSecret: str(
    'PROVIDER_WEBHOOK_SECRET',
    'HMAC secret of the payment provider webhook (`Provider-Signature`).',
  ),
  stripeWebhookSecret: str(
    'STRIPE_WEBHOOK_SECRET',
    'Signing secret of Stripe webhooks (`whsec_…`).',
  ),
  paymentProviderSecretKey: str(
    'PAYMENT_PROVIDER_SECRET_KEY',
    'Secret API key of the card payment provider (Stripe, `sk_…`). Set: a customer page of an invoice with an open amount offers to pay by card through the provider’s hosted checkout; the payment is recorded by its webhook (docs/customer-page.md). Unset: no card payment.',
  ),
  paymentProviderApiUrl: {
    ...url(
      'PAYMENT_PROVIDER_API_URL',
      'Base URL of the payment provider’s API (Stripe’s REST API).',
      ['https:', 'http:'],
    ),
    defaultText: '`https://api.stripe.com`',
  } satisfies Setting<string | undefined>,
  customerPageRequestsPerMinute: int(
    'CUSTOMER_PAGE_REQUESTS_PER_MINUTE',
    'Requests per minute and client IP to the customer pages (`/c/…`); past it 429. `RATE_LIMITS=off` lifts it too.',
    60,
    1,
    100_000,
  ),
  logLevel: oneOf(
    'LOG_LEVEL',
    'Minimum level of the JSON logs on stdout.',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
    'info',
  ),
  rateLimits: oneOf(
    'RATE_LIMITS',
    '`off` lifts rate limits and quotas (self-hosted single tenant, benchmarks). Login throttling stays on.',
    ['on', 'off'] as const,
    'on',
  ),
  bodyLimit: int(
    'BODY_LIMIT',
    'Largest accepted JSON request body, in bytes.',
    1_048_576,
    1024,
    104_857_600,
  ),
  passwordMinLength: int('PASSWORD_MIN_LENGTH', 'Shortest accepted password.', 12, 8, 256),
  plansFile: str(
    'PLANS_FILE',
    'JSON file with the plan catalogue (seats, requests per minute and month, storage, price); must contain FREE. Unset: the built-in FREE, STARTER, BUSINESS.',
  ),
  trustProxy: {
    env: 'TRUST_PROXY',
    description:
      'Which proxies may name the client’s address in `X-Forwarded-For` (used for throttling and audit); the client is the right-most address no trusted proxy added. `false`: none, the header is ignored. A hop count (`1`) trusts the nearest peers whoever they are: only where nothing but the proxy reaches Kontor. Else the proxies’ addresses and CIDR ranges, comma-separated (`10.0.0.5,10.1.0.0/16`, `loopback`). `true` is refused.',
    defaultText: '`false`',
    parse: parseTrustProxy,
  } satisfies Setting<TrustProxy>,
  reminderIntervalMs: int(
    'REMINDER_INTERVAL_MS',
    'How often this process runs its scheduled work, in ms (0: never): mailing due reminders (each goes out once, safe on many replicas), making the invoices of contracts’ billing plans that are due (each period once), running the dunning of accounts that enabled it (once a day each), announcing invoices that became overdue (`document.overdue`), and removing uploads that never arrived (PENDING files an hour past their upload URL).',
    60_000,
    0,
    86_400_000,
  ),
  s3Endpoint: url(
    'S3_ENDPOINT',
    'S3-compatible endpoint (`https://s3.eu-central-1.amazonaws.com`, a MinIO or Ceph URL). Unset with `S3_BUCKET` set: AWS S3 of `S3_REGION`.',
    ['http:', 'https:'],
  ),
  s3Bucket: str(
    'S3_BUCKET',
    'Bucket for uploaded and generated files. Set: files live in S3-compatible storage. Unset: on local disk under `DATA_DIR/files`.',
  ),
  s3Region: str('S3_REGION', 'Region of the S3 bucket.', 'us-east-1'),
  s3AccessKeyId: str(
    'S3_ACCESS_KEY_ID',
    'S3 access key id. Unset: the AWS SDK default credential chain.',
  ),
  s3SecretAccessKey: str('S3_SECRET_ACCESS_KEY', 'S3 secret access key.'),
  s3ForcePathStyle: oneOf(
    'S3_FORCE_PATH_STYLE',
    'Path-style bucket addressing (`true` for MinIO and most S3-compatible servers).',
    ['true', 'false'] as const,
    'true',
  ),
  maxUploadBytes: int(
    'MAX_UPLOAD_BYTES',
    'Largest accepted uploaded file, in bytes.',
    26_214_400,
    1024,
    1_073_741_824,
  ),
  imageMaxPixels: int(
    'IMAGE_MAX_PIXELS',
    'Most pixels (width × height) an uploaded or referenced PNG, JPEG or WebP image may have; larger ones are refused with 422. Read from the image header, never decoded.',
    40_000_000,
    1,
    1_000_000_000,
  ),
  imageMaxSide: int(
    'IMAGE_MAX_SIDE',
    'Most pixels on either side of an uploaded or referenced image; longer ones are refused with 422.',
    10_000,
    1,
    100_000,
  ),
  templateRenderLimitMs: int(
    'TEMPLATE_RENDER_LIMIT_MS',
    "Time budget of one document template render (header, content and footer together) for templates an account wrote or edited; a template that runs longer is refused with 422 `limit_exceeded` (loops, allocations and output are capped separately). Kontor's own unedited templates have no time budget, and those without fields no caps either. Raise it on a slow or heavily loaded machine.",
    500,
    10,
    60_000,
  ),
  signedUrlTtlSeconds: int(
    'SIGNED_URL_TTL_SECONDS',
    'Lifetime of signed upload and download URLs, in seconds.',
    900,
    30,
    86_400,
  ),
  chromiumPath: str(
    'CHROMIUM_PATH',
    'A system Chromium for PDF rendering (e.g. `/usr/bin/chromium`). Unset: the Chromium that `npm ci` installs (`@sparticuz/chromium`).',
  ),
  renderTimeoutMs: int(
    'RENDER_TIMEOUT_MS',
    'Longest time one PDF render may take before it fails.',
    20_000,
    1000,
    300_000,
  ),
  renderMaxPages: int('RENDER_MAX_PAGES', 'Most pages a rendered PDF may have.', 50, 1, 1000),
  renderQueueLimit: int(
    'RENDER_QUEUE_LIMIT',
    'Renders that may wait for the browser; more answer 503 with `Retry-After`.',
    100,
    1,
    10_000,
  ),
  pdfWorkers: int(
    'PDF_WORKERS',
    'Worker threads that rasterize and analyse PDFs with pdf.js, off the event loop.',
    2,
    1,
    32,
  ),
  pdfWorkerQueueLimit: int(
    'PDF_WORKER_QUEUE_LIMIT',
    'PDF rasterizations and analyses that may wait for a worker; more answer 503 with `Retry-After`.',
    20,
    0,
    10_000,
  ),
  pdfWorkerMaxMemoryMb: int(
    'PDF_WORKER_MAX_MEMORY_MB',
    'JavaScript heap of one PDF worker, in MiB; a job that needs more is stopped with 422 and its worker replaced.',
    512,
    32,
    16_384,
  ),
  databasePoolSize: int(
    'DATABASE_POOL_SIZE',
    'PostgreSQL connections per process. Size it with `max_connections` in mind: replicas × this, plus the job workers.',
    20,
    1,
    500,
  ),
  jobPollIntervalMs: int(
    'JOB_POLL_INTERVAL_MS',
    'How often this process looks for queued background jobs (document rendering and analysis), in ms; 0: it runs none (another replica does). Safe on many replicas: each job runs once at a time.',
    1000,
    0,
    3_600_000,
  ),
  webhookAllowPrivateTargets: oneOf(
    'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    'Whether outbound webhook endpoints may point at private, loopback and unique-local addresses (and use plain http there): `true` for a self-hosted install that calls its own network. Link-local and cloud metadata addresses stay refused.',
    ['true', 'false'] as const,
    'false',
  ),
  webhookRetrySchedule: {
    env: 'WEBHOOK_RETRY_SCHEDULE',
    description:
      'Seconds between the attempts of an outbound webhook delivery, comma-separated (1–20 retries, each at most 7 days); the default spreads 10 retries over about three days. After the last one fails the delivery is FAILED, and an endpoint that answered nothing successfully meanwhile is disabled.',
    defaultText: '`5,300,1800,7200,18000,36000,36000,50400,50400,57600`',
    parse: (raw: string | undefined): number[] => {
      if (raw === undefined || raw.trim() === '')
        return [5, 300, 1800, 7200, 18000, 36000, 36000, 50400, 50400, 57600];
      const parts = raw.split(',').map((p) => p.trim());
      if (parts.length > 20 || parts.some((p) => !/^\d{1,6}$/.test(p) || Number(p) > 604_800))
        throw new ConfigError(
          'WEBHOOK_RETRY_SCHEDULE',
          `must be 1 to 20 comma-separated whole numbers of seconds up to 604800, got "${raw}"`,
        );
      return parts.map(Number);
    },
  } satisfies Setting<number[]>,
  webhookTimeoutMs: int(
    'WEBHOOK_TIMEOUT_MS',
    'How long one outbound webhook attempt may take (connect, send, answer), in ms.',
    10_000,
    100,
    60_000,
  ),
  webhookDisableAfterHours: int(
    'WEBHOOK_DISABLE_AFTER_HOURS',
    'An outbound webhook endpoint that has answered no attempt successfully for this many hours is disabled at its next failed attempt (an event, and a mail to the account’s admins); also at a delivery’s last failed attempt when the whole retry schedule is shorter.',
    72,
    1,
    8760,
  ),
  webhookAccountConcurrency: int(
    'WEBHOOK_ACCOUNT_CONCURRENCY',
    'Outbound webhook attempts of one account in flight at once, across all processes: one account’s slow or dead endpoints hold at most this many of the job slots (two per process), the others stay free for other accounts. Keep it below the job slots of all processes together.',
    1,
    1,
    100,
  ),
  dunningBaseRates: {
    env: 'DUNNING_BASE_RATES',
    description:
      'Base rates (Basiszinssatz, §247 BGB) the default interest of dunning letters is computed from, as `YYYY-MM-DD=percent` entries separated by commas (e.g. `2026-07-01=1.27`), each in force from its day; they add to and override the built-in table of the Bundesbank’s published rates (2002 to 2026-01-01). A half-year past the last known rate uses that rate: add each new one when the Bundesbank publishes it (early January and July).',
    defaultText: '—',
    parse: (raw: string | undefined): { from: string; percent: number }[] => {
      if (raw === undefined || raw.trim() === '') return [];
      return raw.split(',').map((entry) => {
        const m =
          /^\s*(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))\s*=\s*(-?\d{1,2}(?:\.\d{1,2})?)\s*$/.exec(
            entry,
          );
        if (!m)
          throw new ConfigError(
            'DUNNING_BASE_RATES',
            `must be comma-separated YYYY-MM-DD=percent entries (e.g. 2026-07-01=1.27), got "${entry.trim()}"`,
          );
        return { from: m[1]!, percent: Number(m[2]) };
      });
    },
  } satisfies Setting<{ from: string; percent: number }[]>,
  backupDir: str(
    'BACKUP_DIR',
    'Directory the service writes scheduled database backups to (a consistent snapshot, checked after writing; docs/operations.md, "Scheduled backups"). Unset: no scheduled backups. With several replicas, a volume they share.',
  ),
  backupIntervalHours: int(
    'BACKUP_INTERVAL_HOURS',
    'Hours between scheduled backups; at the start, and every minute after, the service writes one when the newest in `BACKUP_DIR` is at least this old. Needs `BACKUP_DIR`.',
    24,
    1,
    8760,
  ),
  backupKeep: int(
    'BACKUP_KEEP',
    'Scheduled backups kept in `BACKUP_DIR`: after each one the oldest beyond this many are deleted (only files the schedule wrote, `kontor-<time>.sqlite` or `.dump`). Needs `BACKUP_DIR`.',
    14,
    1,
    10_000,
  ),
  shutdownTimeoutMs: int(
    'SHUTDOWN_TIMEOUT_MS',
    'How long SIGTERM waits for in-flight requests before closing anyway.',
    10_000,
    0,
    600_000,
  ),
} as const;

type Settings = typeof settings;
type Parsed = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

export interface Config extends Omit<
  Parsed,
  | 'dataDir'
  | 'publicUrl'
  | 's3ForcePathStyle'
  | 'webhookAllowPrivateTargets'
  | 'backupDir'
  | 'paymentProviderApiUrl'
> {
  /** The payment provider's API base, without a trailing slash. */
  paymentProviderApiUrl: string;
  s3ForcePathStyle: boolean;
  dataDir: string;
  publicUrl: string;
  webhookAllowPrivateTargets: boolean;
  /** Where scheduled backups go, resolved to an absolute path; undefined: no scheduled backups. */
  backupDir: string | undefined;
  /** Resolved database location: `{ kind: 'sqlite', file }` or `{ kind: 'postgres', url }`. */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  /** Embedded mode: SQLite and no external services; the service creates its own API key. */
  embedded: boolean;
}

/**
 * `BACKUP_DIR` as an absolute path. Its interval and retention without it would be a schedule
 * that never runs (a misspelt `BACKUP_DIR` looks the same): refused rather than ignored.
 */
function resolveBackupDir(raw: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (raw === undefined) {
    for (const name of ['BACKUP_INTERVAL_HOURS', 'BACKUP_KEEP'])
      if (env[name] !== undefined && env[name] !== '')
        throw new ConfigError(name, 'needs BACKUP_DIR, the directory scheduled backups go to');
    return undefined;
  }
  return path.resolve(raw);
}

/**
 * Reads and validates the configuration. Throws a `ConfigError` naming the setting and the
 * problem; `server.ts` prints it and exits non-zero instead of starting half-configured.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Object.fromEntries(
    Object.entries(settings).map(([key, setting]) => [key, setting.parse(env[setting.env])]),
  ) as Parsed;
  const dataDir = path.resolve(parsed.dataDir ?? './data');
  const databaseUrl = parsed.databaseUrl;
  const database: Config['database'] =
    databaseUrl === undefined
      ? { kind: 'sqlite', file: path.join(dataDir, 'kontor.sqlite') }
      : databaseUrl.startsWith('sqlite:')
        ? { kind: 'sqlite', file: path.resolve(databaseUrl.slice('sqlite:'.length)) }
        : { kind: 'postgres', url: databaseUrl };
  if (parsed.appSecret !== undefined && parsed.appSecret.length < 32)
    throw new ConfigError('APP_SECRET', 'must be at least 32 characters');
  if ((parsed.s3AccessKeyId === undefined) !== (parsed.s3SecretAccessKey === undefined))
    throw new ConfigError(
      parsed.s3AccessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair',
    );
  const backupDir = resolveBackupDir(parsed.backupDir, env);
  const host = parsed.host ?? '127.0.0.1';
  const publicUrl = (parsed.publicUrl ?? `http://${host}:${parsed.port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError('PUBLIC_URL', 'is not a valid URL');
  }
  return {
    ...parsed,
    host,
    dataDir,
    publicUrl,
    backupDir,
    paymentProviderApiUrl: (parsed.paymentProviderApiUrl ?? 'https://api.stripe.com').replace(
      /\/+$/,
      '',
    ),
    webhookAllowPrivateTargets: parsed.webhookAllowPrivateTargets === 'true',
    s3ForcePathStyle: parsed.s3ForcePathStyle === 'true',
    database,
    embedded: database.kind === 'sqlite',
  };
}

/** The README configuration table, generated from `settings`. */
export function configTableMarkdown(): string {
  const rows = Object.values(settings).map(
    (s) => `| \`${s.env}\` | ${s.defaultText} | ${s.description.replace(/\|/g, '\\|')} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
