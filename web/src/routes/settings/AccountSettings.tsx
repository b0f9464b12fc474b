/**
 * The account's settings (`GET/PATCH /v1/account/addresses`): formats, currency, payment term
 * of incoming payments, reminders. A 409 `version_conflict` offers to reload the settings and
 * save the fields the user changed on top of them.
 */
import type { components } from '@kontor/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { ErrorAlert, unwrap } from '../../components/AdminKit';
import { Field, FormAlert, FormNote } from '../../components/Form';

type Settings = components['schemas']['AccountSettings'];
type Values = Pick<
  Settings,
  | 'dateFormat'
  | 'numberFormat'
  | 'currency'
  | 'incomingPaymentTerm'
  | 'allowContractReminderOverride'
  | 'budgetsSuppressed'
> & { reminderEmail: string };

/** Each date format with an example the user recognises. */
const DATE_FORMATS: [string, string][] = [
  ['DD.MM.YYYY', '31.12.2026'],
  ['DD/MM/YYYY', '31/12/2026'],
];

const FIELDS: Path<Values>[] = [
  'dateFormat',
  'numberFormat',
  'currency',
  'incomingPaymentTerm',
  'reminderEmail',
  'allowContractReminderOverride',
  'budgetsSuppressed',
];

/** Only the fields this form edits: the API refuses fields it does not take. */
function valuesOf(settings: Settings): Values {
  return {
    dateFormat: settings.dateFormat,
    numberFormat: settings.numberFormat,
    currency: settings.currency,
    incomingPaymentTerm: settings.incomingPaymentTerm,
    allowContractReminderOverride: settings.allowContractReminderOverride,
    budgetsSuppressed: settings.budgetsSuppressed,
    reminderEmail: settings.reminderEmail ?? '',
  };
}

function SettingsForm({ settings }: { settings: Settings }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const { register, handleSubmit, setError, getValues, formState } = useForm<Values>({
    defaultValues: valuesOf(settings),
  });
  const save = async (values: Values, version = settings.version) => {
    setFormError(null);
    setSaved(null);
    setConflict(false);
    try {
      const result = await api.PATCH('/v1/account/addresses', {
        body: {
          ...values,
          reminderEmail: values.reminderEmail === '' ? null : values.reminderEmail,
          version,
        },
      });
      if (result.error) {
        setConflict(result.error.code === 'version_conflict');
        setFormError(applyProblem(result.error, setError, FIELDS));
        return;
      }
      queryClient.setQueryData(keys.accountSettings.all, result.data);
      setSaved(t('settingsAdmin.account.saved'));
    } catch {
      setFormError(t('common.unexpected'));
    }
  };
  /** Reads the stored settings and saves the fields the user changed on top of them. */
  const reloadAndKeep = async () => {
    const fresh = await api.GET('/v1/account/addresses');
    if (!fresh.data) return setFormError(t('common.unexpected'));
    const edited = getValues();
    const merged = valuesOf(fresh.data);
    for (const key of Object.keys(formState.dirtyFields) as (keyof Values)[]) {
      Object.assign(merged, { [key]: edited[key] });
    }
    await save(merged, fresh.data.version);
  };
  const select = (name: keyof Values, label: string, options: [string, string][]) => (
    <div className="field">
      <label htmlFor={`account-${name}`}>{label}</label>
      <select id={`account-${name}`} {...register(name)}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form className="admin-form" noValidate onSubmit={(e) => void handleSubmit((v) => save(v))(e)}>
      <FormAlert message={formError} />
      <FormNote message={saved} />
      {conflict ? (
        <button type="button" className="button" onClick={() => void reloadAndKeep()}>
          {t('admin.reloadKeep')}
        </button>
      ) : null}
      <div className="admin-grid">
        {select('dateFormat', t('settingsAdmin.account.dateFormat'), DATE_FORMATS)}
        {select('numberFormat', t('settingsAdmin.account.numberFormat'), [
          ['1.234,56', '1.234,56'],
          ['1,234.56', '1,234.56'],
        ])}
        {select('currency', t('settingsAdmin.account.currency'), [
          ['EUR', 'EUR'],
          ['GBP', 'GBP'],
        ])}
        {select('incomingPaymentTerm', t('settingsAdmin.account.incomingPaymentTerm'), [
          ['SOLL', t('settingsAdmin.account.soll')],
          ['HABEN', t('settingsAdmin.account.haben')],
        ])}
        <Field
          label={t('settingsAdmin.account.reminderEmail')}
          type="email"
          hint={t('settingsAdmin.account.reminderEmailHint')}
          registration={register('reminderEmail')}
          error={formState.errors.reminderEmail}
        />
      </div>
      <label className="admin-check">
        <input type="checkbox" {...register('allowContractReminderOverride')} />
        {t('settingsAdmin.account.allowContractReminderOverride')}
      </label>
      <label className="admin-check">
        <input type="checkbox" {...register('budgetsSuppressed')} />
        {t('settingsAdmin.account.budgetsSuppressed')}
      </label>
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {t('settingsAdmin.account.save')}
        </button>
      </div>
    </form>
  );
}

export function AccountTab() {
  const { t } = useTranslation();
  const settings = useQuery({
    queryKey: keys.accountSettings.all,
    queryFn: async () => unwrap(await api.GET('/v1/account/addresses')),
  });
  return (
    <section className="admin-panel" aria-labelledby="account-title">
      <h2 id="account-title">{t('settingsAdmin.account.title')}</h2>
      <ErrorAlert error={settings.error} />
      {settings.data ? <SettingsForm settings={settings.data} /> : null}
    </section>
  );
}
