/**
 * The DATEV export's settings as the API has them (`GET/PUT /v1/exports/datev/settings`): the
 * advisor's consultant and client numbers, chart, fiscal year start, account length, debtor
 * and bank account. Before the first save the API answers 404: the form starts empty then.
 */
import type { components } from '@kontor/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useFieldArray, useForm, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError, applyProblem } from '../../api/problems';
import { ErrorAlert, unwrap } from '../../components/AdminKit';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { formatNumber } from '../../format';

type Settings = components['schemas']['DatevSettings'];

interface Values {
  consultantNumber: string;
  clientNumber: string;
  chartOfAccounts: 'SKR03' | 'SKR04';
  fiscalYearStartMonth: string;
  accountLength: string;
  debtorAccount: string;
  partnerAccounts: boolean;
  bankAccount: string;
  revenueAccounts: { taxRateId: string; account: string; taxKey: string }[];
}

const CHARTS = ['SKR03', 'SKR04'] as const;

const FIELDS: Path<Values>[] = [
  'consultantNumber',
  'clientNumber',
  'chartOfAccounts',
  'fiscalYearStartMonth',
  'accountLength',
  'debtorAccount',
  'partnerAccounts',
  'bankAccount',
  'revenueAccounts',
];

export function useDatevSettings() {
  return useQuery({
    queryKey: keys.datevSettings.all,
    queryFn: async () => {
      const result = await api.GET('/v1/exports/datev/settings');
      // No settings yet: the form starts empty rather than showing an error.
      if (result.error?.status === 404) return null;
      return unwrap(result);
    },
  });
}

function valuesOf(settings: Settings | null): Values {
  const text = (n: number | undefined) => (n === undefined ? '' : String(n));
  return {
    consultantNumber: text(settings?.consultantNumber),
    clientNumber: text(settings?.clientNumber),
    chartOfAccounts: settings?.chartOfAccounts ?? 'SKR03',
    fiscalYearStartMonth: text(settings?.fiscalYearStartMonth ?? 1),
    accountLength: text(settings?.accountLength ?? 4),
    debtorAccount: text(settings?.debtorAccount),
    partnerAccounts: settings?.partnerAccounts ?? false,
    bankAccount: text(settings?.bankAccount),
    revenueAccounts: (settings?.revenueAccounts ?? []).map((entry) => ({
      taxRateId: entry.taxRateId,
      account: String(entry.account),
      taxKey: entry.taxKey ?? '',
    })),
  };
}

/**
 * Empty optional numbers go as null (the API's default); typed text goes as a number or NaN
 * for the API to name. The debtor and bank accounts are read back resolved (the chart's
 * default as a number), so they are sent only when the user changed them: sending the read
 * value would pin a default that should follow the chart.
 */
function bodyOf(
  values: Values,
  version: number | undefined,
  dirty: Partial<Record<keyof Values, unknown>>,
) {
  const n = (v: string) => Number(v.trim());
  const optional = (v: string) => (v.trim() === '' ? null : n(v));
  return {
    consultantNumber: n(values.consultantNumber),
    clientNumber: n(values.clientNumber),
    chartOfAccounts: values.chartOfAccounts,
    fiscalYearStartMonth: n(values.fiscalYearStartMonth),
    accountLength: n(values.accountLength),
    ...(dirty.debtorAccount ? { debtorAccount: optional(values.debtorAccount) } : {}),
    partnerAccounts: values.partnerAccounts,
    ...(dirty.bankAccount ? { bankAccount: optional(values.bankAccount) } : {}),
    revenueAccounts: values.revenueAccounts.map((entry) => ({
      taxRateId: entry.taxRateId,
      account: n(entry.account),
      taxKey: entry.taxKey.trim() === '' ? null : entry.taxKey.trim(),
    })),
    ...(version === undefined ? {} : { version }),
  };
}

type Form = ReturnType<typeof useForm<Values>>;

/**
 * Tax rates mapped to revenue accounts of their own (rates without a default account must be
 * mapped; the export names them when they are not). Each refusal lands on its row's field.
 */
