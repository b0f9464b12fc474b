import type { InputHTMLAttributes } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

interface EditorFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  /** Fixed, so the finalize check can link to the field (`#invoice-deliveryDate`). */
  id: string;
  label: string;
  registration: UseFormRegisterReturn;
  error?: { message?: string | undefined } | undefined;
  hint?: string;
}

/** A labelled input of the invoice editor, its hint and error tied to it. */
export function EditorField({ id, label, registration, error, hint, ...input }: EditorFieldProps) {
  const describedBy = [hint ? `${id}-hint` : null, error?.message ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
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
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error?.message ? (
        <p className="field-error" id={`${id}-error`}>
          {error.message}
        </p>
      ) : null}
    </div>
  );
}
