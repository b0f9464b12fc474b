/**
 * The account's dunning settings (levels, fees, interest, flat fee, schedule). Admins save
 * them; a save that meets a newer version offers to reload it and keep the values typed here.
 */
import type { components } from '@kontor/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError, applyProblem } from '../../api/problems';
import { FormAlert, FormNote } from '../../components/Form';

type Settings = components['schemas']['DunningSettings'];
type Level = Settings['levels'][number];

interface Values {
  enabled: boolean;
  flatFee: boolean;
  paymentDays: number;
  levels: Level[];
}

function valuesOf(settings: Settings): Values {
  return {
    enabled: settings.enabled,
    flatFee: settings.flatFee,
    paymentDays: settings.paymentDays,
    levels: settings.levels.map((level) => ({ ...level })),
  };
}

function useSettings() {
  return useQuery({
    queryKey: keys.dunning.settings(),
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/dunning/settings');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

function SettingsForm({ settings, isAdmin }: { settings: Settings; isAdmin: boolean }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const [version, setVersion] = useState(settings.version);
  const {
    register,
    control,
    handleSubmit,
    setError,
    getValues,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<Values>({ defaultValues: valuesOf(settings) });
  const levels = useFieldArray({ control, name: 'levels' });

  // A newer version read elsewhere replaces untouched values; typed ones stay.
  useEffect(() => {
    if (!isDirty) reset(valuesOf(settings));
  }, [settings, isDirty, reset]);

  const save = async (values: Values, withVersion: number) => {
    setFormError(null);
    setSaved(null);
    setConflict(false);
    const { data, error } = await api.PUT('/v1/dunning/settings', {
      body: {
        version: withVersion,
        enabled: values.enabled,
        flatFee: values.flatFee,
        paymentDays: Number(values.paymentDays),
        levels: values.levels.map((level) => ({
          kind: level.kind,
          daysAfter: Number(level.daysAfter),
          fee: Number(level.fee),
          defaultInterest: level.defaultInterest,
        })),
      },
    });
    if (error) {
      if (error.code === 'version_conflict') setConflict(true);
      setFormError(applyProblem(error, setError, ['enabled', 'flatFee', 'paymentDays', 'levels']));
      return;
    }
    queryClient.setQueryData(keys.dunning.settings(), data);
    setVersion(data.version);
    reset(valuesOf(data));
    setSaved(t('dunning.settings.saved'));
    // Other levels and fees make another proposal.
    await queryClient.invalidateQueries({ queryKey: keys.dunning.all });
  };

  /** Reads the current version and saves the values typed here over it. */
  const reloadAndKeep = async () => {
    const { data, error } = await api.GET('/v1/dunning/settings');
    if (error) {
      setFormError(error.detail ?? error.title);
      return;
    }
    queryClient.setQueryData(keys.dunning.settings(), data);
    setVersion(data.version);
    await save(getValues(), data.version);
  };

  return (
    <form
      className="form settings-form"
      noValidate
      onSubmit={(event) => void handleSubmit((values) => save(values, version))(event)}
    >
      <FormAlert message={formError} />
      <FormNote message={saved} />
      {conflict ? (
        <button type="button" className="button" onClick={() => void reloadAndKeep()}>
          {t('dunning.settings.reloadKeep')}
        </button>
      ) : null}
      <fieldset disabled={!isAdmin} className="plain-fieldset">
        <div className="checkbox-field">
          <input id="dunning-enabled" type="checkbox" {...register('enabled')} />
          <label htmlFor="dunning-enabled">{t('dunning.settings.enabled')}</label>
        </div>
        <div className="checkbox-field">
          <input id="dunning-flat-fee" type="checkbox" {...register('flatFee')} />
          <label htmlFor="dunning-flat-fee">{t('dunning.settings.flatFee')}</label>
        </div>
        <div className="field">
          <label htmlFor="dunning-payment-days">{t('dunning.settings.paymentDays')}</label>
          <input
            id="dunning-payment-days"
            type="number"
            min={0}
            aria-invalid={errors.paymentDays ? true : undefined}
            {...register('paymentDays')}
          />
          {errors.paymentDays?.message ? (
            <p className="field-error">{errors.paymentDays.message}</p>
          ) : null}
        </div>
        <table className="data-table levels-table">
          <caption>{t('dunning.settings.levels')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('dunning.settings.level')}</th>
              <th scope="col">{t('dunning.settings.kind')}</th>
              <th scope="col">{t('dunning.settings.daysAfter')}</th>
              <th scope="col">{t('dunning.settings.fee')}</th>
              <th scope="col">{t('dunning.settings.interest')}</th>
              <th scope="col">{t('dunning.col.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {levels.fields.map((field, index) => {
              const n = index + 1;
              return (
                <tr key={field.id}>
                  <th scope="row">{n}</th>
                  <td>
                    <select
                      aria-label={t('dunning.settings.kindOf', { n })}
                      {...register(`levels.${index}.kind`)}
                    >
                      <option value="PAYMENT_REMINDER">{t('dunning.kind.reminder')}</option>
                      <option value="DUNNING">{t('dunning.kind.dunning')}</option>
                    </select>
                  </td>
                  <td>
                    <input
                      type="number"
                      min={0}
                      aria-label={t('dunning.settings.daysAfterOf', { n })}
                      {...register(`levels.${index}.daysAfter`)}
                    />
                  </td>
                  <td>
                    <input
                      type="number"
                      min={0}
                      step="0.01"
                      aria-label={t('dunning.settings.feeOf', { n })}
                      {...register(`levels.${index}.fee`)}
                    />
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={t('dunning.settings.interestOf', { n })}
                      {...register(`levels.${index}.defaultInterest`)}
                    />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => levels.remove(index)}
                    >
                      {t('dunning.settings.remove', { n })}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {errors.levels?.message ? <p className="field-error">{errors.levels.message}</p> : null}
        <div className="actions">
          <button
            type="button"
            className="button"
            onClick={() =>
              levels.append({ kind: 'DUNNING', daysAfter: 14, fee: 0, defaultInterest: true })
            }
          >
            {t('dunning.settings.add')}
          </button>
          <button type="submit" className="button button-primary" disabled={isSubmitting}>
            {t('dunning.settings.save')}
          </button>
        </div>
      </fieldset>
      {!isAdmin ? <p className="muted">{t('dunning.settings.adminOnly')}</p> : null}
    </form>
  );
}

export function DunningSettingsForm({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <section className="panel" aria-labelledby="dunning-settings-title">
      <h2 id="dunning-settings-title">{t('dunning.settings.title')}</h2>
      {settings.data ? <SettingsForm settings={settings.data} isAdmin={isAdmin} /> : null}
      {settings.isError ? (
        <div role="alert" className="form-alert">
          {settings.error.message}
        </div>
      ) : null}
    </section>
  );
}
