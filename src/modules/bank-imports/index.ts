/** The bank-imports module's face: what the app and other modules may use. */
export { bankImportRoutes } from './bank-imports.routes.js';
