/** The api-keys module's face: what the app and other modules may use. */
export { countActiveApiKeys, createApiKey, listApiKeys, revokeApiKey } from './api-keys.service.js';
