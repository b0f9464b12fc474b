/**
 * The signed-in session, in memory only: the access token, the user and the account. Nothing
 * of it goes to localStorage or sessionStorage; a reload restores it through the HttpOnly
 * refresh cookie (`restoreSession` in client.ts). React reads it with `useSession`.
 */
import { useSyncExternalStore } from 'react';
import type { paths } from '@kontor/client';

/** The answer of `POST /v1/web/session` (and of refresh and setup, which answer the same). */
export type WebSession =
  paths['/v1/web/session']['post']['responses'][200]['content']['application/json'];

type Listener = () => void;

let current: WebSession | null = null;
const listeners = new Set<Listener>();
const expiredListeners = new Set<Listener>();

export function getSession(): WebSession | null {
  return current;
}

export function accessToken(): string | null {
  return current?.accessToken ?? null;
}

export function setSession(session: WebSession | null): void {
  current = session;
  for (const listener of listeners) listener();
}

/** The session ended without the user signing out (refresh refused): the app routes to sign-in. */
export function sessionExpired(): void {
  setSession(null);
  for (const listener of expiredListeners) listener();
}

export function onSessionExpired(listener: Listener): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): WebSession | null {
  return useSyncExternalStore(subscribe, getSession);
}
