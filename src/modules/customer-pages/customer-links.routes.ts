import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf, type App } from '../../http/types.js';
import {
  CreateCustomerLinkBody,
  CreatedCustomerLinkSchema,
  CustomerLinkListSchema,
  CustomerLinkSchema,
  CustomerLinkSettingsSchema,
  DEFAULT_VALID_DAYS,
  LinkParams,
  PutCustomerLinkSettingsBody,
} from './customer-links.schemas.js';
import { CustomerLinksService } from './customer-links.service.js';

const tags = ['customer-links'];

/** The signed-in side of the customer's page: links of a document and the account's settings. */
export function customerLinkRoutes(app: App, ctx: AppContext): void {
  const service = new CustomerLinksService(ctx);
  linkRoutes(app, service);
  settingsRoutes(app, service);
}

/** `/v1/documents/{documentId}/customer-links`: create, list, revoke. */
function linkRoutes(app: App, service: CustomerLinksService): void {
  app.post(
    '/v1/documents/:documentId/customer-links',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a link to the customer’s page of a FINAL invoice or quote',
        description: `The page (\`PUBLIC_URL/c/{token}\`, no sign-in) shows this one document: its lines and totals, what is open with the GiroCode, its PDF and e-invoice, card payment when a provider is configured, and for a quote accept / decline. The \`url\` is in this answer only (only a hash of the token is stored). Expires at \`expiresAt\` (default: the account's \`validDays\`, ${DEFAULT_VALID_DAYS} days unless set). A DRAFT is 409, another document type 422. Audited as \`customer_link.created\`. See docs/customer-page.md.`,
        headers: IdempotencyHeaders,
        params: IdParams('documentId', 'doc'),
        body: CreateCustomerLinkBody,
        response: { 201: CreatedCustomerLinkSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const link = await service.create(actorOf(req), req.params.documentId, req.body);
      return reply
        .code(201)
        .header('location', `/v1/documents/${req.params.documentId}/customer-links/${link.id}`)
        .send(link);
    },
  );

  app.get(
    '/v1/documents/:documentId/customer-links',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the customer links of a document, with when the customer viewed it',
        params: IdParams('documentId', 'doc'),
        response: { 200: CustomerLinkListSchema, ...problems(401, 404) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.params.documentId),
  );

  app.delete(
    '/v1/documents/:documentId/customer-links/:linkId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Revoke a customer link, effective immediately',
        description:
          'The page answers 404 from now on, like an unknown link. The link stays listed as REVOKED. Revoking it again is 409. Audited as `customer_link.revoked`.',
        params: LinkParams,
        response: { 200: CustomerLinkSchema, ...problems(401, 404, 409) },
      },
    },
    (req) => service.revoke(actorOf(req), req.params.documentId, req.params.linkId),
  );
}

/** `/v1/customer-link-settings`: whether sends carry a link, and how long links live. */
function settingsRoutes(app: App, service: CustomerLinksService): void {
  app.get(
    '/v1/customer-link-settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get the account’s customer link settings',
        response: { 200: CustomerLinkSettingsSchema, ...problems(401) },
      },
    },
    async (req, reply) => {
      const settings = await service.settings(req.principal!.accountId);
      setEtag(reply, settings.version);
      return settings;
    },
  );

  app.put(
    '/v1/customer-link-settings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the account’s customer link settings',
        description:
          '`enabled`: sending a FINAL invoice or quote creates a link and puts its URL into the mail. `validDays`: how long new links live. `version` (0 while nothing is saved) or `If-Match` make the change conditional (409/412 when stale). Audited.',
        headers: IfMatchHeaders,
        body: PutCustomerLinkSettingsBody,
        response: {
          200: CustomerLinkSettingsSchema,
          ...problems(400, 401, 403, 409, 412),
        },
      },
    },
    async (req, reply) => {
      const settings = await service.putSettings(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, settings.version);
      return settings;
    },
  );
}
