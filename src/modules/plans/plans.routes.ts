import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { IdempotencyHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { ChangePlanBody, LicensesSchema, PlansSchema, UsageSchema } from './plans.schemas.js';
import { PlansService } from './plans.service.js';

const tags = ['plans'];

/** `/v1/plans`, `/v1/licenses`, `/v1/usage`. */
export function planRoutes(app: App, ctx: AppContext): void {
  const service = new PlansService(ctx);

  app.get(
    '/v1/plans',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The plan catalogue and the account’s plan',
        response: { 200: PlansSchema, ...problems(401) },
      },
    },
    (req) => service.list(req.principal!.accountId),
  );

  app.patch(
    '/v1/plans',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Switch the account’s plan; a downgrade that current usage exceeds answers 409',
        headers: IdempotencyHeaders,
        body: ChangePlanBody,
        response: { 200: PlansSchema, ...problems(400, 401, 403, 409) },
      },
    },
    (req) => service.change(actorOf(req), req.body.planId),
  );

  app.get(
    '/v1/licenses',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The account’s license',
        response: { 200: LicensesSchema, ...problems(401) },
      },
    },
    async (req) => ({ data: [await service.license(req.principal!.accountId)], nextCursor: null }),
  );

  app.get(
    '/v1/usage',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Requests this minute and month, storage, seats and documents against the plan',
        response: { 200: UsageSchema, ...problems(401) },
      },
    },
    (req) => service.usage(req.principal!),
  );
}
