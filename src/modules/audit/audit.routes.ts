import { Type, type Static } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { auditSeqOf, listAuditEvents, sealAudit } from '../../shared/audit.js';
import { parseTimestamp } from '../../shared/dates.js';
import { PageOf, PageQuery, decodeCursor, invalidCursor, toPage } from '../../http/pagination.js';
import { Nullable, Timestamp, problems } from '../../http/schemas.js';

const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'Event id (`evt_…`).' }),
    seq: Type.Integer({
      description: 'Position in the account’s hash chain, from 1, without gaps.',
    }),
    occurredAt: Timestamp('When the write committed.'),
    actor: Type.Object(
      {
        type: Type.Enum(['user', 'system'], {
          description: 'A user’s request, or the service itself.',
        }),
        userId: Nullable(Type.String(), 'The acting user.'),
        tokenId: Nullable(Type.String(), 'The credential used (personal token or session token).'),
      },
      { additionalProperties: false },
    ),
    action: Type.String({ description: 'What happened, e.g. `partner.updated`.' }),
    resourceType: Type.String({ description: 'e.g. `partner`.' }),
    resourceId: Type.String({ description: 'Id of the changed record.' }),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Created/deleted: the values; updated: `{field: {from, to}}`. Secrets are never recorded.',
    }),
    requestId: Nullable(Type.String(), 'The request that made the change.'),
    ip: Nullable(Type.String(), 'Client IP.'),
    prevHash: Type.String({ description: 'Hash of the previous event of the account.' }),
    hash: Type.String({ description: 'SHA-256 over prevHash and this event.' }),
  },
  { additionalProperties: false, description: 'An append-only, hash-chained audit event.' },
);

const Query = Type.Object(
  {
    ...PageQuery,
    resourceType: Type.Optional(
      Type.String({ maxLength: 50, description: 'Only events of this resource type.' }),
    ),
    resourceId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only events of this record.' }),
    ),
    actorId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only events by this user.' }),
    ),
    action: Type.Optional(
      Type.String({ maxLength: 80, description: 'Only this action, e.g. `partner.deleted`.' }),
    ),
    from: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 40,
        description: 'Events at or after this time.',
      }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 40, description: 'Events before this time.' }),
    ),
  },
  { additionalProperties: false },
);

/** `GET /v1/audit-events`: admins read the account's trail, newest first. */
export function auditRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/audit-events',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['audit'],
        summary: 'List audit events (filters: resource, actor, action, time range)',
        description:
          'Needs the admin role. Newest first, in the order of the account’s hash chain (`seq` descending); `nextCursor` continues after the last event of the page.',
        querystring: Query,
        response: { 200: PageOf(AuditEventSchema), ...problems(400, 401, 403) },
      },
    },
    async (req) => {
      const q: Static<typeof Query> = req.query;
      const limit = q.limit ?? 25;
      const iso = (v: string | undefined, field: string) => {
        if (v === undefined) return undefined;
        const t = parseTimestamp(v);
        if (t === undefined)
          throw new AppError('validation_failed', `${field} is not a timestamp.`, {
            errors: [
              {
                path: `/querystring/${field}`,
                message: 'is not a timestamp',
                code: 'invalid_format',
              },
            ],
          });
        return new Date(t).toISOString();
      };
      const from = iso(q.from, 'from');
      // Events another process committed a moment ago are chained before they are shown.
      await sealAudit(ctx.db, req.principal!.accountId, { now: true });
      const to = iso(q.to, 'to');
      // The cursor names the last event of the page before: an event of this account.
      const after = decodeCursor(q.cursor);
      const afterSeq =
        after === undefined ? undefined : await auditSeqOf(ctx.db, req.principal!.accountId, after);
      if (after !== undefined && afterSeq === undefined) throw invalidCursor();
      const rows = await listAuditEvents(ctx.db, req.principal!.accountId, {
        afterSeq,
        resourceType: q.resourceType,
        resourceId: q.resourceId,
        actorId: q.actorId,
        action: q.action,
        from,
        to,
        limit: limit + 1,
      });
      const page = toPage(rows, limit);
      return {
        data: page.rows.map((e) => ({
          id: e.id,
          seq: e.seq,
          occurredAt: e.occurred_at,
          actor: {
            type: e.actor_type as 'user' | 'system',
            userId: e.actor_id,
            tokenId: e.token_id,
          },
          action: e.action,
          resourceType: e.resource_type,
          resourceId: e.resource_id,
          changes: JSON.parse(e.changes) as Record<string, unknown>,
          requestId: e.request_id,
          ip: e.ip,
          prevHash: e.prev_hash,
          hash: e.hash,
        })),
        nextCursor: page.nextCursor,
      };
    },
  );
}
