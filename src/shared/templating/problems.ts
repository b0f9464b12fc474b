/** What a compile can find wrong with a template, by part. */

export const TEMPLATE_PARTS = ['header', 'content', 'footer'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

export const PROBLEM_CODES = [
  'syntax_error',
  'render_error',
  'unknown_placeholder',
  'missing_required_field',
  'invalid_field_value',
  'limit_exceeded',
  'unsafe_markup_removed',
] as const;
export type TemplateProblemCode = (typeof PROBLEM_CODES)[number];

export interface TemplateProblem {
  part: TemplatePart;
  code: TemplateProblemCode;
  message: string;
  line?: number;
  column?: number;
  placeholder?: string;
}

/** Problems that leave nothing usable to render: a template with one cannot be saved. */
export const BLOCKING_PROBLEMS: readonly TemplateProblemCode[] = [
  'syntax_error',
  'render_error',
  'limit_exceeded',
];
