/**
 * Labelled select, textarea and checkbox in the manner of `Field` (Form.tsx): the error and
 * hint tied to the control (aria-describedby, aria-invalid), for react-hook-form's `register`.
 */
import {
  useId,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

interface Common {
  label: string;
  registration: UseFormRegisterReturn;
  error?: { message?: string | undefined } | undefined;
  hint?: string | undefined;
}

function describe(id: string, hint: unknown, error: Common['error']) {
  const ids = [hint ? `${id}-hint` : null, error?.message ? `${id}-error` : null];
  const describedBy = ids.filter(Boolean).join(' ');
  return {
    'aria-invalid': error?.message ? true : undefined,
    'aria-describedby': describedBy === '' ? undefined : describedBy,
  };
}

function Notes({
  id,
  hint,
  error,
}: {
  id: string;
  hint?: string | undefined;
  error: Common['error'];
}) {
  return (
    <>
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
    </>
  );
}

export function SelectField({
  label,
  registration,
  error,
  hint,
  children,
  ...select
}: Common & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> & { children: ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select} {...registration} {...describe(id, hint, error)}>
        {children}
      </select>
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextAreaField({
  label,
  registration,
  error,
  hint,
  ...textarea
}: Common & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} {...textarea} {...registration} {...describe(id, hint, error)} />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function CheckboxField({ label, registration, error, hint }: Common) {
  const id = useId();
  return (
    <div className="field field-checkbox">
      <div className="checkbox-row">
        <input id={id} type="checkbox" {...registration} {...describe(id, hint, error)} />
        <label htmlFor={id}>{label}</label>
      </div>
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}