function RevenueAccounts({ form }: { form: Form }) {
  const { t } = useTranslation();
  const rows = useFieldArray({ control: form.control, name: 'revenueAccounts' });
  const rates = useQuery({
    queryKey: keys.taxRates.list({ limit: 100 }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } })),
  });
  const errors = form.formState.errors.revenueAccounts;
  return (
    <fieldset className="admin-fieldset admin-lines">
      <legend>{t('monthEnd.revenueAccountsTitle')}</legend>
      <p className="muted">{t('monthEnd.revenueAccountsHint')}</p>
      <ErrorAlert error={rates.error} />
      {rows.fields.map((row, index) => (
        <div
          className="admin-line"
          key={row.id}
          role="group"
          aria-label={t('monthEnd.mappingN', { n: index + 1 })}
        >
          <div className="field">
            <label htmlFor={`mapping-${index}-rate`}>{t('monthEnd.taxRate')}</label>
            <select
              id={`mapping-${index}-rate`}
              {...form.register(`revenueAccounts.${index}.taxRateId`)}
            >
              {rates.data?.data.map((rate) => (
                <option key={rate.id} value={rate.id}>
                  {`${rate.name} (${rate.category}, ${formatNumber(rate.rate)} %)`}
                </option>
              ))}
            </select>
          </div>
          <Field
            label={t('monthEnd.account')}
            inputMode="numeric"
            registration={form.register(`revenueAccounts.${index}.account`)}
            error={errors?.[index]?.account}
          />
          <Field
            label={t('monthEnd.taxKey')}
            inputMode="numeric"
            registration={form.register(`revenueAccounts.${index}.taxKey`)}
            error={errors?.[index]?.taxKey}
          />
          <span />
          <button type="button" className="button button-small" onClick={() => rows.remove(index)}>
            {t('monthEnd.removeMapping', { n: index + 1 })}
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        disabled={!rates.data?.data.length}
        onClick={() =>
          rows.append({ taxRateId: rates.data?.data[0]?.id ?? '', account: '', taxKey: '' })
        }
      >
        {t('monthEnd.addMapping')}
      </button>
    </fieldset>
  );
}

function SettingsForm({ settings }: { settings: Settings | null }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const form = useForm<Values>({ defaultValues: valuesOf(settings) });
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = form;

  const save = async (values: Values, version = settings?.version) => {
    setFormError(null);
    setSaved(null);
    setConflict(false);
    try {
      const result = await api.PUT('/v1/exports/datev/settings', {
        body: bodyOf(values, version, form.formState.dirtyFields),
      });
      if (result.error) {
        setConflict(result.error.code === 'version_conflict');
        const rows = values.revenueAccounts.flatMap((_, index) => [
          `revenueAccounts.${index}.account` as const,
          `revenueAccounts.${index}.taxKey` as const,
          `revenueAccounts.${index}.taxRateId` as const,
        ]);
        setFormError(applyProblem(result.error, setError, [...FIELDS, ...rows]));
        return;
      }
      queryClient.setQueryData(keys.datevSettings.all, result.data);
      setSaved(t('monthEnd.settingsSaved'));
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  /** Reads the stored settings and saves the fields the user changed on top of them. */
  const reloadAndKeep = async () => {
    const fresh = await api.GET('/v1/exports/datev/settings');
    if (!fresh.data) return setFormError(t('common.unexpected'));
    const edited = form.getValues();
    const merged = valuesOf(fresh.data);
    for (const key of Object.keys(form.formState.dirtyFields) as (keyof Values)[]) {
      Object.assign(merged, { [key]: edited[key] });
    }
    await save(merged, fresh.data.version);
  };

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
        <Field
          label={t('monthEnd.consultantNumber')}
          inputMode="numeric"
          registration={register('consultantNumber')}
          error={errors.consultantNumber}
        />
        <Field
          label={t('monthEnd.clientNumber')}
          inputMode="numeric"
          registration={register('clientNumber')}
          error={errors.clientNumber}
        />
        <div className="field">
          <label htmlFor="datev-chart">{t('monthEnd.chartOfAccounts')}</label>
          <select id="datev-chart" {...register('chartOfAccounts')}>
            {CHARTS.map((chart) => (
              <option key={chart} value={chart}>
                {chart}
              </option>
            ))}
          </select>
        </div>
        <Field
          label={t('monthEnd.fiscalYearStartMonth')}
          type="number"
          min={1}
          max={12}
          registration={register('fiscalYearStartMonth')}
          error={errors.fiscalYearStartMonth}
        />
        <Field
          label={t('monthEnd.accountLength')}
          type="number"
          min={4}
          max={8}
          registration={register('accountLength')}
          error={errors.accountLength}
        />
        <Field
          label={t('monthEnd.debtorAccount')}
          inputMode="numeric"
          hint={t('monthEnd.defaultHint')}
          registration={register('debtorAccount')}
          error={errors.debtorAccount}
        />
        <Field
          label={t('monthEnd.bankAccount')}
          inputMode="numeric"
          hint={t('monthEnd.defaultHint')}
          registration={register('bankAccount')}
          error={errors.bankAccount}
        />
      </div>
      <label className="admin-check">
        <input type="checkbox" {...register('partnerAccounts')} />
        {t('monthEnd.partnerAccounts')}
      </label>
      <RevenueAccounts form={form} />
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {t('monthEnd.saveSettings')}
        </button>
      </div>
    </form>
  );
}

export function DatevSettingsPanel() {
  const { t } = useTranslation();
  const settings = useDatevSettings();
  return (
    <section className="admin-panel" aria-labelledby="datev-settings">
      <h2 id="datev-settings">{t('monthEnd.settingsTitle')}</h2>
      {settings.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {settings.isError &&
      !(settings.error instanceof ProblemError && settings.error.problem.status === 404) ? (
        <ErrorAlert error={settings.error} />
      ) : null}
      {settings.isSuccess ? <SettingsForm settings={settings.data} /> : null}
    </section>
  );
}
