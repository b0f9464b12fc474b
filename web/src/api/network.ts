/**
 * Whether the server was reachable at the last request: `offline` when fetch itself failed,
 * `unavailable` on a 503. The banner shows it with a Retry button; any answer from the server
 * clears it. What Retry asks again is registered by whoever holds data (the query client).
 */
import { useSyncExternalStore } from 'react';

export type NetworkState = 'ok' | 'offline' | 'unavailable';

let state: NetworkState = 'ok';
const listeners = new Set<() => void>();
const retryHandlers = new Set<() => Promise<unknown>>();

export function setNetworkState(next: NetworkState): void {
  if (next === state) return;
  state = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useNetworkState(): NetworkState {
  return useSyncExternalStore(subscribe, () => state);
}

export function onRetry(handler: () => Promise<unknown>): void {
  retryHandlers.add(handler);
}

/** Asks again for everything registered; settles when all did (failures show in the banner). */
export async function retryAll(): Promise<void> {
  await Promise.allSettled([...retryHandlers].map((handler) => handler()));
}
