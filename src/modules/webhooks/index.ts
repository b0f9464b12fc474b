/** The webhooks module's face: what the app and other modules may use. */
export { webhookRoutes } from './webhooks.routes.js';
