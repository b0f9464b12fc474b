/**
 * Document templates: the sandboxed engine, the sanitiser and the render context
 * (decisions §9). The document-templates module compiles with it; document generation
 * builds a context with `buildRenderContext` and calls `renderTemplate` (or, to check a
 * draft, `checkTemplateRenders`).
 */
export {
  checkTemplateRenders,
  compileTemplate,
  renderTemplate,
  type CompileData,
  type CompiledTemplate,
  type RenderedTemplate,
  type TemplateSources,
} from './compile.js';
export {
  convertFieldValue,
  FIELD_TYPES,
  type TemplateField,
  type TemplateFieldType,
} from './fields.js';
export {
  BLOCKING_PROBLEMS,
  PROBLEM_CODES,
  TEMPLATE_PARTS,
  type TemplatePart,
  type TemplateProblem,
  type TemplateProblemCode,
} from './problems.js';
export {
  buildRenderContext,
  type AccountData,
  type AddressData,
  type CompanyData,
  type ContractData,
  type DocumentData,
  type InvoiceData,
  type PartnerData,
  type RenderContext,
  type RenderInput,
} from './context.js';
export {
  giroCodeRequest,
  INVOICE_LABELS,
  unitName,
  type DirectDebitNotice,
  type GiroCodeRequest,
  type InvoiceLabels,
  type InvoiceLanguage,
} from './invoice.js';
export { RESERVED_KEYS } from './placeholders.js';
export { sanitizeCss, sanitizeTemplateHtml, type SanitizedHtml } from './sanitize.js';
export {
  DATE_FORMATS,
  formatDisplayDate,
  formatMoney,
  formatNumber,
  NUMBER_FORMATS,
  type DateFormat,
  type NumberFormat,
} from './format.js';
export {
  MEMORY_LIMIT,
  OUTPUT_LIMIT,
  OWN_SOURCES,
  PARSE_LIMIT,
  RENDER_LIMIT_MS,
  type RenderLimit,
} from './engine.js';
