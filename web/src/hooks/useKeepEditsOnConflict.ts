/**
 * "Reload and keep my edits", once for every form that saves at a version: a save the API
 * refuses as stale (409 `version_conflict`, or 412 when an `If-Match` did not match) marks a
 * conflict, and the way out reads the stored record again and hands it to the form, which
 * puts what the user typed on top of it (saves the same values against it, or shows them over
 * it). Nothing typed is lost on the way.
 */
import type { Problem } from '@kontor/client';
import { useState } from 'react';

/** Whether a problem says the record changed since the form read it. */
export function isStaleVersion(problem: Problem): boolean {
  return (
    problem.code === 'version_conflict' ||
    problem.code === 'precondition_failed' ||
    problem.status === 412
  );
}

/** What a read through the generated client answers: the record or the API's problem. */
export type Loaded<T> = { data: T; error?: undefined } | { data?: undefined; error: Problem };

interface Options<T> {
  /** Reads the stored record (the form's GET). */
  load: () => Promise<Loaded<T>>;
  /** Puts the typed values on the stored record: saves them against it or shows them over it. */
  keep: (stored: T) => Promise<void> | void;
  /** Shows a problem of the reload (the form's own way of showing a save's problem). */
  onProblem: (problem: Problem) => void;
  /** The reload got no answer (network, a bug): the form's "unexpected" message. */
  onUnexpected: () => void;
}

export interface KeepEditsOnConflict {
  /** A save met a newer version: the form offers the reload. */
  conflict: boolean;
  /** Notes a save's problem (or its success, with null); answers whether it was a conflict. */
  noteProblem: (problem: Problem | null) => boolean;
  /** Reads the stored version and keeps what was typed (the button's action). */
  reloadKeepingEdits: () => Promise<void>;
}

/** The conflict state of a versioned form and its "reload and keep my edits" action. */
export function useKeepEditsOnConflict<T>({
  load,
  keep,
  onProblem,
  onUnexpected,
}: Options<T>): KeepEditsOnConflict {
  const [conflict, setConflict] = useState(false);

  const noteProblem = (problem: Problem | null) => {
    const stale = problem !== null && isStaleVersion(problem);
    setConflict(stale);
    return stale;
  };

  const reloadKeepingEdits = async () => {
    let loaded: Loaded<T>;
    try {
      loaded = await load();
    } catch {
      onUnexpected();
      return;
    }
    if (loaded.error !== undefined) {
      onProblem(loaded.error);
      return;
    }
    await keep(loaded.data);
  };

  return { conflict, noteProblem, reloadKeepingEdits };
}
