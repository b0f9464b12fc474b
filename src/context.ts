import type { Kysely } from 'kysely';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { DB } from './db/schema.js';
import type { CredentialCache } from './modules/auth/credential-cache.js';
import type { Clock } from './shared/clock.js';
import type { CustomerLinkIssuer } from './shared/customer-links.js';
import type { CounterStore } from './shared/counters.js';
import type { Mailer } from './shared/mail.js';
import type { AccountPlans } from './modules/plans/account-plans.js';
import type { PlanCatalogue } from './modules/plans/plans.catalogue.js';
import type { UsageMeter } from './modules/plans/usage-meter.js';
import type { FileStorage } from './modules/files/storage.js';
import type { PdfRenderer } from './shared/pdf/renderer.js';
import type { JobQueue } from './shared/jobs.js';
import type { BackupSchedule } from './modules/backups/backup-schedule.js';

/** The services every module receives; built once in `buildApp`. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  clock: Clock;
  mailer: Mailer;
  counters: CounterStore;
  credentials: CredentialCache;
  plans: PlanCatalogue;
  accountPlans: AccountPlans;
  usage: UsageMeter;
  /** File bytes: local disk or S3-compatible storage. */
  storage: FileStorage;
  /** HTML → PDF (one warm browser, started on first use). */
  renderer: PdfRenderer;
  /** Durable background jobs (rendering, analysis). */
  jobs: JobQueue;
  /** Scheduled backups into `BACKUP_DIR`; undefined when it is not set. */
  backups: BackupSchedule | undefined;
  /** Keys code hashes and signed links; never logged. */
  appSecret: string;
  logger: Logger;
  /** Links to the customer's page for sent mails; set once the customer-pages module is wired. */
  customerLinks?: CustomerLinkIssuer;
}
