import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  BudgetCategorySchema,
  BudgetEntrySchema,
  CreateBudgetCategoryBody,
  CreateBudgetEntryBody,
  ListBudgetCategoriesQuery,
  ListBudgetEntriesQuery,
  MonthQuery,
  UpdateBudgetCategoryBody,
} from './budgets.schemas.js';
import { BudgetsService } from './budgets.service.js';

const CategoryParams = IdParams('categoryId', 'bgc');
const EntryParams = IdParams('entryId', 'bge');
const tags = ['budgets'];
const deleted = { 204: Type.Null({ description: 'Deleted.' }) };

/** `/v1/budget-categories` and `/v1/budget-entries`: HTTP only, one service call each. */
export function budgetRoutes(app: App, ctx: AppContext): void {
  const service = new BudgetsService(ctx);

  categoryCollectionRoutes(app, service);
  categoryRoutes(app, service);
  entryRoutes(app, service);
}

/** Budget categories: list and create. */
function categoryCollectionRoutes(app: App, service: BudgetsService): void {
  app.get(
    '/v1/budget-categories',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List budget categories with their spending in a month',
        querystring: ListBudgetCategoriesQuery,
        response: { 200: PageOf(BudgetCategorySchema), ...problems(400, 401) },
      },
    },
    (req) => service.listCategories(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/budget-categories',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a budget category',
        headers: IdempotencyHeaders,
        body: CreateBudgetCategoryBody,
        response: { 201: BudgetCategorySchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const category = await service.createCategory(actorOf(req), req.body);
      setEtag(reply, category.version);
      reply.header('location', `/v1/budget-categories/${category.id}`);
      return reply.code(201).send(category);
    },
  );
}

/** One budget category: read, update, delete. */
function categoryRoutes(app: App, service: BudgetsService): void {
  app.get(
    '/v1/budget-categories/:categoryId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a budget category with its spending in a month',
        params: CategoryParams,
        querystring: MonthQuery,
        response: { 200: BudgetCategorySchema, ...problems(400, 401, 404) },
      },
    },
    async (req, reply) => {
      const category = await service.getCategory(
        req.principal!.accountId,
        req.params.categoryId,
        req.query.month,
      );
      setEtag(reply, category.version);
      return category;
    },
  );

  app.patch(
    '/v1/budget-categories/:categoryId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a budget category (the currency cannot change once it has entries)',
        params: CategoryParams,
        headers: IfMatchHeaders,
        body: UpdateBudgetCategoryBody,
        response: { 200: BudgetCategorySchema, ...problems(400, 401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const category = await service.updateCategory(
        actorOf(req),
        req.params.categoryId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, category.version);
      return category;
    },
  );

  app.delete(
    '/v1/budget-categories/:categoryId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a budget category (409 in_use while it has entries: deactivate it)',
        params: CategoryParams,
        headers: IfMatchHeaders,
        response: { ...deleted, ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.removeCategory(actorOf(req), req.params.categoryId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}

/** Budget entries: list, create, read, delete. */
function entryRoutes(app: App, service: BudgetsService): void {
  app.get(
    '/v1/budget-entries',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List budget entries',
        querystring: ListBudgetEntriesQuery,
        response: { 200: PageOf(BudgetEntrySchema), ...problems(400, 401) },
      },
    },
    (req) => service.listEntries(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/budget-entries',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Book an expense against a budget category',
        headers: IdempotencyHeaders,
        body: CreateBudgetEntryBody,
        response: { 201: BudgetEntrySchema, ...problems(400, 401, 413, 422) },
      },
    },
    async (req, reply) => {
      const entry = await service.createEntry(actorOf(req), req.body);
      setEtag(reply, entry.version);
      reply.header('location', `/v1/budget-entries/${entry.id}`);
      return reply.code(201).send(entry);
    },
  );

  app.get(
    '/v1/budget-entries/:entryId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a budget entry',
        params: EntryParams,
        response: { 200: BudgetEntrySchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const entry = await service.getEntry(req.principal!.accountId, req.params.entryId);
      setEtag(reply, entry.version);
      return entry;
    },
  );

  app.delete(
    '/v1/budget-entries/:entryId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a budget entry',
        params: EntryParams,
        headers: IfMatchHeaders,
        response: { ...deleted, ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.removeEntry(actorOf(req), req.params.entryId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
