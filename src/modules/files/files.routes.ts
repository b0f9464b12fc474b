import type { App } from '../../app.js';
import type { AppContext } from '../../context.js';

export function fileRoutes(_app: App, _ctx: AppContext): void {}
