/**
 * The rules of document templates that are not HTTP and not SQL: defaults, the checks a body
 * must pass beyond its schema, what may be saved after compiling, and how an update merges.
 */
import { AppError, type FieldError } from '../../shared/errors.js';
import { searchText } from '../../http/pagination.js';
import {
  BLOCKING_PROBLEMS,
  convertFieldValue,
  RESERVED_KEYS,
  type CompiledTemplate,
  type TemplateField,
} from '../../shared/templating/index.js';
import type { CompileDocumentTemplate } from './document-templates-compile.schemas.js';
import { presentField, presentTemplate } from './document-templates.presenter.js';
import type { TemplateRow } from './document-templates.repository.js';
import {
  MAX_SOURCE_BYTES,
  type CreateDocumentTemplate,
  type DocumentTemplate,
  type SystemKey,
  type UpdateDocumentTemplate,
} from './document-templates.schemas.js';

/** The writable state of a template, as the API names it. */
export interface TemplateState {
  name: string;
  documentType: DocumentTemplate['documentType'];
  contentSource: string;
  fields: TemplateField[];
  headerSource: string | null;
  headerVisibility: DocumentTemplate['headerVisibility'];
  footerSource: string | null;
  footerVisibility: DocumentTemplate['footerVisibility'];
  showLogo: boolean;
  logoPosition: DocumentTemplate['logoPosition'];
  status: DocumentTemplate['status'];
  systemKey: SystemKey | null;
}

type TemplateBody = CreateDocumentTemplate | CompileDocumentTemplate;

/** A body with the defaults filled in (decisions: LETTER, ALL_PAGES, no logo, TOP_RIGHT, DRAFT). */
export function withDefaults(input: TemplateBody): TemplateState {
  return {
    name: input.name,
    documentType: input.documentType ?? 'LETTER',
    contentSource: input.contentSource,
    fields: ((input.fields ?? []) as TemplateField[]).map(presentField),
    headerSource: input.headerSource ?? null,
    headerVisibility: input.headerVisibility ?? 'ALL_PAGES',
    footerSource: input.footerSource ?? null,
    footerVisibility: input.footerVisibility ?? 'ALL_PAGES',
    showLogo: input.showLogo ?? false,
    logoPosition: input.logoPosition ?? 'TOP_RIGHT',
    status: input.status ?? 'DRAFT',
    systemKey: input.systemKey ?? null,
  };
}

export function stateOf(row: TemplateRow): TemplateState {
  const t = presentTemplate(row);
  return {
    name: t.name,
    documentType: t.documentType,
    contentSource: t.contentSource,
    fields: (JSON.parse(row.fields) as TemplateField[]).map(presentField),
    headerSource: t.headerSource,
    headerVisibility: t.headerVisibility,
    footerSource: t.footerSource,
    footerVisibility: t.footerVisibility,
    showLogo: t.showLogo,
    logoPosition: t.logoPosition,
    status: t.status,
    systemKey: t.systemKey,
  };
}

export function rowValues(state: TemplateState, compiled: CompiledTemplate) {
  return {
    name: state.name,
    search_name: searchText(state.name),
    document_type: state.documentType,
    content_source: state.contentSource,
    fields: JSON.stringify(state.fields),
    header_source: state.headerSource,
    header_visibility: state.headerVisibility,
    footer_source: state.footerSource,
    footer_visibility: state.footerVisibility,
    show_logo: state.showLogo ? 1 : 0,
    logo_position: state.logoPosition,
    status: state.status,
    system_key: state.systemKey,
    compiled_header_html: compiled.compiledHeaderHtml,
    compiled_content_html: compiled.compiledContentHtml,
    compiled_footer_html: compiled.compiledFooterHtml,
  };
}

/**
 * What the schema cannot say: sources at most 200 KiB in UTF-8, field keys unique and not
 * reserved, defaults that fit their type (money with no more decimals than the currency).
 */
