/**
 * Test files whose outcome cannot depend on the database or Redis: parsers, renderers,
 * e-invoice writers and readers, pure arithmetic. They run in the SQLite pass only; the
 * PostgreSQL + Redis pass (`DATABASE_URL` set) leaves them out, because running them again
 * there would exercise the same code on the same inputs (vitest.config.ts). In CI that saves
 * about 30 s of the PostgreSQL pass. `test/database-free.test.ts` checks that none of them
 * reads the database settings, opens a database or builds the app (except as named below).
 * Three start Kontor as a process (`npm start`, the README's quick start, the typed client's
 * server) with `DATABASE_URL` and `REDIS_URL` cleared: on its embedded SQLite in either pass.
 */
export const DATABASE_FREE: readonly string[] = [
  'src/db/dialect.test.ts',
  'src/modules/bank-imports/parsers/camt-xml.limits.test.ts',
  'src/modules/bank-imports/parsers/camt.linear.test.ts',
  'src/modules/bank-imports/parsers/camt.test.ts',
  'src/modules/bank-imports/parsers/conformance.test.ts',
  'src/modules/bank-imports/parsers/csv-numbers.test.ts',
  'src/modules/bank-imports/parsers/csv.test.ts',
  'src/modules/bank-imports/parsers/detect.test.ts',
  'src/modules/bank-imports/parsers/mt940-csv-conformance.test.ts',
  'src/modules/bank-imports/parsers/mt940.test.ts',
  'src/modules/bank-imports/parsers/text.test.ts',
  'src/modules/contracts/contract-terms.test.ts',
  'src/modules/dashboard/buckets.test.ts',
  'src/modules/dashboard/major-units.test.ts',
  'src/modules/documents/invoice-table.test.ts',
  'src/modules/documents/totals.test.ts',
  'src/modules/dunning/claim.test.ts',
  'src/modules/exports/datev-format.test.ts',
  'src/modules/webhook-endpoints/target.test.ts',
  'src/shared/eas.test.ts',
  'src/shared/einvoice/facturx-pdf.test.ts',
  'src/shared/einvoice/read.conformance.test.ts',
  'src/shared/einvoice/read.test.ts',
  'src/shared/einvoice/serializers.test.ts',
  'src/shared/girocode.test.ts',
  'src/shared/leitweg-id.test.ts',
  'src/shared/log-output.test.ts',
  'src/shared/pdf/analyse.test.ts',
  'src/shared/pdf/einvoice-off-thread.test.ts',
  'src/shared/pdf/layout.test.ts',
  'src/shared/pdf/rasterize.health.test.ts',
  'src/shared/pdf/rasterize.test.ts',
  'src/shared/pdf/renderer.limits.test.ts',
  'src/shared/pdf/renderer.test.ts',
  'src/shared/pdf/worker-pool.test.ts',
  'src/shared/pdf/xml.limits.test.ts',
  'src/shared/templating/compile.test.ts',
  'src/shared/templating/context.test.ts',
  'src/shared/templating/engine.test.ts',
  'src/shared/templating/format.test.ts',
  'src/shared/templating/invoice.test.ts',
  'src/shared/templating/sanitize.test.ts',
  'src/shared/vat-id.test.ts',
  'test/client.e2e.test.ts',
  'test/openapi.test.ts',
  'test/readme.test.ts',
  'test/start.test.ts',
  'test/web-format.test.ts',
  'test/web-locales.test.ts',
  'test/web-problems.test.ts',
];

/**
 * Listed files that build the app although their subject is not storage; the reason is why
 * the database under the app cannot change their outcome.
 */
export const BUILDS_APP_FOR: Readonly<Record<string, string>> = {
  'src/shared/pdf/rasterize.health.test.ts':
    'the app only answers /health while the worker pool rasterizes; no request reads or writes a record',
};
