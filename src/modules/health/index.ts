/** The health module's face: what the app and other modules may use. */
export { healthRoutes } from './health.routes.js';
