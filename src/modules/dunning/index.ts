/** The dunning module's face: what the app and other modules may use. */
export { dunningRoutes, startDunningSchedule } from './dunning.routes.js';