export function checkState(state: TemplateState, currency: string): void {
  const errors: FieldError[] = [];
  for (const name of ['contentSource', 'headerSource', 'footerSource'] as const) {
    const value = state[name];
    if (value !== null && Buffer.byteLength(value, 'utf8') > MAX_SOURCE_BYTES)
      errors.push({
        path: `/body/${name}`,
        message: `must be at most 200 KiB (${MAX_SOURCE_BYTES} bytes of UTF-8)`,
        code: 'too_large',
      });
  }
  const seen = new Set<string>();
  state.fields.forEach((field, i) => {
    const at = `/body/fields/${i}`;
    if (seen.has(field.key))
      errors.push({
        path: `${at}/key`,
        message: `duplicates the key "${field.key}"`,
        code: 'duplicate',
      });
    seen.add(field.key);
    if (RESERVED_KEYS.includes(field.key))
      errors.push({
        path: `${at}/key`,
        message: `"${field.key}" is a name of the template context`,
        code: 'reserved',
      });
    const value = field.default;
    if (
      value !== null &&
      value !== undefined &&
      convertFieldValue(field.type, value, currency) === undefined
    )
      errors.push({
        path: `${at}/default`,
        message:
          field.type === 'money'
            ? `must be a number in ${currency} with at most its decimals`
            : field.type === 'date'
              ? 'must be a date YYYY-MM-DD'
              : `must be a ${field.type === 'text' ? 'string' : 'number'}`,
        code: 'invalid_value',
      });
  });
  if (errors.length > 0)
    throw new AppError(
      'validation_failed',
      `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
      { errors },
    );
}

/**
 * Whether a compiled template may be stored: never with a syntax error, a runtime error or a
 * limit hit; as PUBLISHED only without any problem (unknown placeholders and removed markup
 * are fine in a DRAFT).
 */
export function assertSavable(state: TemplateState, compiled: CompiledTemplate): void {
  const blocking = compiled.problems.filter((p) => BLOCKING_PROBLEMS.includes(p.code));
  if (blocking.length > 0)
    throw new AppError(
      'template_invalid',
      `The template cannot be saved: ${blocking.map((p) => p.message).join(' ')}`,
      { members: { problems: compiled.problems } },
    );
  if (state.status === 'PUBLISHED' && compiled.problems.length > 0)
    throw new AppError(
      'template_invalid',
      `A PUBLISHED template must compile without problems; fix them or save it as DRAFT: ${compiled.problems.map((p) => p.message).join(' ')}`,
      { members: { problems: compiled.problems } },
    );
}

export const systemKeyReadOnly = () =>
  new AppError(
    'validation_failed',
    'systemKey is set by the server on the seeded system templates only.',
    {
      errors: [
        {
          path: '/body/systemKey',
          message: 'cannot be set: system templates are seeded by the server',
          code: 'read_only',
        },
      ],
    },
  );

/** The stored state with the body applied; a system template keeps its key. */
export function applyUpdate(state: TemplateState, input: UpdateDocumentTemplate): TemplateState {
  if (input.systemKey !== undefined && input.systemKey !== state.systemKey)
    throw new AppError(
      'state_conflict',
      state.systemKey === null
        ? 'systemKey cannot be given to a template: only the seeded system templates carry one.'
        : `This is the ${state.systemKey} system template: its systemKey cannot be changed or removed.`,
    );
  return {
    ...state,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.documentType !== undefined && { documentType: input.documentType }),
    ...(input.contentSource !== undefined && { contentSource: input.contentSource }),
    ...(input.fields !== undefined && {
      fields: ((input.fields ?? []) as TemplateField[]).map(presentField),
    }),
    ...(input.headerSource !== undefined && { headerSource: input.headerSource }),
    ...(input.headerVisibility !== undefined && { headerVisibility: input.headerVisibility }),
    ...(input.footerSource !== undefined && { footerSource: input.footerSource }),
    ...(input.footerVisibility !== undefined && { footerVisibility: input.footerVisibility }),
    ...(input.showLogo !== undefined && { showLogo: input.showLogo }),
    ...(input.logoPosition !== undefined && { logoPosition: input.logoPosition }),
    ...(input.status !== undefined && { status: input.status }),
  };
}
