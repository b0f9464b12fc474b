import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf, REAL_RUN } from '../../http/types.js';
import {
  DunningRunBody,
  DunningRunResultSchema,
  DunningSettingsSchema,
  PutDunningSettingsBody,
} from './dunning.schemas.js';
import { DunningRuns } from './dunning.service.js';
import { DunningSettingsService } from './dunning-settings.service.js';
import { registerSendJob } from './send.job.js';

const tags = ['dunning'];

/** `/v1/dunning/*`: HTTP only — input, one service call, status, headers and body. */
export function dunningRoutes(app: App, ctx: AppContext): void {
  const runs = new DunningRuns(ctx);
  const settings = new DunningSettingsService(ctx);
  registerSendJob(ctx);

  app.post(
    '/v1/dunning/runs',
    {
      config: { access: 'user', adminWhen: REAL_RUN },
      schema: {
        tags,
        summary: 'Run dunning now, or propose it (dry run)',
        description:
          'Every FINAL invoice that is overdue on `date` (default today), still open (gross total less settled payments), not cancelled and neither it nor its partner blocked, and whose next level is due, gets one letter: a FINAL DUNNING document from the PUBLISHED system template (`PAYMENT_REMINDER` or `DUNNING`) with the open amount, fees, default interest (§288 BGB) and the EUR 40 flat fee from businesses, queued for mailing to the partner’s BILLING address; the invoice’s `dunningLevel` and `lastDunnedAt` move on. Repeating a run sends nothing twice. With `dryRun` nothing is written and the answer lists the letters the run would send. `invoiceIds` limits the run to the letters chosen (from a dry run): each is checked as without the list, and an id that is not due (or unknown, or another account’s) is simply not in the answer. See docs/dunning.md.',
        headers: IdempotencyHeaders,
        body: DunningRunBody,
        response: { 200: DunningRunResultSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    (req) => runs.runFor(actorOf(req), req.body),
  );

  app.get(
    '/v1/dunning/settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get the dunning settings (the defaults, version 0, until saved)',
        response: { 200: DunningSettingsSchema, ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      const saved = await settings.get(req.principal!.accountId);
      setEtag(reply, saved.version);
      return saved;
    },
  );

  app.put(
    '/v1/dunning/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Save the dunning settings (levels, fees, interest, flat fee, schedule)',
        description:
          'Changes what it names; the rest stays (the defaults before the first save). `version` (0 for the defaults) or `If-Match` make it conditional (409/412 when stale). Admins only.',
        headers: IfMatchHeaders,
        body: PutDunningSettingsBody,
        response: { 200: DunningSettingsSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const saved = await settings.put(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, saved.version);
      return saved;
    },
  );
}

/** The schedule: every `intervalMs`, each enabled account's run once a day (across replicas). */
export function startDunningSchedule(ctx: AppContext, intervalMs: number): () => Promise<void> {
  const runs = new DunningRuns(ctx);
  return ctx.jobs.every('dunning.runs', intervalMs, async () => {
    const done = await runs.runScheduled();
    if (done.letters > 0 || done.problems > 0) ctx.logger.info(done, 'dunning letters made');
  });
}
