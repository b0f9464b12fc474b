/**
 * The sandboxed template language (decisions §9): Liquid, logic-light. Templates may print
 * `{{ placeholders }}` (HTML-escaped, always: `raw` does not exist here) and use `if`,
 * `unless`, `case`, `for`, `assign`, `cycle`, `increment` and comments. Nothing reaches
 * outside the render: `include`, `render`, `layout`, `block` and `capture` are refused at
 * parse time, the file system behind Liquid refuses every read, only own properties of the
 * context are visible (no `constructor`, no prototype), unknown filters are syntax errors,
 * and every render runs under limits on source length, time, allocation and output size
 * (Kontor's own system templates: see `RenderLimit`).
 */
import {
  AssertionError,
  Context,
  ForTag,
  Liquid,
  LiquidError,
  TablerowTag,
  Tag,
  Token,
  toValueSync,
  type Emitter,
  type FS,
  type Parser,
  type TagToken,
  type Template,
  type TopLevelToken,
} from 'liquidjs';
import { registerFilters, text } from './filters.js';

/** Longest source one parse accepts (characters); stored sources are capped at 200 KiB. */
export const PARSE_LIMIT = 256 * 1024;
/**
 * Default time budget of one render of all parts of a template, in milliseconds; the service
 * passes its configured one (`TEMPLATE_RENDER_LIMIT_MS`).
 */
export const RENDER_LIMIT_MS = 500;
/**
 * A render without a time budget and without the caps below (loops, allocations, output).
 * Only for Kontor's own layouts that declare no fields (`renderLimitOf`): they loop over the
 * document's own lists and print the document's, partner's and seller's data, all of bounded
 * size, through filters that answer every value, so the caps could only refuse a large valid
 * document (the PDF keeps its own page and time limits). A template with fields prints values
 * the API does not bound, so it keeps the caps even as Kontor wrote it.
 */
export const OWN_SOURCES: unique symbol = Symbol('own sources');
/**
 * How one render is limited: a time budget in milliseconds (`Infinity`: none) under the caps
 * below, or `OWN_SOURCES`.
 */
export type RenderLimit = number | typeof OWN_SOURCES;

/** The time budget of a render limit, in milliseconds (`Infinity`: none). */
export function budgetMsOf(limit: RenderLimit): number {
  return limit === OWN_SOURCES ? Infinity : limit;
}
/**
 * Allocation budget of one part's render, in Liquid's units (array items, string
 * characters). A range allocates its length, so it also caps every loop: `(1..N)` with a
 * larger N fails at once instead of running.
 */
export const MEMORY_LIMIT = 2_000_000;
/** Longest HTML one part may render to (characters). */
export const OUTPUT_LIMIT = 1_000_000;
/** Loop iterations one part's render may run, all loops together. */
export const LOOP_LIMIT = 10_000;

/** A problem the engine found, before the caller adds which part it belongs to. */
export interface EngineProblem {
  code: 'syntax_error' | 'render_error' | 'limit_exceeded';
  message: string;
  line?: number;
  column?: number;
}

class OutputLimitError extends Error {
  constructor() {
    super(`output size limit exceeded (more than ${OUTPUT_LIMIT} characters)`);
  }
}

class LoopLimitError extends Error {
  constructor() {
    super(`loop limit exceeded (more than ${LOOP_LIMIT} iterations)`);
  }
}

const LOOPS = 'kontor:loops';

/** The loop iterations a render ran so far, and how many it may run. */
interface LoopCount {
  count: number;
  limit: number;
}

/**
 * A template that counts one loop iteration and stops the render past its limit (set by
 * `renderParsed`). It is put first into a loop's body, so it runs once per iteration, whatever
 * the body holds.
 */
function loopCounter(token: TagToken): Template {
  return {
    token,
    render(ctx: Context) {
      const loops = ctx.getRegister<LoopCount>(LOOPS);
      if (++loops.count > loops.limit) throw new LoopLimitError();
    },
  };
}

class CountedFor extends ForTag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remainTokens, liquid, parser);
    this.templates.unshift(loopCounter(token));
  }
}

class CountedTablerow extends TablerowTag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remainTokens, liquid, parser);
    this.templates.unshift(loopCounter(token));
  }
}

/*
 * Liquid finds a token's line and column by scanning its source from the start, once per
 * variable during static analysis: quadratic, seconds of CPU for a 200 KiB template full of
 * placeholders. The same answer from an index of line starts, built once per source.
 */
let indexedSource: string | undefined;
let lineStarts: number[] = [];
Token.prototype.getPosition = function (this: Token): number[] {
  if (this.input !== indexedSource) {
    lineStarts = [0];
    for (let i = this.input.indexOf('\n'); i !== -1; i = this.input.indexOf('\n', i + 1))
      lineStarts.push(i + 1);
    indexedSource = this.input;
  }
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid]! <= this.begin) low = mid;
    else high = mid - 1;
  }
  return [low + 1, this.begin - lineStarts[low]! + 1];
};

const refusingFs: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new Error('templates cannot read files')),
  readFileSync: () => {
    throw new Error('templates cannot read files');
  },
  resolve: () => {
    throw new Error('templates cannot read files');
  },
  contains: () => Promise.resolve(false),
  containsSync: () => false,
};

/** A tag that refuses to parse, so the template is a syntax error naming it. */
function refusedTag(why: string) {
  return class RefusedTag extends Tag {
    constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
      super(token, remainTokens, liquid);
      throw new Error(`{% ${token.name} %} is not available in document templates: ${why}`);
    }
    render(): void {}
  };
}

