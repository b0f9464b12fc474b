import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CompileDocumentTemplateBody,
  CompileResultSchema,
} from './document-templates-compile.schemas.js';
import {
  CreateDocumentTemplateBody,
  DocumentTemplateSchema,
  ListDocumentTemplatesQuery,
  UpdateDocumentTemplateBody,
} from './document-templates.schemas.js';
import { DocumentTemplatesService } from './document-templates.service.js';

const Params = IdParams('templateId', 'tpl');
const tags = ['document-templates'];

/**
 * `/v1/document-templates`: HTTP only — input, one service call, status, ETag and body.
 * Templates are business records: every user reads and writes them (decisions §4).
 */
export function documentTemplateRoutes(app: App, ctx: AppContext): void {
  const service = new DocumentTemplatesService(ctx);

  documentTemplateCollectionRoutes(app, service);
  documentTemplateItemRoutes(app, service);
}

/** `/v1/document-templates`: list, create, and compile a template without saving it. */
function documentTemplateCollectionRoutes(app: App, service: DocumentTemplatesService): void {
  app.get(
    '/v1/document-templates',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List document templates',
        querystring: ListDocumentTemplatesQuery,
        response: { 200: PageOf(DocumentTemplateSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/document-templates',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a document template',
        description:
          'Compiles the sources with sample data and stores the result. 422 template_invalid (with `problems`) when a source does not parse or render, or when a PUBLISHED template has any problem.',
        headers: IdempotencyHeaders,
        body: CreateDocumentTemplateBody,
        response: { 201: DocumentTemplateSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const template = await service.create(actorOf(req), req.body);
      setEtag(reply, template.version);
      reply.header('location', `/v1/document-templates/${template.id}`);
      return reply.code(201).send(template);
    },
  );

  app.post(
    '/v1/document-templates/compile',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Compile a template without saving it',
        description:
          'Renders the body with the supplied `data` or with fictional sample records and answers the sanitised HTML and every problem (syntax errors with line and column, unknown placeholders, missing required fields, limits, removed markup). Saves nothing.',
        headers: IdempotencyHeaders,
        body: CompileDocumentTemplateBody,
        response: { 200: CompileResultSchema, ...problems(400, 401, 413) },
      },
    },
    (req) => service.compile(req.principal!.accountId, req.body),
  );
}

/** `/v1/document-templates/{templateId}`: read, update and delete one. */
function documentTemplateItemRoutes(app: App, service: DocumentTemplatesService): void {
  app.get(
    '/v1/document-templates/:templateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a document template',
        params: Params,
        response: { 200: DocumentTemplateSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const template = await service.get(req.principal!.accountId, req.params.templateId);
      setEtag(reply, template.version);
      return template;
    },
  );

  app.put(
    '/v1/document-templates/:templateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a document template (partial: omitted fields stay, null clears)',
        description:
          'Recompiles and stores the result. A system template keeps its systemKey (changing or removing it answers 409 state_conflict).',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateDocumentTemplateBody,
        response: { 200: DocumentTemplateSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const template = await service.update(
        actorOf(req),
        req.params.templateId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, template.version);
      return template;
    },
  );

  app.delete(
    '/v1/document-templates/:templateId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a document template (system templates cannot be deleted: 409)',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.templateId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
