/**
 * Every error the API answers has a stable snake_case code from this table; the HTTP status
 * and title belong to the code, never to the call site. Rendered by `problem.ts` (RFC 9457).
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'Validation failed' },
  malformed_json: { status: 400, title: 'Malformed JSON' },
  bad_request: { status: 400, title: 'Bad request' },
  signature_invalid: { status: 400, title: 'Invalid webhook signature' },
  code_invalid: { status: 400, title: 'Invalid or expired code' },
  password_rejected: { status: 400, title: 'Password rejected' },
  not_a_session: { status: 400, title: 'Not a session token' },
  link_invalid: { status: 400, title: 'Invalid or expired link' },
  value_not_storable: { status: 400, title: 'Value cannot be stored' },
  api_key_invalid: { status: 401, title: 'Invalid API key' },
  token_invalid: { status: 401, title: 'Invalid token' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  forbidden: { status: 403, title: 'Forbidden' },
  client_header_missing: { status: 403, title: 'Web client header missing' },
  url_invalid: { status: 403, title: 'Invalid or expired signed URL' },
  email_not_confirmed: { status: 403, title: 'Email not confirmed' },
  not_found: { status: 404, title: 'Not found' },
  setup_link_invalid: { status: 404, title: 'Setup link used or unknown' },
  route_not_found: { status: 404, title: 'Route not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  request_timeout: { status: 408, title: 'Request timeout' },
  version_conflict: { status: 409, title: 'Version conflict' },
  state_conflict: { status: 409, title: 'State conflict' },
  duplicate: { status: 409, title: 'Duplicate' },
  in_use: { status: 409, title: 'In use' },
  last_admin: { status: 409, title: 'Last admin' },
  token_limit_reached: { status: 409, title: 'Token limit reached' },
  plan_limit_exceeded: { status: 409, title: 'Current usage exceeds the plan' },
  storage_limit_exceeded: { status: 409, title: 'Storage limit of the plan reached' },
  idempotency_in_progress: { status: 409, title: 'Request with this idempotency key in progress' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  precondition_required: { status: 428, title: 'Precondition required' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  reference_not_found: { status: 422, title: 'Referenced record not found' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  seat_limit_reached: { status: 422, title: 'Seat limit reached' },
  business_rule_violated: { status: 422, title: 'Business rule violated' },
  content_mismatch: { status: 422, title: 'File content does not match its declared type' },
  template_invalid: { status: 422, title: 'Template invalid' },
  invoice_incomplete: { status: 422, title: 'Invoice incomplete' },
  file_unprocessable: { status: 422, title: 'File cannot be processed' },
  rate_limited: { status: 429, title: 'Too many requests' },
  quota_exceeded: { status: 429, title: 'Quota exceeded' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  insufficient_storage: { status: 507, title: 'Insufficient storage' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** JSON pointer into the request, e.g. `/body/addresses/0/country`. */
  path: string;
  message: string;
  code: string;
}

/** An expected failure with a stable code; anything else thrown becomes a 500. */
export class AppError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly extras: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      /** Extra members of the problem body, e.g. `currentVersion`. */
      members?: Record<string, unknown>;
    } = {},
  ) {
    super(detail ?? ERROR_CODES[code].title);
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found.`);

export const referenceNotFound = (field: string, what: string) =>
  new AppError('reference_not_found', `${what} referenced by ${field} does not exist.`, {
    errors: [{ path: `/body/${field}`, message: `${what} not found`, code: 'reference_not_found' }],
  });
