import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

/** `/v1/tax-rates`: being built (issue 3). */
export function taxRateRoutes(_app: App, _ctx: AppContext): void {}
