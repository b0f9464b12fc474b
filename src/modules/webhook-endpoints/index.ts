/** The webhook-endpoints module's face: what the app and other modules may use. */
export { emitEvent, emitEvents, prefetchEndpoints, withoutEndpoints } from './emit.js';
export { countEndpoints as countWebhookEndpoints } from './webhook-endpoints.repository.js';
export { webhookEndpointRoutes } from './webhook-endpoints.routes.js';
export { WEBHOOK_EVENT_TYPES } from './webhook-endpoints.schemas.js';
export type { WebhookEventType } from './webhook-endpoints.schemas.js';
