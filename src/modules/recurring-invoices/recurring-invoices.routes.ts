import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, problems } from '../../http/schemas.js';
import { actorOf, REAL_RUN } from '../../http/types.js';
import {
  BillingRunBody,
  BillingRunResultSchema,
  ContractInvoiceSchema,
  ListContractInvoicesQuery,
} from './recurring-invoices.schemas.js';
import { RecurringInvoices } from './recurring-invoices.service.js';
import { registerSendJob } from './send.job.js';

const Params = IdParams('contractId', 'con');
const tags = ['contracts'];

/**
 * Recurring invoices: `POST /v1/contracts/billing-runs` (what the schedule runs, on demand, or
 * a dry run) and `GET /v1/contracts/{contractId}/invoices` (what a contract's plan made).
 */
export function recurringInvoiceRoutes(app: App, ctx: AppContext): void {
  const service = new RecurringInvoices(ctx);
  registerSendJob(ctx);

  app.post(
    '/v1/contracts/billing-runs',
    {
      config: { access: 'user', adminWhen: REAL_RUN },
      schema: {
        tags,
        summary: 'Run the recurring invoices of the account’s contracts now (or as a dry run)',
        description:
          'Makes every invoice the contracts’ billing plans have due on or before `until` (default today), each period exactly once, as the daily schedule does. With `dryRun` nothing is written and the answer lists the invoices the run would make.',
        headers: IdempotencyHeaders,
        body: BillingRunBody,
        response: { 200: BillingRunResultSchema, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    (req) => service.runFor(actorOf(req), req.body),
  );

  app.get(
    '/v1/contracts/:contractId/invoices',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the invoices a contract’s billing plan made',
        params: Params,
        querystring: ListContractInvoicesQuery,
        response: { 200: PageOf(ContractInvoiceSchema), ...problems(400, 401, 404) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.params.contractId, req.query),
  );
}

/** The schedule: every `intervalMs`, the due invoices of every account (safe on many replicas). */
export function startBillingSchedule(ctx: AppContext, intervalMs: number): () => Promise<void> {
  const service = new RecurringInvoices(ctx);
  return ctx.jobs.every('contracts.billing', intervalMs, async () => {
    const { invoices, problems: refused } = await service.runScheduled();
    if (invoices.length > 0 || refused.length > 0)
      ctx.logger.info(
        { invoices: invoices.length, problems: refused.length },
        'recurring invoices made',
      );
  });
}
