import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { problems } from '../../http/schemas.js';

const Status = Type.Object({ status: Type.String({ description: '`ok` when healthy.' }) });

const Health = Type.Object(
  {
    status: Type.String({ description: '`ok`: the process is up.' }),
    service: Type.Literal('kontor', {
      description:
        'Always `kontor`: tells a script waiting for the service that the server answering on this port is Kontor, not another program.',
    }),
  },
  { additionalProperties: false },
);

/** Liveness and readiness probes; public, for load balancers and orchestrators. */
export function healthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], summary: 'The process is up', response: { 200: Health } },
    },
    () => Promise.resolve({ status: 'ok', service: 'kontor' as const }),
  );

  app.get(
    '/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'The database is reachable',
        response: { 200: Status, ...problems(503) },
      },
    },
    async () => {
      await ctx.database.ping();
      return { status: 'ok' };
    },
  );
}
