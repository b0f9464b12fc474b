import type { AppContext } from '../../context.js';
import { problems } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { actorOf } from '../../http/types.js';
import { PartnerNumberingSchema, PutPartnerNumberingBody } from './partner-numbers.schemas.js';
import { PartnerNumberingService } from './partner-numbers.service.js';

const tags = ['partners'];
const path = '/v1/partners/numbering';

/** `/v1/partners/numbering`: the sequences of customer and vendor numbers; GET all, PUT admins. */
export function partnerNumberingRoutes(app: App, ctx: AppContext): void {
  const service = new PartnerNumberingService(ctx);

  app.get(
    path,
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Where new customer and vendor numbers come from',
        response: { 200: PartnerNumberingSchema, ...problems(401) },
      },
    },
    async (req) => service.get(req.principal!.accountId),
  );

  app.put(
    path,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Set the prefix or next value of customer or vendor numbers',
        description:
          'Changes what it names (`customer`, `vendor`, each `prefix` and `nextValue`); the rest stays. Existing partners keep their numbers. No version: every create moves the counter. Admins only; audited as `partner_numbering.updated`.',
        body: PutPartnerNumberingBody,
        response: { 200: PartnerNumberingSchema, ...problems(400, 401, 403) },
      },
    },
    async (req) => service.put(actorOf(req), req.body),
  );
}
