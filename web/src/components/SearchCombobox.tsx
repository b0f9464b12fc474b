import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import '../styles/combobox.css';

export interface ComboboxOption<T> {
  id: string;
  label: string;
  /** A second line (a number, a price): helps choose between similar names. */
  detail?: string;
  value: T;
}

interface SearchComboboxProps<T> {
  label: string;
  /** The chosen record's text, shown while the user is not typing. */
  selectedText: string;
  /** Query key prefix; the typed text is appended. */
  queryKey: readonly unknown[];
  search: (text: string) => Promise<ComboboxOption<T>[]>;
  onSelect: (option: ComboboxOption<T>) => void;
  inputId?: string;
  error?: string | undefined;
  hint?: string;
}

/** The typed text, settled for a moment: one search per pause, not per keystroke. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * An accessible combobox (WAI-ARIA 1.2, list autocomplete): an <input role="combobox"> whose
 * listbox shows the API's search results as the user types. Arrow keys move the active
 * option, Enter chooses it, Escape closes the list; focus stays in the input throughout.
 */
export function SearchCombobox<T>({
  label,
  selectedText,
  queryKey,
  search,
  onSelect,
  inputId,
  error,
  hint,
}: SearchComboboxProps<T>) {
  const { t } = useTranslation();
  const generated = useId();
  const id = inputId ?? generated;
  const listId = `${id}-list`;
  const [text, setText] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const query = useDebounced(text ?? '', 200);
  const results = useQuery({
    queryKey: [...queryKey, query],
    queryFn: () => search(query),
    enabled: open,
    staleTime: 10_000,
  });
  const options = results.data ?? [];

  const choose = (option: ComboboxOption<T>) => {
    onSelect(option);
    setText(null);
    setOpen(false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!open) setOpen(true);
      else setActive((index) => Math.min(index + 1, options.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => Math.max(index - 1, 0));
    } else if (event.key === 'Enter') {
      const option = options[active];
      if (open && option !== undefined) {
        // Enter chooses; it must not submit the surrounding form.
        event.preventDefault();
        choose(option);
      }
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
      setText(null);
    }
  };

  const activeOption = open ? options[active] : undefined;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field combobox">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={activeOption ? `${listId}-${activeOption.id}` : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy === '' ? undefined : describedBy}
        value={text ?? selectedText}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          // A click on an option lands before the blur closes the list.
          setTimeout(() => {
            setOpen(false);
            setText(null);
          }, 150);
        }}
      />
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
      <ul id={listId} role="listbox" aria-label={label} className="combobox-list" hidden={!open}>
        {open && results.isPending ? (
          <li className="combobox-note" role="presentation">
            {t('invoices.combobox.searching')}
          </li>
        ) : null}
        {open && results.isSuccess && options.length === 0 ? (
          <li className="combobox-note" role="presentation">
            {t('invoices.combobox.none')}
          </li>
        ) : null}
        {options.map((option, index) => (
          <li
            key={option.id}
            id={`${listId}-${option.id}`}
            role="option"
            aria-selected={index === active}
            className="combobox-option"
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(option)}
          >
            <span>{option.label}</span>
            {option.detail ? <span className="combobox-detail">{option.detail}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
