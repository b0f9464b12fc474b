import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Ajv } from 'ajv';
import { ConfigError } from '../../config.js';

/** Sends per day of a plan that does not say (operators' older catalogues). */
export const DEFAULT_MAILS_PER_DAY = 100;
/** Webhook endpoints of a plan that does not say (operators' older catalogues). */
export const DEFAULT_WEBHOOK_ENDPOINTS = 10;
/**
 * No plan has more webhook endpoints than this: every event is one delivery per endpoint, so
 * the endpoints of one account multiply its share of the delivery work (docs/webhooks.md).
 */
export const MAX_WEBHOOK_ENDPOINTS = 100;

/** One plan of the catalogue (decisions §13). Prices in minor units. */
export const PlanSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,30}$', description: 'Plan id, e.g. STARTER.' }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name.' }),
    seats: Type.Integer({ minimum: 1, description: 'Users the plan includes.' }),
    requestsPerMinute: Type.Integer({
      minimum: 1,
      description:
        'Requests per minute and user, whatever the token; the account as a whole gets this times its seats.',
    }),
    requestsPerMonth: Type.Integer({
      minimum: 1,
      description: 'Requests per calendar month (UTC) and account.',
    }),
    storageBytes: Type.Integer({ minimum: 0, description: 'File storage included.' }),
    mailsPerDay: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `Documents the account may send per UTC day (default ${DEFAULT_MAILS_PER_DAY}).`,
      }),
    ),
    webhookEndpoints: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WEBHOOK_ENDPOINTS,
        description: `Outbound webhook endpoints the account may have (default ${DEFAULT_WEBHOOK_ENDPOINTS}, at most ${MAX_WEBHOOK_ENDPOINTS}).`,
      }),
    ),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'Currency of the price.' }),
    monthlyPrice: Type.Integer({ minimum: 0, description: 'Monthly price in minor units.' }),
  },
  { additionalProperties: false },
);
export type Plan = Static<typeof PlanSchema>;
/** A plan as the catalogue answers it: the optional limits filled in with their defaults. */
export type CataloguePlan = Plan & { webhookEndpoints: number };

const MB = 1024 * 1024;

/** The default catalogue; operators replace it with `PLANS_FILE`. */
export const DEFAULT_PLANS: Plan[] = [
  {
    id: 'FREE',
    name: 'Free',
    seats: 3,
    requestsPerMinute: 120,
    requestsPerMonth: 20_000,
    storageBytes: 100 * MB,
    mailsPerDay: 20,
    webhookEndpoints: 10,
    currency: 'EUR',
    monthlyPrice: 0,
  },
  {
    id: 'STARTER',
    name: 'Starter',
    seats: 10,
    requestsPerMinute: 600,
    requestsPerMonth: 500_000,
    storageBytes: 5_000 * MB,
    mailsPerDay: 200,
    webhookEndpoints: 25,
    currency: 'EUR',
    monthlyPrice: 1900,
  },
  {
    id: 'BUSINESS',
    name: 'Business',
    seats: 50,
    requestsPerMinute: 3000,
    requestsPerMonth: 5_000_000,
    storageBytes: 50_000 * MB,
    mailsPerDay: 2000,
    webhookEndpoints: 100,
    currency: 'EUR',
    monthlyPrice: 4900,
  },
];

export const DEFAULT_PLAN = 'FREE';

/** The plans this deployment sells, in catalogue order (cheapest first). */
export class PlanCatalogue {
  private readonly byId: Map<string, CataloguePlan>;
  readonly plans: CataloguePlan[];

  constructor(plans: Plan[]) {
    this.plans = plans.map((p) => ({
      ...p,
      webhookEndpoints: p.webhookEndpoints ?? DEFAULT_WEBHOOK_ENDPOINTS,
    }));
    this.byId = new Map(this.plans.map((p) => [p.id, p]));
  }

  /** The plan; an id that left the catalogue falls back to the first (free) plan. */
  get(id: string): CataloguePlan {
    return this.byId.get(id) ?? this.plans[0]!;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }
}

/**
 * The catalogue from `PLANS_FILE` (a JSON array of plans, which must include FREE, the plan
 * new accounts start on), or the default one. A bad file stops the start with a clear message.
 */
export function loadPlanCatalogue(file: string | undefined): PlanCatalogue {
  if (!file) return new PlanCatalogue(DEFAULT_PLANS);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError('PLANS_FILE', `cannot be read as JSON: ${(err as Error).message}`);
  }
  const validate = new Ajv({ allErrors: true, strict: false }).compile(
    Type.Array(PlanSchema, { minItems: 1 }),
  );
  if (!validate(parsed))
    throw new ConfigError(
      'PLANS_FILE',
      `is not a plan list: ${validate.errors?.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`,
    );
  const plans = parsed as Plan[];
  if (!plans.some((p) => p.id === DEFAULT_PLAN))
    throw new ConfigError('PLANS_FILE', `must contain the ${DEFAULT_PLAN} plan`);
  if (new Set(plans.map((p) => p.id)).size !== plans.length)
    throw new ConfigError('PLANS_FILE', 'has duplicate plan ids');
  return new PlanCatalogue(plans);
}
