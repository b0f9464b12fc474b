import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/notes`: being built (issue 3). */
export function noteRoutes(_app: App, _ctx: AppContext): void {}
