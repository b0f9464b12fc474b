/**
 * The SEPA settings (`/v1/sepa/settings`): how many calendar days the pre-notification comes
 * before a direct debit, and whether the server collects direct-debit contract invoices by
 * itself once a day. The API checks the number (1–60) and that only admins change them; its
 * refusal shows on the field. A save that meets a newer version offers to reload it and save
 * the number typed here again.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem, ProblemError } from '../../api/problems';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { CheckboxField } from '../../components/FormFields';
import { LoadingOrError } from '../../components/LoadingOrError';
import { useKeepEditsOnConflict } from '../../hooks/useKeepEditsOnConflict';

type SepaSettings = components['schemas']['SepaSettings'];

interface Values {
  preNotificationDays: string;
  autoCollect: boolean;
}

const valuesOf = (settings: SepaSettings): Values => ({
  preNotificationDays: String(settings.preNotificationDays),
  autoCollect: settings.autoCollect,
});

/** A number the API can judge: the typed whole number, else NaN (the API refuses it). */
function days(text: string): number {
  const value = Number(text.trim());
  return text.trim() === '' || !Number.isFinite(value) ? Number.NaN : value;
}

function SettingsForm({ settings }: { settings: SepaSettings }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<Values>({
    defaultValues: valuesOf(settings),
  });

  const latest = () => queryClient.getQueryData<SepaSettings>(keys.sepa.settings()) ?? settings;

  const keepEdits = useKeepEditsOnConflict<SepaSettings>({
    load: () => api.GET('/v1/sepa/settings'),
    keep: async (stored) => {
      queryClient.setQueryData(keys.sepa.settings(), stored);
      await handleSubmit(save)();
    },
    onProblem: (problem) => setFormError(problem.detail ?? problem.title),
    onUnexpected: () => setFormError(t('common.unexpected')),
  });

  async function save(values: Values) {
    setFormError(null);
    setSaved(false);
    try {
      const { data, error } = await api.PUT('/v1/sepa/settings', {
        body: {
          version: latest().version,
          preNotificationDays: days(values.preNotificationDays),
          autoCollect: values.autoCollect,
        },
      });
      if (error) {
        setFormError(
          keepEdits.noteProblem(error)
            ? t('company.conflict')
            : applyProblem(error, setError, ['preNotificationDays', 'autoCollect']),
        );
        return;
      }
      keepEdits.noteProblem(null);
      queryClient.setQueryData(keys.sepa.settings(), data);
      // The collection dates the proposals offer depend on it.
      await queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() });
      reset(valuesOf(data));
      setSaved(true);
    } catch {
      setFormError(t('common.unexpected'));
    }
  }

  return (
    <form
      className="form"
      noValidate
      aria-labelledby="sepa-settings-title"
      onSubmit={(event) => void handleSubmit(save)(event)}
    >
      <FormAlert message={formError} />
      {keepEdits.conflict ? (
        <button
          type="button"
          className="button"
          onClick={() => void keepEdits.reloadKeepingEdits()}
        >
          {t('company.reloadKeep')}
        </button>
      ) : null}
      <Field
        label={t('sepa.settings.preNotificationDays')}
        inputMode="numeric"
        hint={t('sepa.settings.preNotificationDaysHint')}
        registration={register('preNotificationDays')}
        error={errors.preNotificationDays}
      />
      <CheckboxField
        label={t('sepa.settings.autoCollect')}
        hint={t('sepa.settings.autoCollectHint')}
        registration={register('autoCollect')}
        error={errors.autoCollect}
      />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {t('sepa.settings.save')}
        </button>
        <FormNote message={saved ? t('sepa.settings.saved') : null} />
      </div>
    </form>
  );
}

export function SepaSettingsSection() {
  const { t } = useTranslation();
  const settings = useQuery({
    queryKey: keys.sepa.settings(),
    // Read once: the form saves at this version (a background refetch must not move it).
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/sepa/settings');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
  return (
    <section className="settings-section" aria-labelledby="sepa-settings-title">
      <h2 id="sepa-settings-title">{t('sepa.settings.title')}</h2>
      {settings.data === undefined ? (
        <LoadingOrError error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <SettingsForm settings={settings.data} />
      )}
    </section>
  );
}
