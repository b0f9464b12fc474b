import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

export function budgetRoutes(_app: App, _ctx: AppContext): void {}
