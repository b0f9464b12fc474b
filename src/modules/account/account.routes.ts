import type { App } from '../../app.js';
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

const tags = ['account'];
const path = '/v1/account/addresses';

/** `/v1/account/addresses`: GET for everyone; PUT (addresses) and PATCH (settings) for admins. */
export function accountRoutes(app: App, ctx: AppContext): void {
  const service = new AccountService(ctx);

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
