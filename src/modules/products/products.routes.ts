import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CreateProductBody,
  ListProductsQuery,
  ProductSchema,
  UpdateProductBody,
} from './products.schemas.js';
import { ProductsService } from './products.service.js';

const Params = IdParams('productId', 'prd');
const tags = ['products'];

/** `/v1/products`: HTTP only — input, one service call, status, ETag and body. */
export function productRoutes(app: App, ctx: AppContext): void {
  const service = new ProductsService(ctx);

  productCollectionRoutes(app, service);
  productItemRoutes(app, service);
}

/** `/v1/products`: list and create. */
function productCollectionRoutes(app: App, service: ProductsService): void {
  app.get(
    '/v1/products',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List products',
        querystring: ListProductsQuery,
        response: { 200: PageOf(ProductSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/products',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a product',
        headers: IdempotencyHeaders,
        body: CreateProductBody,
        response: { 201: ProductSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const product = await service.create(actorOf(req), req.body);
      setEtag(reply, product.version);
      reply.header('location', `/v1/products/${product.id}`);
      return reply.code(201).send(product);
    },
  );
}

/** `/v1/products/{productId}`: read, update and delete one. */
function productItemRoutes(app: App, service: ProductsService): void {
  app.get(
    '/v1/products/:productId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a product',
        params: Params,
        response: { 200: ProductSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const product = await service.get(req.principal!.accountId, req.params.productId);
      setEtag(reply, product.version);
      return product;
    },
  );

  app.put(
    '/v1/products/:productId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a product (partial: omitted fields stay, null clears)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateProductBody,
        response: { 200: ProductSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const product = await service.update(
        actorOf(req),
        req.params.productId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, product.version);
      return product;
    },
  );

  app.delete(
    '/v1/products/:productId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a product (409 in_use while other records reference it)',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.productId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
