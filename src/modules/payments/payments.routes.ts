import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentSchema,
  UpdatePaymentBody,
} from './payments.schemas.js';
import { PaymentsService } from './payments.service.js';

const Params = IdParams('paymentId', 'pay');
const tags = ['payments'];

/** `/v1/payments`: HTTP only — input, one service call, status, ETag and body. */
export function paymentRoutes(app: App, ctx: AppContext): void {
  const service = new PaymentsService(ctx);

  paymentCollectionRoutes(app, service);
  paymentItemRoutes(app, service);
}

/** `/v1/payments`: list and create. */
function paymentCollectionRoutes(app: App, service: PaymentsService): void {
  app.get(
    '/v1/payments',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'List payments',
        querystring: ListPaymentsQuery,
        response: { 200: PageOf(PaymentSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/payments',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Create a payment',
        headers: IdempotencyHeaders,
        body: CreatePaymentBody,
        response: { 201: PaymentSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const payment = await service.create(actorOf(req), req.body);
      setEtag(reply, payment.version);
      reply.header('location', `/v1/payments/${payment.id}`);
      return reply.code(201).send(payment);
    },
  );
}

/** `/v1/payments/{paymentId}`: read, update and delete one. */
function paymentItemRoutes(app: App, service: PaymentsService): void {
  app.get(
    '/v1/payments/:paymentId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Get a payment',
        params: Params,
        response: { 200: PaymentSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const payment = await service.get(req.principal!.accountId, req.params.paymentId);
      setEtag(reply, payment.version);
      return payment;
    },
  );

  app.put(
    '/v1/payments/:paymentId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Update a payment (partial: omitted fields stay, null clears; PENDING ↔ MARKED)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdatePaymentBody,
        response: { 200: PaymentSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const payment = await service.update(
        actorOf(req),
        req.params.paymentId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, payment.version);
      return payment;
    },
  );

  app.delete(
    '/v1/payments/:paymentId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a payment',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.paymentId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
