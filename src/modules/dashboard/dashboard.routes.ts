import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { CashAnchorService } from './cash-anchor.service.js';
import {
  CashAnchorSchema,
  PutCashAnchorBody,
  StatsSchema,
  TimeseriesQuery,
  TimeseriesSchema,
} from './dashboard.schemas.js';
import { DashboardService } from './dashboard.service.js';

const tags = ['dashboard'];

/** `/v1/dashboard/*`: HTTP only — input, one service call, status, ETag and body. */
export function dashboardRoutes(app: App, ctx: AppContext): void {
  const anchors = new CashAnchorService(ctx);
  const dashboard = new DashboardService(ctx);

  app.get(
    '/v1/dashboard/cash-anchor',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get the cash anchor (404 not_found until one is set)',
        response: { 200: CashAnchorSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const anchor = await anchors.get(req.principal!.accountId);
      setEtag(reply, anchor.version);
      return anchor;
    },
  );

  app.put(
    '/v1/dashboard/cash-anchor',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Set or replace the cash anchor: the bank balance at the end of a day',
        description:
          'Answers 200 with the anchor whether it was created or replaced. `version` in the body or `If-Match` make a replacement conditional (409/412 when stale); without them the PUT replaces the anchor.',
        headers: IfMatchHeaders,
        body: PutCashAnchorBody,
        response: { 200: CashAnchorSchema, ...problems(400, 401, 409, 412) },
      },
    },
    async (req, reply) => {
      const anchor = await anchors.put(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, anchor.version);
      return anchor;
    },
  );

  app.get(
    '/v1/dashboard/stats',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Balance, open items, monthly flows, budgets, contracts and deadlines',
        response: { 200: StatsSchema, ...problems(401) },
      },
    },
    (req) => dashboard.stats(req.principal!.accountId),
  );

  app.get(
    '/v1/dashboard/timeseries',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Income, expense, net and closing balance per day, ISO week or month',
        querystring: TimeseriesQuery,
        response: { 200: TimeseriesSchema, ...problems(400, 401) },
      },
    },
    (req) => dashboard.timeseries(req.principal!.accountId, req.query),
  );
}
