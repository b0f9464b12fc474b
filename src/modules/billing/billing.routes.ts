import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { AppError } from '../../shared/errors.js';
import { IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { looksLikeCardNumber } from '../../shared/iban.js';
import {
  BillingSchema,
  PutBankAccountBody,
  PutCardBody,
  type BankAccount,
  type Card,
} from './billing.schemas.js';
import { BillingService } from './billing.service.js';

const tags = ['billing'];

/**
 * Refuses a body that carries anything shaped like a full card number, before validation,
 * so the value never reaches a handler, the database or a log line. `skip` names fields
 * whose digits are legitimately long (the IBAN).
 */
function refuseCardNumbers(skip: string[]) {
  return async (req: FastifyRequest) => {
    const hits: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (typeof value === 'string') {
        if (!skip.includes(path) && looksLikeCardNumber(value)) hits.push(path);
      } else if (typeof value === 'number') {
        if (looksLikeCardNumber(String(value))) hits.push(path);
      } else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) walk(v, `${path}/${k}`);
      }
    };
    walk(req.body, '/body');
    if (hits.length > 0)
      throw new AppError(
        'validation_failed',
        'Full card numbers are never accepted. Send the provider’s payment method id and the last four digits.',
        {
          errors: hits.map((path) => ({
            path,
            message: 'looks like a card number',
            code: 'card_number_refused',
          })),
        },
      );
    return Promise.resolve();
  };
}

/** `/v1/account/billing`: everyone reads (masked); admins set the method. */
export function billingRoutes(app: App, ctx: AppContext): void {
  const service = new BillingService(ctx);

  app.get(
    '/v1/account/billing',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The account’s billing method (masked)',
        response: { 200: BillingSchema, ...problems(401) },
      },
    },
    async (req, reply) => {
      const billing = await service.get(req.principal!.accountId);
      setEtag(reply, billing.version);
      return billing;
    },
  );

  app.put(
    '/v1/account/billing/card',
    {
      config: { access: 'admin' },
      preValidation: refuseCardNumbers([]),
      schema: {
        tags,
        summary: 'Pay by card (a provider reference; full card numbers are refused)',
        headers: IfMatchHeaders,
        body: PutCardBody,
        response: { 200: BillingSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const billing = await service.setCard(
        actorOf(req),
        req.body.card as Card,
        req.body.version,
        readIfMatch(req),
      );
      setEtag(reply, billing.version);
      return billing;
    },
  );

  app.put(
    '/v1/account/billing/bank-account',
    {
      config: { access: 'admin' },
      preValidation: refuseCardNumbers(['/body/card/iban']),
      schema: {
        tags,
        summary: 'Pay by SEPA direct debit (IBAN checked, stored encrypted, answered masked)',
        headers: IfMatchHeaders,
        body: PutBankAccountBody,
        response: { 200: BillingSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const billing = await service.setBankAccount(
        actorOf(req),
        req.body.card as BankAccount,
        req.body.version,
        readIfMatch(req),
      );
      setEtag(reply, billing.version);
      return billing;
    },
  );
}
