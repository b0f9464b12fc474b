/** The products module's face: what the app and other modules may use. */
export { findProduct, findProductLater } from './products.repository.js';
export type { ProductRow } from './products.repository.js';
export { productRoutes } from './products.routes.js';
