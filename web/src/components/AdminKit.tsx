/**
 * Small pieces the admin screens (contracts, month end, settings) share: turning an answer
 * into data or a thrown problem, a problem's message, a paged list's buttons, a one-time
 * secret with its copy button, and a usage bar.
 */
import type { Problem } from '@kontor/client';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ProblemError } from '../api/problems';
import '../styles/admin.css';

/**
 * openapi-fetch's answer as data, or the problem thrown (query functions throw). Lists may
 * also answer CSV; the app asks for JSON (no Accept header), so the text variant is dropped.
 */
export function unwrap<T>(result: { data?: T; error?: unknown }): Exclude<T, string> {
  if (result.error !== undefined) {
    const error = result.error as Partial<Problem>;
    if (typeof error.status === 'number') throw new ProblemError(error as Problem);
    throw new Error('unexpected answer');
  }
  return result.data as Exclude<T, string>;
}

/** What the user reads of a failed request: the problem's detail, or a generic sentence. */
export function useErrorMessage(): (error: unknown) => string {
  const { t } = useTranslation();
  return (error) =>
    error instanceof ProblemError
      ? (error.problem.detail ?? error.problem.title)
      : t('common.unexpected');
}

/** An error announced where it happened (null renders nothing). */
export function ErrorAlert({ error }: { error: unknown }) {
  const message = useErrorMessage();
  if (error === null || error === undefined) return null;
  // The problem's refusals name what to fix (an export's missing settings, say).
  const entries = error instanceof ProblemError ? (error.problem.errors ?? []) : [];
  return (
    <div className="form-alert" role="alert">
      {message(error)}
      {entries.length > 0 ? (
        <ul>
          {entries.map((entry) => (
            <li key={`${entry.path}-${entry.code}`}>{entry.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Cursor paging: the cursors of the pages before this one live in the caller's state. `label`
 * names the pages where a screen has more than one paged list.
 */
export function Pager({
  hasPrevious,
  nextCursor,
  onPrevious,
  onNext,
  label,
}: {
  hasPrevious: boolean;
  nextCursor: string | null | undefined;
  onPrevious: () => void;
  onNext: (cursor: string) => void;
  label?: string;
}) {
  const { t } = useTranslation();
  if (!hasPrevious && !nextCursor) return null;
  return (
    <nav className="admin-pager pager" aria-label={label ?? t('admin.paging')}>
      <button
        type="button"
        className="button button-small"
        disabled={!hasPrevious}
        onClick={onPrevious}
      >
        {t('admin.previous')}
      </button>
      <button
        type="button"
        className="button button-small"
        disabled={!nextCursor}
        onClick={() => nextCursor && onNext(nextCursor)}
      >
        {t('admin.next')}
      </button>
    </nav>
  );
}

/** The cursor stack of a paged list: `cursor` to load, `next`/`previous` to move, `reset` on a filter change. */
export function useCursorPages() {
  const [stack, setStack] = useState<string[]>([]);
  const next = useCallback((cursor: string) => setStack((s) => [...s, cursor]), []);
  const previous = useCallback(() => setStack((s) => s.slice(0, -1)), []);
  // Stable, so a filter's effect can call it; a page that is already first stays as it is.
  const reset = useCallback(() => setStack((s) => (s.length === 0 ? s : [])), []);
  return { cursor: stack.at(-1), hasPrevious: stack.length > 0, next, previous, reset };
}

/** A secret the server shows once: the value, a copy button and the warning that it will not come again. */
export function OneTimeSecret({ label, secret }: { label: string; secret: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="admin-secret">
      <p className="admin-warning" role="note">
        {t('admin.secretOnce')}
      </p>
      <label className="admin-secret-label">
        {label}
        <input
          className="admin-secret-value"
          readOnly
          value={secret}
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <button type="button" className="button button-small" onClick={() => void copy()}>
        {t('admin.copy')}
      </button>
      <span role="status" className="muted">
        {copied ? t('admin.copied') : ''}
      </span>
    </div>
  );
}

/** A usage bar: a native <meter> (announced with its value) and the figures beside it. */
export function UsageBar({
  label,
  used,
  limit,
  text,
}: {
  label: string;
  used: number;
  limit: number;
  text: string;
}) {
  return (
    <div className="admin-usage">
      <label className="admin-usage-label">
        <span>{label}</span>
        <meter
          min={0}
          max={Math.max(limit, 1)}
          low={limit * 0.8}
          high={limit * 0.95}
          optimum={0}
          value={used}
        >
          {text}
        </meter>
      </label>
      <span className="muted">{text}</span>
    </div>
  );
}
