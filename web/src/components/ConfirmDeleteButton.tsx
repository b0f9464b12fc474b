/**
 * A row's delete in two steps: "Delete" turns into "Really delete …" and "Cancel" (focus moves
 * to the confirmation and back), so nothing goes by one slip. The API's refusal (409 in_use,
 * a default that cannot go) shows beside the buttons in its own words.
 */
import { useEffect, useRef, useState } from 'react';

interface Labels {
  delete: string;
  /** The accessible name, with the record's name: "Delete: USt 19 %". */
  deleteNamed: string;
  confirm: string;
  cancel: string;
}

export function ConfirmDeleteButton({
  labels,
  onDelete,
}: {
  labels: Labels;
  /** Deletes; answers the API's message when it refused, else null. */
  onDelete: () => Promise<string | null>;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const deleteRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);

  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (asked.current) deleteRef.current?.focus();
  }, [confirming]);

  const remove = async () => {
    const refused = await onDelete();
    setError(refused);
    setConfirming(false);
  };

  return (
    <>
      {confirming ? (
        <>
          <button
            ref={confirmRef}
            type="button"
            className="button button-small button-danger"
            onClick={() => void remove()}
          >
            {labels.confirm}
          </button>
          <button
            type="button"
            className="button button-small"
            onClick={() => setConfirming(false)}
          >
            {labels.cancel}
          </button>
        </>
      ) : (
        <button
          ref={deleteRef}
          type="button"
          className="button button-small"
          aria-label={labels.deleteNamed}
          onClick={() => {
            asked.current = true;
            setError(null);
            setConfirming(true);
          }}
        >
          {labels.delete}
        </button>
      )}
      {error ? (
        <span className="cell-error" role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
