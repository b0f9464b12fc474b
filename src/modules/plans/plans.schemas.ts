import { Type } from 'typebox';

const PlanView = Type.Object(
  {
    id: Type.String({ description: 'Plan id.' }),
    name: Type.String({ description: 'Display name.' }),
    seats: Type.Integer({ description: 'Users included.' }),
    requestsPerMinute: Type.Integer({ description: 'Requests per minute and bearer token.' }),
    requestsPerMonth: Type.Integer({
      description: 'Requests per calendar month (UTC) and account.',
    }),
    storageBytes: Type.Integer({ description: 'File storage included, in bytes.' }),
    mailsPerDay: Type.Integer({ description: 'Documents the account may send per UTC day.' }),
    webhookEndpoints: Type.Integer({
      description: 'Outbound webhook endpoints the account may have (at most 100 on any plan).',
    }),
    currency: Type.String({ description: 'Currency of the price.' }),
    monthlyPrice: Type.Number({ description: 'Monthly price in major units.' }),
  },
  { additionalProperties: false },
);

export const PlansSchema = Type.Object(
  {
    data: Type.Array(PlanView, { description: 'The catalogue, cheapest first.' }),
    currentPlanId: Type.String({ description: 'The plan the account is on.' }),
  },
  { additionalProperties: false },
);

export const ChangePlanBody = Type.Object(
  { planId: Type.String({ minLength: 1, maxLength: 40, description: 'The plan to switch to.' }) },
  { additionalProperties: false },
);

export const LicenseSchema = Type.Object(
  {
    accountId: Type.String(),
    planId: Type.String(),
    planName: Type.String(),
    seats: Type.Integer({ description: 'Seats the plan includes.' }),
    status: Type.Enum(['ACTIVE', 'PAST_DUE', 'CANCELED'], {
      description: 'Set by the payment provider’s subscription events.',
    }),
    currentPeriodStart: Type.String({
      description: 'Start of the current billing period (YYYY-MM-DD).',
    }),
    currentPeriodEnd: Type.String({
      description: 'End of the current billing period (YYYY-MM-DD, exclusive).',
    }),
    version: Type.Integer(),
  },
  { additionalProperties: false, description: 'The account’s license.' },
);

export const LicensesSchema = Type.Object(
  { data: Type.Array(LicenseSchema), nextCursor: Type.Null() },
  { additionalProperties: false },
);

export const UsageSchema = Type.Object(
  {
    planId: Type.String(),
    period: Type.Object({
      month: Type.String({ description: 'YYYY-MM (UTC).' }),
      resetsAt: Type.String({ format: 'date-time' }),
    }),
    requests: Type.Object({
      thisMinute: Type.Object({
        used: Type.Integer({
          description:
            'Requests of the calling user (all their tokens and sessions) in the current minute window, this one included.',
        }),
        limit: Type.Integer(),
      }),
      thisMonth: Type.Object({
        used: Type.Integer({ description: 'Requests of the account this month.' }),
        limit: Type.Integer(),
      }),
    }),
    storage: Type.Object({ usedBytes: Type.Integer(), limitBytes: Type.Integer() }),
    seats: Type.Object({ used: Type.Integer(), included: Type.Integer() }),
    documents: Type.Object({ count: Type.Integer() }),
    mailsToday: Type.Object(
      {
        used: Type.Integer({ description: 'Documents sent today (UTC).' }),
        limit: Type.Integer({ description: 'The plan’s daily send cap.' }),
      },
      { description: 'Sends of documents today against the plan’s cap (429 beyond it).' },
    ),
    rateLimits: Type.Enum(['on', 'off'], {
      description: 'off: this deployment lifts limits and quotas.',
    }),
  },
  { additionalProperties: false },
);
