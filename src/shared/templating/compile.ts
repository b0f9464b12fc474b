/**
 * Compiling and rendering a document template: header, content and footer each parsed,
 * checked against the context (unknown placeholders, missing required fields), rendered in
 * the sandbox and sanitised. `compileTemplate` reports problems and never throws on a bad
 * template; `renderTemplate` is what document generation calls and refuses to produce a
 * document from a template that cannot render.
 */
import { isoDate } from '../dates.js';
import { AppError } from '../errors.js';
import {
  buildRenderContext,
  type AccountData,
  type CompanyData,
  type ContractData,
  type DocumentData,
  type PartnerData,
  type RenderContext,
} from './context.js';
import {
  budgetMsOf,
  contextVariables,
  parseSource,
  RENDER_LIMIT_MS,
  renderParsed,
  type RenderLimit,
} from './engine.js';
import { FORMATS, type Formats } from './filters.js';
import { resolveFields, type TemplateField } from './fields.js';
import { unknownPath } from './placeholders.js';
import {
  BLOCKING_PROBLEMS,
  TEMPLATE_PARTS,
  type TemplatePart,
  type TemplateProblem,
  type TemplateProblemCode,
} from './problems.js';
import { sampleData } from './sample-data.js';
import { sanitizeTemplateHtml } from './sanitize.js';

/** The sources of a template, as stored. */
export interface TemplateSources {
  headerSource?: string | null;
  contentSource: string;
  footerSource?: string | null;
  fields?: TemplateField[] | null;
}

/** Data a compile may supply instead of the samples (each record replaces its sample). */
export interface CompileData {
  partner?: PartnerData | null;
  contract?: ContractData | null;
  document?: DocumentData | null;
  today?: string;
  fields?: Record<string, unknown>;
}

export interface CompiledTemplate {
  compiledHeaderHtml: string | null;
  compiledContentHtml: string;
  compiledFooterHtml: string | null;
  problems: TemplateProblem[];
}

export interface RenderedTemplate {
  headerHtml: string | null;
  contentHtml: string;
  footerHtml: string | null;
}

interface RenderRun {
  html: Record<TemplatePart, string | null>;
  problems: TemplateProblem[];
}

type ParsedTemplates = ReturnType<typeof parseSource>['templates'];

/** Parses, checks, renders and sanitises every part against `context`. */
function run(
  sources: TemplateSources,
  context: RenderContext,
  mode: 'sample' | 'strict',
  renderLimit: RenderLimit,
  sanitize = true,
): RenderRun {
  const defs = sources.fields ?? [];
  const formats: Formats = {
    dateFormat: context.account.dateFormat,
    numberFormat: context.account.numberFormat,
    currency: context.account.currency,
    today: context.today,
  };
  const partSources: Record<TemplatePart, string | null> = {
    header: sources.headerSource ?? null,
    content: sources.contentSource,
    footer: sources.footerSource ?? null,
  };
  const problems: TemplateProblem[] = [];
  const { parsed, referenced } = parseParts(partSources, new Set(defs.map((f) => f.key)), problems);

  const fields = resolveFields(defs, context.fields, mode, formats, (key) => {
    const parts = referenced.get(key);
    return parts && parts.size > 0 ? [...parts] : ['content'];
  });
  problems.push(...fields.problems);

  const scope = {
    ...fields.values,
    account: context.account,
    company: context.company,
    partner: context.partner,
    contract: context.contract,
    document: context.document,
    invoice: context.invoice,
    today: context.today,
    fields: fields.values,
    [FORMATS]: formats,
  };
  return {
    html: renderParts(partSources, parsed, scope, problems, renderLimit, sanitize),
    problems,
  };
}

/**
 * Parses every part and checks its placeholders against the context and the declared fields
 * (`unknown_placeholder`, once per part and path); answers the parsed parts and, per declared
 * field, the parts that use it. Problems are added to `problems`.
 */
function parseParts(
  partSources: Record<TemplatePart, string | null>,
  fieldKeys: Set<string>,
  problems: TemplateProblem[],
): { parsed: Map<TemplatePart, ParsedTemplates>; referenced: Map<string, Set<TemplatePart>> } {
  const parsed = new Map<TemplatePart, ParsedTemplates>();
  const referenced = new Map<string, Set<TemplatePart>>();
  for (const part of TEMPLATE_PARTS) {
    const source = partSources[part];
    if (source === null) continue;
    const result = parseSource(source);
    if (result.problem) {
      problems.push({ part, ...result.problem });
      continue;
    }
    parsed.set(part, result.templates);
    const reported = new Set<string>();
    for (const use of contextVariables(result.templates)) {
      const [root, key] = use.segments;
      const fieldKey = root === 'fields' ? key : root;
      if (typeof fieldKey === 'string' && fieldKeys.has(fieldKey))
        referenced.set(fieldKey, (referenced.get(fieldKey) ?? new Set()).add(part));
      const unknown = unknownPath(use.segments, fieldKeys);
      if (unknown === undefined || reported.has(unknown)) continue;
      reported.add(unknown);
      problems.push({
        part,
        code: 'unknown_placeholder',
        message: `"${unknown}" is not a placeholder of the context (account, company, partner, contract, document, invoice, today) nor a declared field.`,
        line: use.line,
        column: use.column,
        placeholder: unknown,
      });
    }
  }
  return { parsed, referenced };
}

