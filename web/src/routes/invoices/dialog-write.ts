/**
 * The write behind each of an invoice's action dialogs (send, payment, credit note, Storno):
 * whether the dialog is open, busy while the write runs, the problem it answered (or the
 * unexpected-error text) as the dialog's message, one Idempotency-Key per attempt, and the
 * invoices (list and detail) refreshed after every successful write.
 */
import type { Problem } from '@kontor/client';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/keys';
import { splitProblem } from '../../api/problems';
import { queryClient } from '../../api/query';

type AttemptHeader = { 'idempotency-key': string };

/** What the generated client answers: the data, or the problem. */
type Answer<T> = { data: T; error?: undefined } | { data?: undefined; error: Problem };

/** 128 random bits (not `randomUUID`: that needs a secure context, and Kontor may run on plain http in a LAN). */
function newAttemptKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The state of one action dialog and its write. `write` gets the attempt's header: when the
 * answer is lost (offline, a proxy's 502), trying again replays the first write instead of
 * recording it twice. Any answer ends the attempt, since the server keeps a refusal under its
 * key too and a changed retry would be refused.
 */
export function useDialogWrite() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [attemptKey, setAttemptKey] = useState(newAttemptKey);

  /** Runs the write; its data once the invoices are refreshed, undefined when it failed. */
  const submit = async <T>(
    write: (header: AttemptHeader) => Promise<Answer<T>>,
  ): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await write({ 'idempotency-key': attemptKey });
      setAttemptKey(newAttemptKey());
      if (answer.error) {
        setError(splitProblem(answer.error, []).form);
        return undefined;
      }
      await queryClient.invalidateQueries({ queryKey: keys.invoices.all });
      return answer.data;
    } catch {
      setError(t('common.unexpected'));
      return undefined;
    } finally {
      setBusy(false);
    }
  };

  return {
    open,
    busy,
    error,
    /** A message of the dialog's own (an amount that is no number), shown like a problem. */
    setError,
    submit,
    close: () => setOpen(false),
    /** Opening or closing starts without the last message. */
    onOpenChange: (next: boolean) => {
      setOpen(next);
      setError(null);
    },
  };
}
