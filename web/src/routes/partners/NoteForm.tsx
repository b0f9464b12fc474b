/**
 * A new note or reminder on a partner (`POST /v1/notes`). The API decides what is valid (a
 * reminder needs a due day); its refusals show on their fields and the text typed stays.
 */
import { useQueryClient } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { Field, FormAlert, FormNote } from '../../components/Form';

type NoteType = components['schemas']['Note']['type'];

interface NoteValues {
  title: string;
  content: string;
  type: NoteType;
  dueDate: string;
}

const FIELDS = ['title', 'content', 'type', 'dueDate'] as const;
const NOTE_TYPES: NoteType[] = ['NOTE', 'REMINDER'];
const EMPTY: NoteValues = { title: '', content: '', type: 'NOTE', dueDate: '' };

export function NoteForm({ partnerId }: { partnerId: string }) {
  const { t } = useTranslation();
  const id = useId();
  const queryClient = useQueryClient();
  const { register, handleSubmit, setError, reset, formState } = useForm<NoteValues>({
    defaultValues: EMPTY,
  });
  const errors = formState.errors;
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const submit = handleSubmit(async (values) => {
    setMessage(null);
    setSaved(null);
    try {
      const { error } = await api.POST('/v1/notes', {
        body: {
          parentType: 'PARTNER',
          parentId: partnerId,
          type: values.type,
          title: values.title.trim(),
          content: values.content,
          dueDate: values.dueDate === '' ? undefined : values.dueDate,
        },
      });
      if (error) {
        setMessage(applyProblem(error, setError, FIELDS));
        return;
      }
      // The partner's notes, and the cockpit's reminder figures.
      await queryClient.invalidateQueries({ queryKey: keys.notes.list({ parentId: partnerId }) });
      await queryClient.invalidateQueries({ queryKey: keys.dashboard.all });
      reset(EMPTY);
      setSaved(t('partners.note.saved'));
    } catch {
      setMessage(t('common.unexpected'));
    }
  });

  return (
    <form
      className="form-group note-form"
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h2 id={`${id}-title`}>{t('partners.note.new')}</h2>
      <FormAlert message={message} />
      <FormNote message={saved} />
      <Field
        label={t('partners.note.title')}
        registration={register('title', { required: t('common.required') })}
        error={errors.title}
      />
      <div className="field">
        <label htmlFor={`${id}-content`}>{t('partners.note.content')}</label>
        <textarea
          id={`${id}-content`}
          rows={3}
          {...register('content')}
          aria-invalid={errors.content ? true : undefined}
          aria-describedby={errors.content ? `${id}-content-error` : undefined}
        />
        {errors.content?.message ? (
          <p className="field-error" id={`${id}-content-error`}>
            {errors.content.message}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${id}-type`}>{t('partners.note.type')}</label>
        <select id={`${id}-type`} {...register('type')}>
          {NOTE_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`partners.note.${type}`)}
            </option>
          ))}
        </select>
      </div>
      <Field
        label={t('partners.note.due')}
        registration={register('dueDate')}
        error={errors.dueDate}
        type="date"
      />
      <div>
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('partners.note.add')}
        </button>
      </div>
    </form>
  );
}