/**
 * Renders the parsed parts against `scope` within one shared time limit and, with `sanitize`,
 * sanitises the HTML (`unsafe_markup_removed` names what went); a part that failed to parse or
 * render is ''.
 */
function renderParts(
  partSources: Record<TemplatePart, string | null>,
  parsed: Map<TemplatePart, ParsedTemplates>,
  scope: object,
  problems: TemplateProblem[],
  renderLimit: RenderLimit,
  sanitize: boolean,
): Record<TemplatePart, string | null> {
  const html: Record<TemplatePart, string | null> = { header: null, content: null, footer: null };
  const deadline = performance.now() + budgetMsOf(renderLimit);
  for (const part of TEMPLATE_PARTS) {
    const templates = parsed.get(part);
    if (!templates) {
      if (partSources[part] !== null) html[part] = '';
      continue;
    }
    const rendered = renderParsed(templates, scope, deadline - performance.now(), renderLimit);
    if (rendered.problem) {
      problems.push({ part, ...rendered.problem });
      html[part] = '';
      continue;
    }
    if (!sanitize) {
      html[part] = rendered.html;
      continue;
    }
    const clean = sanitizeTemplateHtml(rendered.html);
    html[part] = clean.html;
    if (clean.removed.length > 0)
      problems.push({
        part,
        code: 'unsafe_markup_removed',
        message: `Removed markup that is not allowed in documents: ${clean.removed.join(', ')}.`,
      });
  }
  return html;
}

/**
 * Compiles a template for preview and storage: renders with the supplied `data` (each
 * record given replaces its sample; field values come only from `data.fields` and the
 * defaults, so missing required fields show) or, without `data`, with fictional sample
 * records and sample field values. Never throws on a bad template: problems list it.
 */
export function compileTemplate(
  body: TemplateSources,
  opts: {
    account: AccountData;
    /** The account's company master data (real, never a sample). */
    company?: CompanyData | null;
    data?: CompileData | null;
    today?: string;
    /** Time budget of the whole render (ms) under the caps, or `OWN_SOURCES` (`RenderLimit`). */
    renderLimit?: RenderLimit;
  },
): CompiledTemplate {
  const today = opts.data?.today ?? opts.today ?? isoDate(new Date());
  const sample = sampleData(today, opts.account.currency);
  const data = opts.data ?? undefined;
  const context = buildRenderContext({
    account: opts.account,
    company: opts.company ?? null,
    partner: data?.partner !== undefined ? data.partner : sample.partner,
    contract: data?.contract !== undefined ? data.contract : sample.contract,
    document: data?.document !== undefined ? data.document : sample.document,
    today,
    fields: data?.fields ?? {},
  });
  const result = run(
    body,
    context,
    data ? 'strict' : 'sample',
    opts.renderLimit ?? RENDER_LIMIT_MS,
  );
  return {
    compiledHeaderHtml: result.html.header,
    compiledContentHtml: result.html.content ?? '',
    compiledFooterHtml: result.html.footer,
    problems: result.problems,
  };
}

/** Problems that stop a document from being generated. */
const RENDER_BLOCKING: readonly TemplateProblemCode[] = [
  ...BLOCKING_PROBLEMS,
  'missing_required_field',
  'invalid_field_value',
];

/**
 * Renders a template for a real document (`context` from `buildRenderContext`). Throws 422
 * `template_invalid` with `problems` when it cannot: a syntax or runtime error, a limit, a
 * required field without a value or a value of the wrong type. Unknown placeholders print
 * nothing and removed markup stays removed; neither stops the document.
 */
export function renderTemplate(
  template: TemplateSources,
  context: RenderContext,
  renderLimit: RenderLimit = RENDER_LIMIT_MS,
): RenderedTemplate {
  const result = run(template, context, 'strict', renderLimit);
  throwBlocking(result.problems);
  return {
    headerHtml: result.html.header,
    contentHtml: result.html.content ?? '',
    footerHtml: result.html.footer,
  };
}

/**
 * Whether `renderTemplate` would render this document: throws the same 422 `template_invalid`
 * when it would not, and answers nothing. The HTML is not sanitised: sanitising only removes
 * markup and reports it (`unsafe_markup_removed`), which never stops a document, and it is a
 * third of the work (a draft invoice's check: 1.5 ms → 1 ms CPU).
 */
export function checkTemplateRenders(
  template: TemplateSources,
  context: RenderContext,
  renderLimit: RenderLimit = RENDER_LIMIT_MS,
): void {
  throwBlocking(run(template, context, 'strict', renderLimit, false).problems);
}

function throwBlocking(problems: TemplateProblem[]): void {
  const blocking = problems.filter((p) => RENDER_BLOCKING.includes(p.code));
  if (blocking.length > 0)
    throw new AppError(
      'template_invalid',
      `The template cannot be rendered: ${blocking.map((p) => p.message).join(' ')}`,
      { members: { problems: blocking } },
    );
}
