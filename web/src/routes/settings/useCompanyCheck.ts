/**
 * The company form's fields checked as the user goes, by the API itself
 * (`POST /v1/account/company/check`, the PUT's checks without saving): on leaving a field, and
 * a moment after typing stops in the ones worth it (IBAN, VAT id, tax number). The API's message
 * for the field shows beside it as a save's would, and goes once the field is fine. A field is
 * checked alone: the stored data with only that field (or its address or bank account) as
 * typed, so another field's half-typed value cannot hide or cause its message. An empty field
 * or one as stored is not checked; the typed text is never touched.
 */
import type { components } from '@kontor/client';
import { useEffect, useRef } from 'react';
import {
  get,
  type FieldValues,
  type Path,
  type UseFormClearErrors,
  type UseFormGetValues,
  type UseFormSetError,
} from 'react-hook-form';
import { api } from '../../api/client';
import { fieldOfPointer } from '../../api/problems';

type CheckCompany = components['schemas']['CheckCompanyRequest'];

/** How long typing has to pause before a field is checked. */
const TYPING_PAUSE_MS = 400;

interface Options<V extends FieldValues> {
  getValues: UseFormGetValues<V>;
  setError: UseFormSetError<V>;
  clearErrors: UseFormClearErrors<V>;
  /** The stored data as form values (what the form started from or last saved). */
  stored: () => V;
  /** The body the API checks, built from form values as a save would build it. */
  body: (values: V) => CheckCompany;
}

export interface CompanyCheck<V extends FieldValues> {
  /** Checks the field now (on leaving it). */
  now: (field: Path<V>) => void;
  /** Checks the field once typing pauses. */
  soon: (field: Path<V>) => void;
}

export function useCompanyCheck<V extends FieldValues>({
  getValues,
  setError,
  clearErrors,
  stored,
  body,
}: Options<V>): CompanyCheck<V> {
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  // The latest check asked per field: an older answer arriving late is dropped.
  const asked = useRef(new Map<string, number>());

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
    };
  }, []);

  const cancel = (field: string) => {
    clearTimeout(timers.current.get(field));
    timers.current.delete(field);
  };

  const check = async (field: Path<V>) => {
    cancel(field);
    const value: unknown = getValues(field);
    if (typeof value !== 'string') return;
    if (value.trim() === '') {
      clearErrors(field);
      return;
    }
    const base = stored();
    if (get(base, field) === value) return;
    // The stored data with this field's group (the field, its address, its bank account) as typed.
    const group = field.split('.')[0] as keyof V;
    const values = { ...base, [group]: getValues()[group] };
    const ticket = (asked.current.get(field) ?? 0) + 1;
    asked.current.set(field, ticket);
    const answer = await api
      .POST('/v1/account/company/check', { body: body(values) })
      .catch(() => null);
    if (answer === null) return; // No answer: the save will tell.
    if (asked.current.get(field) !== ticket || getValues(field) !== value) return;
    if (answer.error === undefined) {
      clearErrors(field);
      return;
    }
    // Only a verdict on the data counts; anything else (rights, limits) the save will tell.
    if (answer.error.code !== 'validation_failed') return;
    const refused = answer.error.errors?.find((entry) => fieldOfPointer(entry.path) === field);
    if (refused === undefined) clearErrors(field);
    else setError(field, { type: refused.code, message: refused.message });
  };

  return {
    now: (field) => void check(field),
    soon: (field) => {
      cancel(field);
      timers.current.set(
        field,
        setTimeout(() => void check(field), TYPING_PAUSE_MS),
      );
    },
  };
}
