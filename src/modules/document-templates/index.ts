/** The document-templates module's face: what the app and other modules may use. */
export { findTemplate, findTemplateLater } from './document-templates.repository.js';
export type { TemplateRow } from './document-templates.repository.js';
export { documentTemplateRoutes } from './document-templates.routes.js';
export { TemplateFieldSchema } from './document-templates.schemas.js';
export {
  currentSystemTemplateLater,
  ensureSystemTemplate,
  renderLimitOf,
  rendersEveryDocument,
  seedSystemTemplates,
} from './system-templates.js';
