/**
 * Typed client for the Kontor API: openapi-fetch over the types openapi-typescript generates
 * from `openapi/openapi.json` (`schema.d.ts`, never edited by hand).
 *
 *     const kontor = createKontorClient({ baseUrl, apiKey, token });
 *     const { data, error } = await kontor.GET('/v1/partners/{partnerId}', {
 *       params: { path: { partnerId } },
 *     });
 *
 * Every call answers `{ data, error, response }`: `data` is the typed success body, `error` the
 * typed problem (RFC 9457, `application/problem+json`) of a 4xx/5xx answer. `unwrap` turns the
 * pair into the data or a thrown `KontorProblemError`.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths } from './schema.js';

/** An RFC 9457 problem as every Kontor error answer carries it. */
export type Problem = components['schemas']['Problem'];

/** Stable snake_case error codes (`Problem['code']`), e.g. `version_conflict`. */
export type ProblemCode = Problem['code'];

/**
 * The media types the client reads: JSON, problems and files. Lists also answer `text/csv`
 * when asked (`Accept: text/csv`); the typed client asks for JSON and types it as such.
 */
export type KontorMedia = `application/${string}`;

/** The client `createKontorClient` returns: `GET`, `POST`, `PUT`, `DELETE`, … typed per path. */
export type KontorClient = Client<paths, KontorMedia>;

export interface KontorClientOptions {
  /** Where the API is served, e.g. `http://localhost:3000` (no `/v1`; paths carry it). */
  baseUrl: string;
  /** The client API key, sent as `x-api-key` on every request. */
  apiKey: string;
  /**
   * A bearer for user routes: an access token from `POST /v1/auth/login` or a personal API
   * token from `POST /v1/api-tokens`. Omit it for the public auth routes.
   */
  token?: string;
  /** A `fetch` to use instead of the global one (tests, proxies, retries). */
  fetch?: ClientOptions['fetch'];
  /** Further headers sent on every request. */
  headers?: Record<string, string>;
}

/** A client that sends `x-api-key` and, when a token is given, `authorization: Bearer …`. */
export function createKontorClient(options: KontorClientOptions): KontorClient {
  const headers: Record<string, string> = { ...options.headers, 'x-api-key': options.apiKey };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return createClient<paths, KontorMedia>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** Whether a value is a Kontor problem body (what `error` holds for a 4xx/5xx answer). */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.status === 'number' && typeof v.code === 'string' && typeof v.title === 'string';
}

/** Thrown by `unwrap` for an error answer; `problem` is the typed body. */
export class KontorProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode | undefined;

  constructor(
    readonly problem: Problem | undefined,
    readonly response: Response,
  ) {
    super(
      problem
        ? `${response.status} ${problem.code}: ${problem.detail ?? problem.title}`
        : `${response.status} ${response.statusText || 'error'} without a problem body`,
    );
    this.name = 'KontorProblemError';
    this.status = response.status;
    this.code = problem?.code;
  }
}

/**
 * The data of a successful call, or a thrown `KontorProblemError` carrying the problem:
 * `const partner = unwrap(await kontor.GET(…))`.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw new KontorProblemError(isProblem(result.error) ? result.error : undefined, result.response);
}
