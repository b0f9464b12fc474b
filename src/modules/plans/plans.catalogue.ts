/**
 * The plan catalogue (decisions §13). Issue 3 makes it operator-configurable and adds limits;
 * the foundation needs the seats to guard invitations.
 */
export interface Plan {
  id: 'FREE' | 'STARTER' | 'BUSINESS';
  name: string;
  seats: number;
  currency: string;
  /** Monthly price in minor units. */
  monthlyPrice: number;
}

export const PLANS: Record<Plan['id'], Plan> = {
  FREE: { id: 'FREE', name: 'Free', seats: 3, currency: 'EUR', monthlyPrice: 0 },
  STARTER: { id: 'STARTER', name: 'Starter', seats: 10, currency: 'EUR', monthlyPrice: 1900 },
  BUSINESS: { id: 'BUSINESS', name: 'Business', seats: 50, currency: 'EUR', monthlyPrice: 4900 },
};

export const DEFAULT_PLAN: Plan['id'] = 'FREE';

export function planOf(id: string): Plan {
  return PLANS[id as Plan['id']] ?? PLANS.FREE;
}
