import { useId, type InputHTMLAttributes } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** react-hook-form's `register(…)`; a form without it passes `name` (and handlers) itself. */
  registration?: UseFormRegisterReturn;
  error?: { message?: string | undefined } | undefined;
  hint?: string;
}

/**
 * A labelled input whose error and hint are tied to it (aria-describedby, aria-invalid).
 * It imports only react-hook-form's types: the sign-in page uses it without the library.
 */
export function Field({ label, registration, error, hint, ...input }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        {...input}
        {...registration}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy === '' ? undefined : describedBy}
      />
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error?.message ? (
        <p className="field-error" id={errorId}>
          {error.message}
        </p>
      ) : null}
    </div>
  );
}

/** The form-level message (a problem's detail): announced when it appears. */
export function FormAlert({ message }: { message: string | null }) {
  if (message === null) return null;
  return (
    <div className="form-alert" role="alert">
      {message}
    </div>
  );
}

/** A success note (e.g. "a code is on its way"). */
export function FormNote({ message }: { message: string | null }) {
  if (message === null) return null;
  return (
    <div className="form-note" role="status">
      {message}
    </div>
  );
}
