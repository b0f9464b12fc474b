/** The audit module's face: what the app and other modules may use. */
export { auditRoutes } from './audit.routes.js';
