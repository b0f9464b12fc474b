import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { actorOf } from '../../http/types.js';
import { createCollection } from './collections.command.js';
import { MandatesService } from './mandates.service.js';
import { registerDirectDebitNotices } from './notice.js';
import { RunsService, type RunKind } from './runs.service.js';
import { putSepaSettings, readSepaSettings } from './sepa-settings.service.js';
import {
  CreateCollectionBody,
  CreateMandateBody,
  CreateTransferBody,
  ListMandatesQuery,
  ListRunsQuery,
  MandateSchema,
  PartnerBankAccountSchema,
  PutBankAccountBody,
  PutSepaSettingsBody,
  RevokeMandateBody,
  SepaRunSchema,
  SepaSettingsSchema,
  UpdateMandateBody,
} from './sepa.schemas.js';
import { createTransfer } from './transfers.command.js';

const tags = ['sepa'];
const PartnerParams = IdParams('partnerId', 'ptr');
const MandateParams = IdParams('mandateId', 'mdt');

/** `/v1/sepa/…` and the partner's mandates and bank account: HTTP only. */
export function sepaRoutes(app: App, ctx: AppContext): void {
  registerDirectDebitNotices(ctx);
  mandateRoutes(app, new MandatesService(ctx));
  bankAccountRoutes(app, new MandatesService(ctx));
  settingsRoutes(app, ctx);
  const runs = new RunsService(ctx);
  runRoutes(app, ctx, runs, 'COLLECTION');
  runRoutes(app, ctx, runs, 'TRANSFER');
}

function mandateRoutes(app: App, service: MandatesService): void {
  app.get(
    '/v1/partners/:partnerId/mandates',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List a partner’s SEPA mandates',
        params: PartnerParams,
        querystring: ListMandatesQuery,
        response: { 200: PageOf(MandateSchema), ...problems(400, 401, 404) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.params.partnerId, req.query),
  );

  app.post(
    '/v1/partners/:partnerId/mandates',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a SEPA Core direct-debit mandate of a partner',
        params: PartnerParams,
        headers: IdempotencyHeaders,
        body: CreateMandateBody,
        response: { 201: MandateSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const mandate = await service.create(actorOf(req), req.params.partnerId, req.body);
      setEtag(reply, mandate.version);
      reply.header('location', `/v1/sepa/mandates/${mandate.id}`);
      return reply.code(201).send(mandate);
    },
  );

  mandateItemRoutes(app, service);
}

/** `/v1/sepa/mandates/{mandateId}`: read, update, revoke. */
function mandateItemRoutes(app: App, service: MandatesService): void {
  app.get(
    '/v1/sepa/mandates/:mandateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a SEPA mandate',
        params: MandateParams,
        response: { 200: MandateSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const mandate = await service.get(req.principal!.accountId, req.params.mandateId);
      setEtag(reply, mandate.version);
      return mandate;
    },
  );

  app.put(
    '/v1/sepa/mandates/:mandateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a SEPA mandate (partial; a revoked mandate answers 409)',
        params: MandateParams,
        headers: IfMatchHeaders,
        body: UpdateMandateBody,
        response: { 200: MandateSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const mandate = await service.update(
        actorOf(req),
        req.params.mandateId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, mandate.version);
      return mandate;
    },
  );

  app.post(
    '/v1/sepa/mandates/:mandateId/revoke',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Revoke a SEPA mandate (no further collection; once)',
        params: MandateParams,
        headers: IfMatchHeaders,
        body: RevokeMandateBody,
        response: { 200: MandateSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const mandate = await service.revoke(
        actorOf(req),
        req.params.mandateId,
        req.body.version,
        readIfMatch(req),
      );
      setEtag(reply, mandate.version);
      return mandate;
    },
  );
}

function bankAccountRoutes(app: App, service: MandatesService): void {
  app.get(
    '/v1/partners/:partnerId/bank-account',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'A partner’s bank account for SEPA transfers (masked)',
        params: PartnerParams,
        response: { 200: PartnerBankAccountSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const account = await service.getBankAccount(req.principal!.accountId, req.params.partnerId);
      setEtag(reply, account.version);
      return account;
    },
  );

  app.put(
    '/v1/partners/:partnerId/bank-account',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Set a partner’s bank account for SEPA transfers',
        params: PartnerParams,
        headers: IfMatchHeaders,
        body: PutBankAccountBody,
        response: { 200: PartnerBankAccountSchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const account = await service.putBankAccount(
        actorOf(req),
        req.params.partnerId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, account.version);
      return account;
    },
  );
}

function settingsRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/sepa/settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The account’s SEPA settings',
        response: { 200: SepaSettingsSchema, ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      const settings = await readSepaSettings(ctx.db, req.principal!.accountId);
      setEtag(reply, settings.version);
      return settings;
    },
  );

  app.put(
    '/v1/sepa/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the account’s SEPA settings (admin)',
        headers: IfMatchHeaders,
        body: PutSepaSettingsBody,
        response: { 200: SepaSettingsSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const settings = await putSepaSettings(ctx, actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, settings.version);
      return settings;
    },
  );
}

function runRoutes(app: App, ctx: AppContext, runs: RunsService, kind: RunKind): void {
  const base = kind === 'COLLECTION' ? '/v1/sepa/collections' : '/v1/sepa/transfers';

  runCreateRoute(app, ctx, kind, base);
  runReadRoutes(app, runs, kind, base);
}

/** `POST /v1/sepa/collections` or `/v1/sepa/transfers`: a run, or a dry run. */
function runCreateRoute(app: App, ctx: AppContext, kind: RunKind, base: string): void {
  if (kind === 'COLLECTION')
    app.post(
      base,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: 'Collect open invoices by SEPA direct debit (pain.008), or a dry run',
          description:
            'Each invoice is collected on its partner’s active mandate; refused invoices are listed with the reason. A real run answers 201 with the run; a dry run 200 and writes nothing. docs/sepa.md.',
          headers: IdempotencyHeaders,
          body: CreateCollectionBody,
          response: { 200: SepaRunSchema, 201: SepaRunSchema, ...problems(400, 401, 409, 422) },
        },
      },
      async (req, reply) => {
        const run = await createCollection(ctx, actorOf(req), req.body);
        if (run.id !== null) reply.header('location', `${base}/${run.id}`);
        return reply.code(run.dryRun ? 200 : 201).send(run);
      },
    );
  else
    app.post(
      base,
      {
        config: { access: 'user' },
        schema: {
          tags,
          summary: 'Pay open supplier invoices by SEPA credit transfer (pain.001), or a dry run',
          description:
            'Each uploaded supplier invoice is paid to its partner’s bank account or to the e-invoice’s payee IBAN; refused invoices are listed with the reason. A real run answers 201; a dry run 200 and writes nothing. docs/sepa.md.',
          headers: IdempotencyHeaders,
          body: CreateTransferBody,
          response: { 200: SepaRunSchema, 201: SepaRunSchema, ...problems(400, 401, 409, 422) },
        },
      },
      async (req, reply) => {
        const run = await createTransfer(ctx, actorOf(req), req.body);
        if (run.id !== null) reply.header('location', `${base}/${run.id}`);
        return reply.code(run.dryRun ? 200 : 201).send(run);
      },
    );
}

/** A run kind's list, one run, and its file. */
function runReadRoutes(app: App, runs: RunsService, kind: RunKind, base: string): void {
  const collection = kind === 'COLLECTION';
  const noun = collection ? 'collection' : 'transfer';
  const Params = IdParams('runId', 'sep');
  app.get(
    base,
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: `List SEPA ${noun} runs`,
        querystring: ListRunsQuery,
        response: { 200: PageOf(SepaRunSchema), ...problems(400, 401) },
      },
    },
    (req) => runs.list(req.principal!.accountId, kind, req.query),
  );

  app.get(
    `${base}/:runId`,
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: `Get a SEPA ${noun} run`,
        params: Params,
        response: { 200: SepaRunSchema, ...problems(401, 404) },
      },
    },
    (req) => runs.get(req.principal!.accountId, kind, req.params.runId),
  );

  app.get(
    `${base}/:runId/file`,
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: `Download the ${collection ? 'pain.008.001.08' : 'pain.001.001.09'} file of a ${noun} run`,
        params: Params,
        response: {
          200: {
            description: 'The XML file as it was written (`application/xml`).',
            content: { 'application/xml': { schema: Type.Unsafe<string>({ type: 'string' }) } },
          },
          ...problems(401, 404),
        },
      },
    },
    async (req, reply) => {
      const file = await runs.file(req.principal!.accountId, kind, req.params.runId);
      reply.header('content-disposition', `attachment; filename="${file.fileName}"`);
      return reply.type('application/xml; charset=utf-8').send(file.xml);
    },
  );
}
