import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  AccountSettingsSchema,
  type Address,
  PatchSettingsBody,
  PutAddressesBody,
} from './account.schemas.js';
import { AccountService } from './account.service.js';
import {
  CheckCompanyBody,
  CompanyCheckSchema,
  CompanySchema,
  PutCompanyBody,
} from './company.schemas.js';

const tags = ['account'];
const path = '/v1/account/addresses';

/**
 * `/v1/account/addresses`: GET for everyone; PUT (addresses) and PATCH (settings) for admins.
 * `/v1/account/company`: the seller's master data; GET for everyone, PUT for admins, and
 * `/v1/account/company/check` for admins: the PUT's checks without writing.
 */
export function accountRoutes(app: App, ctx: AppContext): void {
  const service = new AccountService(ctx);

  addressRoutes(app, service);
  companyRoutes(app, service);
}

/** `/v1/account/addresses`: the addresses and the settings. */
function addressRoutes(app: App, service: AccountService): void {
  app.get(
    path,
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The account’s addresses and settings',
        response: { 200: AccountSettingsSchema, ...problems(401) },
      },
    },
    async (req, reply) => {
      const account = await service.get(req.principal!.accountId);
      setEtag(reply, account.version);
      return account;
    },
  );

  app.put(
    path,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Replace the account’s addresses',
        headers: IfMatchHeaders,
        body: PutAddressesBody,
        response: { 200: AccountSettingsSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const account = await service.putAddresses(
        actorOf(req),
        req.body.version,
        req.body.addresses as Address[],
        readIfMatch(req),
      );
      setEtag(reply, account.version);
      return account;
    },
  );

  app.patch(
    path,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change account settings (formats, currency, reminders, widgets, logo)',
        headers: IfMatchHeaders,
        body: PatchSettingsBody,
        response: { 200: AccountSettingsSchema, ...problems(400, 401, 403, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const account = await service.patchSettings(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, account.version);
      return account;
    },
  );
}

/** `/v1/account/company`: the seller’s master data. */
function companyRoutes(app: App, service: AccountService): void {
  app.get(
    '/v1/account/company',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The seller’s master data (defaults until an admin sets it)',
        response: { 200: CompanySchema, ...problems(401) },
      },
    },
    async (req, reply) => {
      const company = await service.getCompany(req.principal!.accountId);
      setEtag(reply, company.version);
      return company;
    },
  );

  app.put(
    '/v1/account/company',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Replace the seller’s master data (every field; the account’s version)',
        headers: IfMatchHeaders,
        body: PutCompanyBody,
        response: { 200: CompanySchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const company = await service.putCompany(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, company.version);
      return company;
    },
  );

  app.post(
    '/v1/account/company/check',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Check the seller’s master data as the PUT would, without saving it',
        description:
          'Runs every check of `PUT /v1/account/company` (the schema, VAT id, tax number, electronic address, IBANs and BICs) on the body, which is the PUT’s without `version`, and writes nothing: no version moves, no audit event. 200 `{valid: true}`, or the same 400 `validation_failed` the PUT would answer, a JSON pointer per refused field. Forms call it while the user types. See docs/invoicing.md.',
        body: CheckCompanyBody,
        response: { 200: CompanyCheckSchema, ...problems(400, 401, 403) },
      },
    },
    (req) => service.checkCompany(req.body),
  );
}
