/** The auth module's face: what the app and other modules may use. */
export { authRoutes } from './auth.routes.js';
export { CredentialCache } from './credential-cache.js';
export { credentialLookup } from './credentials.repository.js';
export { createSetupLink } from './web-session.service.js';
