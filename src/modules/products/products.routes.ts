import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/products`: being built (issue 3). */
export function productRoutes(_app: App, _ctx: AppContext): void {}
