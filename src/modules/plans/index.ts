/** The plans module's face: what the app and other modules may use. */
export { AccountPlans } from './account-plans.js';
export { DEFAULT_PLAN, loadPlanCatalogue } from './plans.catalogue.js';
export type { PlanCatalogue } from './plans.catalogue.js';
export { planRoutes } from './plans.routes.js';
export { assertMailQuota, countMail } from './send-quota.js';
export { UsageMeter } from './usage-meter.js';
