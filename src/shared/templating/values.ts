/** Readers of loosely typed input (records may come from stored JSON): wrong types become null. */
import { toMinor } from '../money.js';

/** Major units → minor units of `currency`; null when absent or not writable in it. */
export function minorOf(amount: unknown, currency: string | null): number | null {
  if (typeof amount !== 'number' || currency === null) return null;
  try {
    return toMinor(amount, currency) ?? null;
  } catch {
    return null; // an unknown currency: the amount cannot be written
  }
}

/** A finite number, else null. */
export const numberOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
/** A string, else null. */
export const stringOrNull = (value: unknown): string | null =>
  typeof value === 'string' ? value : null;

/** Items of a list that are objects (lines and taxes may come from stored JSON). */
export function objectsOf<T extends object>(list: readonly unknown[] | null | undefined): T[] {
  return (list ?? []).filter(
    (item): item is T => typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}
