/** The notes module's face: what the app and other modules may use. */
export { noteRoutes } from './notes.routes.js';
export { NOTE_PARENT_TYPES } from './notes.schemas.js';
export { startReminderScheduler } from './reminders.job.js';
