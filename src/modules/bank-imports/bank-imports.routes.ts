import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CreateImportBody,
  DecisionBody,
  FinalizeBody,
  ImportParams,
  ImportSchema,
  ImportTransactionSchema,
  ListTransactionsQuery,
  TransactionParams,
} from './bank-imports.schemas.js';
import { BankImportsService } from './bank-imports.service.js';

const tags = ['bank-statement-imports'];

/** `/v1/bank-statement-imports`: HTTP only, one service call each. */
export function bankImportRoutes(app: App, ctx: AppContext): void {
  const service = new BankImportsService(ctx);

  importRoutes(app, service);
  reviewRoutes(app, service);
  outcomeRoutes(app, service);
}

/** An import: upload a statement, the active import, any import by id. */
function importRoutes(app: App, service: BankImportsService): void {
  app.post(
    '/v1/bank-statement-imports',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Import a statement file (MT940, CAMT.052/053/054, German bank CSV): parse, check balances, suggest, stage for review',
        headers: IdempotencyHeaders,
        body: CreateImportBody,
        response: { 201: ImportSchema, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const imported = await service.create(actorOf(req), req.body);
      setEtag(reply, imported.version);
      reply.header('location', `/v1/bank-statement-imports/${imported.id}`);
      return reply.code(201).send(imported);
    },
  );

  app.get(
    '/v1/bank-statement-imports/active',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The account’s active import (404 when none)',
        response: { 200: ImportSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const imported = await service.active(req.principal!.accountId);
      setEtag(reply, imported.version);
      return imported;
    },
  );

  app.get(
    '/v1/bank-statement-imports/:importId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get an import (active, finalized or discarded)',
        params: ImportParams,
        response: { 200: ImportSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const imported = await service.get(req.principal!.accountId, req.params.importId);
      setEtag(reply, imported.version);
      return imported;
    },
  );
}

/** Reviewing an import's transactions: page through them, accept or reject one. */
function reviewRoutes(app: App, service: BankImportsService): void {
  app.get(
    '/v1/bank-statement-imports/:importId/transactions',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Page through an import’s transactions (filters decision, duplicate)',
        params: ImportParams,
        querystring: ListTransactionsQuery,
        response: {
          200: Type.Object({
            data: Type.Array(ImportTransactionSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
          }),
          ...problems(400, 401, 404),
        },
      },
    },
    (req) => service.transactions(req.principal!.accountId, req.params.importId, req.query),
  );

  app.patch(
    '/v1/bank-statement-imports/:importId/transactions/:index',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Accept or reject one transaction (carries and bumps the import’s version)',
        params: TransactionParams,
        headers: IfMatchHeaders,
        body: DecisionBody,
        response: { 200: ImportSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const imported = await service.decide(
        actorOf(req),
        req.params.importId,
        req.params.index,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, imported.version);
      return imported;
    },
  );
}

/** Ending an import: finalize (book what was accepted) or discard. */
function outcomeRoutes(app: App, service: BankImportsService): void {
  app.post(
    '/v1/bank-statement-imports/:importId/finalize',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Book every accepted transaction in one database transaction (payments, budget entries) and close the import',
        params: ImportParams,
        headers: Type.Object({
          ...IdempotencyHeaders.properties,
          ...IfMatchHeaders.properties,
        }),
        body: FinalizeBody,
        response: { 200: ImportSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const imported = await service.finalize(
        actorOf(req),
        req.params.importId,
        req.body.version,
        readIfMatch(req),
      );
      setEtag(reply, imported.version);
      return imported;
    },
  );

  app.delete(
    '/v1/bank-statement-imports/:importId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Discard the active import (nothing is booked)',
        params: ImportParams,
        headers: IfMatchHeaders,
        response: {
          204: Type.Null({ description: 'Discarded.' }),
          ...problems(401, 404, 409, 412),
        },
      },
    },
    async (req, reply) => {
      await service.discard(actorOf(req), req.params.importId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
