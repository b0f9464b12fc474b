/* eslint-disable no-console -- the operator's console: the first-start key and fatal config errors */
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { checkPort, portProblem } from './port.js';
import { countActiveApiKeys, createApiKey } from './modules/api-keys/index.js';
import { createSetupLink } from './modules/auth/index.js';
import type { AppContext } from './context.js';
import { startReminderScheduler } from './modules/notes/index.js';
import { startUploadExpiry } from './modules/files/index.js';
import { startDunningSchedule } from './modules/dunning/index.js';
import { startOverdueSchedule, startQuoteExpirySchedule } from './modules/documents/index.js';
import { startAutoCollectSchedule } from './modules/sepa/index.js';
import { startBillingSchedule } from './modules/recurring-invoices/index.js';
import { startBackupSchedule } from './modules/backups/index.js';

/** Ends the process with the port's message when `err` is about the port; returns otherwise. */
function exitOnPortProblem(config: Config, err: unknown): void {
  const message = portProblem(err, config.port, config.host);
  if (message === undefined) return;
  console.error(message);
  process.exit(1);
}

/**
 * Embedded first start: no client key exists yet, so create one and keep it in
 * `DATA_DIR/api-key.txt` (mode 600). Returns the lines that show it once, printed only when
 * the server listens.
 */
async function ensureFirstApiKey(config: Config, ctx: AppContext): Promise<string | undefined> {
  if (!config.embedded || config.apiKeys.length > 0) return undefined;
  if ((await countActiveApiKeys(ctx.db)) > 0) return undefined;
  const created = await createApiKey(ctx.db, 'first-start');
  const file = path.join(config.dataDir, 'api-key.txt');
  fs.writeFileSync(file, `${created.key}\n`, { mode: 0o600 });
  return [
    '',
    'Kontor created a client API key for this installation (stored in ' + file + '):',
    '',
    `  ${created.key}`,
    '',
    `It is for programs that use the API (docs: ${config.publicUrl}/docs); the web app needs none.`,
    '',
  ].join('\n');
}

/**
 * While the installation has no user: a one-time link that creates the owner's account in the
 * browser, no mail server needed. The token travels in the fragment, which never reaches a
 * server log; a new link comes with every start until one is used.
 */
async function setupLinkLines(config: Config, ctx: AppContext): Promise<string | undefined> {
  const token = await createSetupLink(ctx);
  if (token === undefined) return undefined;
  return [
    '',
    'Create the owner account of this installation in your browser (the link works once):',
    '',
    `  ${config.publicUrl}/setup#token=${token}`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  // Before anything is created or printed: a port another program holds ends the start with
  // one clear line, not with a first-start key and a stack trace after it.
  try {
    await checkPort(config.port, config.host);
  } catch (err) {
    exitOnPortProblem(config, err);
    throw err;
  }
  const app = await buildApp(config);
  // What stops before the app closes: the schedulers, once started.
  const stoppers: Array<() => Promise<void>> = [];
  let closing = false;
  const shutdown = (signal: string) => {
    // A repeated signal is ignored, not taken as "exit now": Ctrl-C under `npm start`
    // can deliver SIGINT twice (the terminal signals the process group, and npm forwards its
    // own). The shutdown timeout bounds the wait instead.
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    // close(): stop accepting, answer 503 on kept-alive connections, wait for in-flight
    // requests, then the onClose hooks close the database, Redis and mail transports.
    // The schedulers stop first and their runs in progress finish before the database closes
    // under them.
    Promise.all(stoppers.map((stop) => stop()))
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  // Before listening: a signal that arrives as the server starts still shuts it down cleanly.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  // The key file exists before the server answers (a script waiting for /health reads it next).
  const firstKey = await ensureFirstApiKey(config, app.ctx);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Another program took the port between the check and now.
    if (portProblem(err, config.port, config.host) !== undefined) {
      await app.close().catch(() => undefined);
      // The next start does not show a key again: say where the one just created is kept.
      if (firstKey !== undefined)
        console.error(
          `The client API key created for this installation is in ${path.join(config.dataDir, 'api-key.txt')}.`,
        );
      exitOnPortProblem(config, err);
    }
    throw err;
  }
  if (firstKey !== undefined) console.log(firstKey);
  const setupLink = await setupLinkLines(config, app.ctx);
  if (setupLink !== undefined) console.log(setupLink);
  else if (firstKey === undefined) console.log(`Kontor is running at ${config.publicUrl}/`);
  if (closing) return;
  stoppers.push(
    startReminderScheduler(app.ctx, config.reminderIntervalMs),
    startUploadExpiry(app.ctx, config.reminderIntervalMs),
    startBillingSchedule(app.ctx, config.reminderIntervalMs),
    startDunningSchedule(app.ctx, config.reminderIntervalMs),
    startOverdueSchedule(app.ctx, config.reminderIntervalMs),
    startQuoteExpirySchedule(app.ctx, config.reminderIntervalMs),
    startAutoCollectSchedule(app.ctx, config.reminderIntervalMs),
    startBackupSchedule(app.ctx),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
