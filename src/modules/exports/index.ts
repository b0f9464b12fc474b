/** The exports module's face: what the app and other modules may use. */
export { exportRoutes } from './exports.routes.js';
