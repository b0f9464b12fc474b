/**
 * What the screens that list records and edit one at a time in a form beside the list
 * (products, tax rates) share: which record the form edits and the note a finished form
 * leaves, the header with its "New" button, the list's loading and failure, a row's two-step
 * delete, the frame of the form and the version it saves at with its way out of a version
 * conflict. What each record is, its form and its table stay with its screen.
 */
import type { Problem } from '@kontor/client';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useKeepEditsOnConflict, type Loaded } from '../hooks/useKeepEditsOnConflict';
import { ConfirmDeleteButton } from './ConfirmDeleteButton';
import { FormAlert } from './Form';

/**
 * What the form edits (`E`: a new record or which one; null: no form) and the note above the
 * list. `done` closes the form with a note ('' for none) and gives the keyboard back to the
 * "New" button.
 */
export function useRecordEditing<E>() {
  const [editing, setEditing] = useState<E | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const open = (next: E) => {
    setNote(null);
    setEditing(next);
  };
  const done = (message: string) => {
    setEditing(null);
    // The form is gone: the keyboard goes back to where a next one starts.
    requestAnimationFrame(() => newButton.current?.focus());
    setNote(message === '' ? null : message);
  };
  return { editing, note, newButton, open, done };
}

/** The screen's title and its "New" button. */
export function RecordListHeader({
  title,
  newLabel,
  newButton,
  onNew,
}: {
  title: string;
  newLabel: string;
  newButton: RefObject<HTMLButtonElement | null>;
  onNew: () => void;
}) {
  return (
    <div className="screen-header">
      <h1 id="screen-title">{title}</h1>
      <button ref={newButton} type="button" className="button button-primary" onClick={onNew}>
        {newLabel}
      </button>
    </div>
  );
}

/** The list while it loads, or its failure with a Retry. */
export function RecordListStatus(props: {
  isPending: boolean;
  isError: boolean;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      {props.isPending ? (
        <p role="status" aria-busy="true">
          {t('app.loading')}
        </p>
      ) : null}
      {props.isError ? (
        <div role="alert">
          <p>{t('common.unexpected')}</p>
          <button type="button" className="button" onClick={props.onRetry}>
            {t('errors.retry')}
          </button>
        </div>
      ) : null}
    </>
  );
}

/**
 * A row's delete: asks first, shows the API's refusal in its words, and after the delete
 * refreshes what showed the record and leaves `deleted` as the note.
 */
export function DeleteRecordButton(props: {
  labels: { delete: string; deleteNamed: string; confirm: string; cancel: string };
  remove: () => Promise<{ error?: Problem }>;
  /** The queries that showed the record (lists, pickers, the setup checklist). */
  invalidate: readonly QueryKey[];
  deleted: string;
  onDone: (note: string) => void;
}) {
  const queryClient = useQueryClient();
  const onDelete = async () => {
    const { error } = await props.remove();
    if (error) return error.detail ?? error.title;
    for (const queryKey of props.invalidate) await queryClient.invalidateQueries({ queryKey });
    props.onDone(props.deleted);
    return null;
  };
  return <ConfirmDeleteButton labels={props.labels} onDelete={onDelete} />;
}

/**
 * The form beside the list: its heading takes the keyboard when it opens (the form appears
 * away from the button that opened it), the form's message and, after a version conflict, the
 * way out (`reload`), then the fields and Save / Cancel.
 */
export function RecordForm(props: {
  id: string;
  title: string;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  busy: boolean;
  error: string | null;
  /** Shown after a version conflict: reload the record and save the edits onto it. */
  reload: { label: string; onClick: () => void } | null;
  saveLabel: string;
  cancelLabel: string;
  onCancel: () => void;
  children: ReactNode;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const titleId = `${props.id}-title`;
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <h2 id={titleId} tabIndex={-1} ref={headingRef}>
        {props.title}
      </h2>
      <form className="form" noValidate aria-labelledby={titleId} onSubmit={props.onSubmit}>
        <FormAlert message={props.error} />
        {props.reload ? (
          <button type="button" className="button" onClick={props.reload.onClick}>
            {props.reload.label}
          </button>
        ) : null}
        {props.children}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={props.busy}>
            {props.saveLabel}
          </button>
          <button type="button" className="button" onClick={props.onCancel}>
            {props.cancelLabel}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The version a record's form saves at, and what its save's problems show. A save refused as
 * stale (409 `version_conflict`, 412) shows `conflict` and offers `reload` (for `RecordForm`):
 * it reads the stored record and saves what was typed again on its version, so nothing typed
 * is lost (the forms send only the fields the owner changed: the other writer's changes to the
 * rest stay). Any other problem is the form's `fieldProblem` (on its fields, else above them).
 */
export function useRecordVersion<T extends { version: number }>(options: {
  /** The version the form opened (0 for a new record, which cannot be stale). */
  version: number;
  /** Reads the stored record. */
  load: () => Promise<Loaded<T>>;
  /** Saves the typed values at this version. */
  resave: (version: number) => Promise<void>;
  /** Shows the form's message (null: none). */
  showError: (message: string | null) => void;
  fieldProblem: (problem: Problem) => string | null;
  texts: { conflict: string; reload: string };
}) {
  const { t } = useTranslation();
  const [version, setVersion] = useState(options.version);
  const keepEdits = useKeepEditsOnConflict<T>({
    load: options.load,
    keep: async (stored) => {
      setVersion(stored.version);
      await options.resave(stored.version);
    },
    onProblem: (problem) => showProblem(problem),
    onUnexpected: () => options.showError(t('common.unexpected')),
  });

  /** Shows a save's problem: the conflict's way out (the API's words are for developers) or the fields'. */
  function showProblem(problem: Problem) {
    options.showError(
      keepEdits.noteProblem(problem) ? options.texts.conflict : options.fieldProblem(problem),
    );
  }

  return {
    version,
    showProblem,
    reload: keepEdits.conflict
      ? { label: options.texts.reload, onClick: () => void keepEdits.reloadKeepingEdits() }
      : null,
  };
}
