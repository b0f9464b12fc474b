import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/webhooks`: being built (issue 3). */
export function webhookRoutes(_app: App, _ctx: AppContext): void {}
