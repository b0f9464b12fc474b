/**
 * Child process of `src/modules/bank-imports/finalize-crash.test.ts`: opens the app on the
 * database the parent names and finalizes one import. The parent kills it with SIGKILL while
 * the finalize transaction is open.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { BankImportsService } from '../src/modules/bank-imports/bank-imports.service.js';
import { systemActor } from '../src/modules/files/files.api.js';

const [accountId, importId, version] = process.argv.slice(2) as [string, string, string];
const app = await buildApp(loadConfig(process.env), { logger: false });
process.stdout.write('ready\n');
await new BankImportsService(app.ctx).finalize(
  systemActor(accountId),
  importId,
  Number(version),
  undefined,
);
process.stdout.write('finalized\n');
await app.close();