function createEngine(): Liquid {
  const liquid = new Liquid({
    fs: refusingFs,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: false,
    outputEscape: 'escape',
    jsTruthy: false,
    timezoneOffset: 0,
    parseLimit: PARSE_LIMIT,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
  });
  const noFiles = 'templates cannot load other templates or files';
  for (const name of ['include', 'render', 'layout', 'block'])
    liquid.registerTag(name, refusedTag(noFiles));
  liquid.registerTag('capture', refusedTag('use assign instead'));
  liquid.registerTag('for', CountedFor);
  liquid.registerTag('tablerow', CountedTablerow);
  // Placeholders are always escaped: markup comes from the template, never from data.
  liquid.unregisterFilter('raw');

  registerFilters(liquid);
  return liquid;
}

const engine = createEngine();

function position(err: unknown): { line?: number; column?: number } {
  if (err instanceof LiquidError && err.token) {
    const [line, column] = err.token.getPosition();
    return { line, column };
  }
  return {};
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/, line:\d+, col:\d+$/, '');
}

function isLimit(err: unknown): boolean {
  const original = err instanceof LiquidError ? err.originalError : err;
  return (
    original instanceof OutputLimitError ||
    original instanceof LoopLimitError ||
    ((original instanceof AssertionError || err instanceof AssertionError) &&
      /limit exceeded/.test(describe(original ?? err)))
  );
}

/**
 * Parsed sources, most recently used last: a template renders for every document made from
 * it (a billing or dunning run renders thousands), and parsing was a third of each render.
 * Parsed templates hold no render state, so one parse serves every render. Bounded by count
 * and by the sources' total length (a parse tree is some 60 times its source), and only
 * sources of a usual size are kept, so compiling large one-off sources cannot fill the memory.
 */
const PARSED_CACHE_SIZE = 256;
const PARSED_CACHE_CHARS = 1_000_000;
const CACHED_SOURCE_MAX = 64 * 1024;
const parsed = new Map<string, Template[]>();
let parsedChars = 0;
/** `contextVariables` per parsed source (analysing walks the whole tree). */
const variables = new WeakMap<Template[], VariableUse[]>();

/** Parses a source, or says where and why it is not a valid template. */
export function parseSource(
  source: string,
):
  | { templates: Template[]; problem?: undefined }
  | { templates?: undefined; problem: EngineProblem } {
  const hit = parsed.get(source);
  if (hit) {
    parsed.delete(source);
    parsed.set(source, hit);
    return { templates: hit };
  }
  try {
    const templates = engine.parse(source);
    if (source.length <= CACHED_SOURCE_MAX) {
      parsed.set(source, templates);
      parsedChars += source.length;
      while (parsed.size > PARSED_CACHE_SIZE || parsedChars > PARSED_CACHE_CHARS) {
        const oldest = parsed.keys().next().value!;
        parsed.delete(oldest);
        parsedChars -= oldest.length;
      }
    }
    return { templates };
  } catch (err) {
    if (isLimit(err))
      return {
        problem: {
          code: 'limit_exceeded',
          message: `The template is longer than ${PARSE_LIMIT} characters.`,
        },
      };
    return { problem: { code: 'syntax_error', message: describe(err), ...position(err) } };
  }
}

export interface VariableUse {
  segments: (string | number | unknown[])[];
  line: number;
  column: number;
}

/** Every variable the template expects from the context (not its own assigns or loop variables). */
export function contextVariables(templates: Template[]): readonly VariableUse[] {
  const known = variables.get(templates);
  if (known) return known;
  const analysis = engine.analyzeSync(templates, { partials: false });
  const uses = Object.values(analysis.globals).flatMap((list) =>
    list.map((v) => ({ segments: v.toArray(), line: v.location.row, column: v.location.col })),
  );
  variables.set(templates, uses);
  return uses;
}

class CappedEmitter implements Emitter {
  buffer = '';
  constructor(private readonly limit: number) {}
  write(html: unknown): void {
    const value: unknown = html;
    this.buffer += Array.isArray(value) ? value.map(text).join('') : text(value);
    if (this.buffer.length > this.limit) throw new OutputLimitError();
  }
}

/**
 * Renders parsed templates against `scope` (whose `[FORMATS]` the filters read) within
 * `budgetMs` and, unless `limit` is `OWN_SOURCES`, the caps; a limit or a runtime failure comes
 * back as a problem, never as a throw.
 */
export function renderParsed(
  templates: Template[],
  scope: object,
  budgetMs: number,
  /** The whole render's budget, named in the problem's message. */
  limit: RenderLimit,
): { html: string; problem?: undefined } | { html?: undefined; problem: EngineProblem } {
  const own = limit === OWN_SOURCES;
  const ctx = new Context(
    scope,
    engine.options,
    {
      sync: true,
      renderLimit: Math.max(1, budgetMs),
      memoryLimit: own ? Infinity : MEMORY_LIMIT,
    },
    { liquid: engine },
  );
  ctx.setRegister(LOOPS, { count: 0, limit: own ? Infinity : LOOP_LIMIT } satisfies LoopCount);
  const emitter = new CappedEmitter(own ? Infinity : OUTPUT_LIMIT);
  try {
    toValueSync(engine.renderer.renderTemplates(templates, ctx, emitter));
    return { html: emitter.buffer };
  } catch (err) {
    if (isLimit(err))
      return {
        problem: {
          code: 'limit_exceeded',
          message: `Rendering stopped: ${describe(err instanceof LiquidError ? (err.originalError ?? err) : err)}. Loops, text and output are capped (at most ${String(budgetMsOf(limit))} ms per render).`,
          ...position(err),
        },
      };
    return { problem: { code: 'render_error', message: describe(err), ...position(err) } };
  }
}
