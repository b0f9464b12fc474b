/** The partners module's face: what the app and other modules may use. */
export { presentPartner } from './partners.presenter.js';
export { findPartner, findPartnerLater, matchPartner } from './partners.repository.js';
export type { PartnerRow } from './partners.repository.js';
export { partnerRoutes } from './partners.routes.js';
export { PARTNER_TYPES } from './partners.schemas.js';
