import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/newsletter`: being built (issue 3). */
export function newsletterRoutes(_app: App, _ctx: AppContext): void {}
