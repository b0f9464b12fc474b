/** The newsletter module's face: what the app and other modules may use. */
export { newsletterRoutes } from './newsletter.routes.js';
