/** The sepa module's face: what the app and other modules may use. */
export { sepaRoutes } from './sepa.routes.js';
export {
  findRunItemsByEndToEndId,
  findSepaBatches,
  MANDATE_ENDING_REASONS,
  returnSepaPayment,
  type ReturnInput,
  type SepaBatchMatch,
  type SepaRunMatch,
} from './round-trip.js';
export { autoCollect, startAutoCollectSchedule } from './auto-collect.job.js';
