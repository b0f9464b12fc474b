import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/contracts`: being built (issue 3). */
export function contractRoutes(_app: App, _ctx: AppContext): void {}
