/**
 * The web app's only way to the server: openapi-fetch typed with the generated `paths` of
 * `@kontor/client`. Every request says `x-kontor-client: web` (the server lets such requests
 * through without an API key and answers `/v1/web/*` only to them); a signed-in request carries
 * the in-memory access token as a bearer. An expired token (401 `token_invalid`) is refreshed
 * once — parallel requests share the refresh — and the request retried; a refused refresh
 * ends the session. The refresh token never reaches script: it is an HttpOnly cookie.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths, Problem } from '@kontor/client';
import { setNetworkState } from './network';
import { accessToken, sessionExpired, setSession, type WebSession } from './session';

const rawFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** Paths whose 401 means "wrong credentials / no session", never "refresh and retry". */
function isSessionPath(schemaPath: string): boolean {
  return schemaPath.startsWith('/v1/web/session') || schemaPath.startsWith('/v1/web/setup');
}

async function isTokenInvalid(response: Response): Promise<boolean> {
  if (response.status !== 401) return false;
  try {
    const body = (await response.clone().json()) as Partial<Problem>;
    return body.code === 'token_invalid';
  } catch {
    return false;
  }
}

// A copy of each request that may need a retry, by openapi-fetch's request id: the body of
// the sent request is consumed by then.
const retryCopies = new Map<string, Request>();

const authMiddleware: Middleware = {
  onRequest({ request, id, schemaPath }) {
    request.headers.set('x-kontor-client', 'web');
    const token = accessToken();
    if (token !== null) request.headers.set('authorization', `Bearer ${token}`);
    if (token !== null && !isSessionPath(schemaPath)) retryCopies.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id }) {
    const copy = retryCopies.get(id);
    retryCopies.delete(id);
    // 502 and 504 come from a reverse proxy in front of a Kontor that is down.
    setNetworkState([502, 503, 504].includes(response.status) ? 'unavailable' : 'ok');
    if (copy === undefined || !(await isTokenInvalid(response))) return response;
    const session = await refreshSession();
    if (session === null) {
      sessionExpired();
      return response;
    }
    copy.headers.set('authorization', `Bearer ${session.accessToken}`);
    return rawFetch(copy);
  },
  onError({ id, error }) {
    retryCopies.delete(id);
    setNetworkState('offline');
    return error instanceof Error ? error : new Error(String(error));
  },
};

export const api = createClient<paths>({
  baseUrl: '',
  fetch: rawFetch,
  credentials: 'same-origin',
});
api.use(authMiddleware);

let refreshing: Promise<WebSession | null> | null = null;

/**
 * Exchanges the refresh cookie for a new access token (and a rotated cookie). Concurrent
 * callers share one request: the cookie is single-use, a second refresh would be refused.
 * Answers null when the server refuses (no or expired cookie); throws when it cannot be reached.
 */
export function refreshSession(): Promise<WebSession | null> {
  refreshing ??= (async () => {
    try {
      const { data } = await acrossTabs(() => api.POST('/v1/web/session/refresh'));
      setSession(data ?? null);
      return data ?? null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/**
 * Runs `work` while no other tab of this origin runs its own: two tabs opened at once would
 * otherwise both present the same single-use refresh cookie, and the server takes the second
 * as a stolen token and ends the session. The tab that waits sends the cookie the first one's
 * refresh set. Without the Web Locks API (very old browsers), it just runs.
 */
function acrossTabs<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  if (locks === undefined) return work();
  return locks.request('kontor-session-refresh', work);
}

/**
 * Restores the session at app start from the refresh cookie (how a reload or a second tab
 * stays signed in). Started once; routes await it before deciding signed-in or not.
 */
export const sessionRestored: Promise<WebSession | null> = refreshSession().catch(() => null);

export async function signIn(email: string, password: string) {
  const result = await api.POST('/v1/web/session', { body: { email, password } });
  if (result.data) setSession(result.data);
  return result;
}

export async function signOut(): Promise<void> {
  try {
    await api.DELETE('/v1/web/session');
  } finally {
    // Signed out here even when the server could not be told: the token leaves memory.
    setSession(null);
  }
}
