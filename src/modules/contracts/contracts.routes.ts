import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  ContractSchema,
  CreateContractBody,
  ListContractsQuery,
  UpdateContractBody,
} from './contracts.schemas.js';
import { ContractsService } from './contracts.service.js';

const Params = IdParams('contractId', 'ctr');
const tags = ['contracts'];

/** `/v1/contracts`: HTTP only — input, one service call, status, ETag and body. */
export function contractRoutes(app: App, ctx: AppContext): void {
  const service = new ContractsService(ctx);

  contractCollectionRoutes(app, service);
  contractItemRoutes(app, service);
}

/** `/v1/contracts`: list and create. */
function contractCollectionRoutes(app: App, service: ContractsService): void {
  app.get(
    '/v1/contracts',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'List contracts',
        querystring: ListContractsQuery,
        response: { 200: PageOf(ContractSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/contracts',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Create a contract',
        headers: IdempotencyHeaders,
        body: CreateContractBody,
        response: { 201: ContractSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const contract = await service.create(actorOf(req), req.body);
      setEtag(reply, contract.version);
      reply.header('location', `/v1/contracts/${contract.id}`);
      return reply.code(201).send(contract);
    },
  );
}

/** `/v1/contracts/{contractId}`: read, update and delete one. */
function contractItemRoutes(app: App, service: ContractsService): void {
  app.get(
    '/v1/contracts/:contractId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Get a contract',
        params: Params,
        response: { 200: ContractSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const contract = await service.get(req.principal!.accountId, req.params.contractId);
      setEtag(reply, contract.version);
      return contract;
    },
  );

  app.put(
    '/v1/contracts/:contractId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary:
          'Update a contract (partial: omitted fields stay, null clears; status DRAFT → ACTIVE only)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateContractBody,
        response: { 200: ContractSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const contract = await service.update(
        actorOf(req),
        req.params.contractId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, contract.version);
      return contract;
    },
  );

  app.delete(
    '/v1/contracts/:contractId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a DRAFT contract (409 state_conflict for an ACTIVE one)',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.contractId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
