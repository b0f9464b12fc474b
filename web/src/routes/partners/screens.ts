// The partner screens, one chunk: the router names one import for all three (each lazy import
// costs the sign-in entry its own preload list).
export { PartnersPage } from './PartnersPage';
export { PartnerNewPage } from './PartnerNewPage';
export { PartnerDetailPage } from './PartnerDetailPage';
