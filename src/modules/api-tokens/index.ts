/** The api-tokens module's face: what the app and other modules may use. */
export { apiTokenRoutes } from './api-tokens.routes.js';
export { deleteUserApiTokens } from './api-tokens.service.js';
