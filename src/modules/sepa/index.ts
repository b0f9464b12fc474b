/** The sepa module's face: what the app and other modules may use. */
export { sepaRoutes } from './sepa.routes.js';
