/** The dashboard module's face: what the app and other modules may use. */
export { dashboardRoutes } from './dashboard.routes.js';
