import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CreateTaxRateBody,
  ListTaxRatesQuery,
  TaxRateSchema,
  UpdateTaxRateBody,
} from './tax-rates.schemas.js';
import { TaxRatesService } from './tax-rates.service.js';

const Params = IdParams('taxRateId', 'txr');
const tags = ['tax-rates'];

/**
 * `/v1/tax-rates`: HTTP only — input, one service call, status, ETag and body. Every user
 * reads the rates (documents and products need them); writes are account configuration and
 * need an admin, like account settings (decisions §4).
 */
export function taxRateRoutes(app: App, ctx: AppContext): void {
  const service = new TaxRatesService(ctx);

  taxRateCollectionRoutes(app, service);
  taxRateItemRoutes(app, service);
}

/** `/v1/tax-rates`: list and create. */
function taxRateCollectionRoutes(app: App, service: TaxRatesService): void {
  app.get(
    '/v1/tax-rates',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List tax rates',
        querystring: ListTaxRatesQuery,
        response: { 200: PageOf(TaxRateSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/tax-rates',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a tax rate (admin; the first rate of an account becomes its default)',
        headers: IdempotencyHeaders,
        body: CreateTaxRateBody,
        response: { 201: TaxRateSchema, ...problems(400, 401, 403, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const taxRate = await service.create(actorOf(req), req.body);
      setEtag(reply, taxRate.version);
      reply.header('location', `/v1/tax-rates/${taxRate.id}`);
      return reply.code(201).send(taxRate);
    },
  );
}

/** `/v1/tax-rates/{taxRateId}`: read, update and delete one. */
function taxRateItemRoutes(app: App, service: TaxRatesService): void {
  app.get(
    '/v1/tax-rates/:taxRateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a tax rate',
        params: Params,
        response: { 200: TaxRateSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const taxRate = await service.get(req.principal!.accountId, req.params.taxRateId);
      setEtag(reply, taxRate.version);
      return taxRate;
    },
  );

  app.patch(
    '/v1/tax-rates/:taxRateId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Update a tax rate (admin; isDefault true moves the default here, false on the default is 409)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateTaxRateBody,
        response: { 200: TaxRateSchema, ...problems(400, 401, 403, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const taxRate = await service.update(
        actorOf(req),
        req.params.taxRateId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, taxRate.version);
      return taxRate;
    },
  );

  app.delete(
    '/v1/tax-rates/:taxRateId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Delete a tax rate (admin; 409 in_use while products use it, state_conflict for the default)',
        params: Params,
        headers: IfMatchHeaders,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...problems(401, 403, 404, 409, 412),
        },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.taxRateId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
