/**
 * `/settings/tax-rates`: the account's tax rates (new accounts start with the API's seeded
 * 19 %, 7 % and the 0 % rates for reverse charge, intra-EU supply and § 19 UStG), created and
 * edited in a form below the table. Which category needs which rate or reason is the API's
 * rule: its refusals show on their fields.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useAccountSettings } from '../../api/account';
import { changedOnly } from '../../api/changes';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { TAX_CATEGORIES, useTaxRates, type TaxCategory, type TaxRate } from '../../api/taxRates';
import { Field, FormNote } from '../../components/Form';
import { CheckboxField, SelectField } from '../../components/FormFields';
import {
  DeleteRecordButton,
  RecordForm,
  RecordListHeader,
  RecordListStatus,
  useRecordEditing,
  useRecordVersion,
} from '../../components/RecordList';
import { formatDecimalInput, formatPercent, parseDecimal, type NumberFormat } from '../../format';
import '../../styles/forms.css';
import '../../styles/settings.css';
import '../../styles/tables.css';

interface Values {
  name: string;
  rate: string;
  category: TaxCategory;
  exemptionReason: string;
  exemptionCode: string;
  isDefault: boolean;
}

const FIELDS: readonly Path<Values>[] = [
  'name',
  'rate',
  'category',
  'exemptionReason',
  'exemptionCode',
  'isDefault',
];

const EMPTY: Values = {
  name: '',
  rate: '',
  category: 'S',
  exemptionReason: '',
  exemptionCode: '',
  isDefault: false,
};

function toValues(rate: TaxRate, format: NumberFormat | undefined): Values {
  return {
    name: rate.name,
    rate: formatDecimalInput(rate.rate, format),
    category: rate.category,
    exemptionReason: rate.exemptionReason ?? '',
    exemptionCode: rate.exemptionCode ?? '',
    isDefault: rate.isDefault,
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

type Editing = { kind: 'new' } | { kind: 'edit'; rate: TaxRate };

function TaxRateForm({
  editing,
  format,
  onDone,
}: {
  editing: Editing;
  format: NumberFormat | undefined;
  onDone: (message: string) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting, dirtyFields },
  } = useForm<Values>({
    defaultValues: editing.kind === 'edit' ? toValues(editing.rate, format) : EMPTY,
  });

  const record = useRecordVersion<TaxRate>({
    version: editing.kind === 'edit' ? editing.rate.version : 0,
    load: () =>
      api.GET('/v1/tax-rates/{taxRateId}', {
        params: { path: { taxRateId: editing.kind === 'edit' ? editing.rate.id : '' } },
      }),
    resave: (atVersion) => handleSubmit((values) => save(values, atVersion))(),
    showError: setFormError,
    fieldProblem: (problem) => applyProblem(problem, setError, FIELDS),
    texts: { conflict: t('taxRates.conflict'), reload: t('taxRates.reloadKeep') },
  });

  async function save(values: Values, atVersion: number) {
    setFormError(null);
    const rate = parseDecimal(values.rate, format);
    if (rate === null) {
      setError(
        'rate',
        { type: 'format', message: t('taxRates.rateNotNumber') },
        { shouldFocus: true },
      );
      return;
    }
    const body = {
      name: values.name.trim(),
      rate,
      category: values.category,
      exemptionReason: orNull(values.exemptionReason),
      exemptionCode: orNull(values.exemptionCode),
      isDefault: values.isDefault,
    };
    try {
      const { error } =
        editing.kind === 'new'
          ? await api.POST('/v1/tax-rates', { body })
          : await api.PATCH('/v1/tax-rates/{taxRateId}', {
              params: { path: { taxRateId: editing.rate.id } },
              body: { ...changedOnly(body, dirtyFields), version: atVersion },
            });
      if (error) {
        record.showProblem(error);
        return;
      }
      // A default moved or a rate appeared: the list, the product picker and the checklist.
      await queryClient.invalidateQueries({ queryKey: keys.taxRates.all });
      await queryClient.invalidateQueries({ queryKey: keys.readiness.all });
      onDone(t('taxRates.saved', { name: body.name }));
    } catch {
      setFormError(t('common.unexpected'));
    }
  }

  return (
    <RecordForm
      id="tax-rate-form"
      title={
        editing.kind === 'new'
          ? t('taxRates.newTitle')
          : t('taxRates.editTitle', { name: editing.rate.name })
      }
      onSubmit={(event) => void handleSubmit((values) => save(values, record.version))(event)}
      busy={isSubmitting}
      error={formError}
      reload={record.reload}
      saveLabel={t('taxRates.save')}
      cancelLabel={t('taxRates.cancel')}
      onCancel={() => onDone('')}
    >
      <div className="form-row">
        <Field label={t('taxRates.name')} registration={register('name')} error={errors.name} />
        <Field
          label={t('taxRates.rate')}
          inputMode="decimal"
          registration={register('rate')}
          error={errors.rate}
        />
      </div>
      <SelectField
        label={t('taxRates.category')}
        registration={register('category')}
        error={errors.category}
      >
        {TAX_CATEGORIES.map((category) => (
          <option key={category} value={category}>
            {t(`taxRates.categories.${category}`)}
          </option>
        ))}
      </SelectField>
      <Field
        label={t('taxRates.exemptionReason')}
        hint={t('taxRates.exemptionReasonHint')}
        registration={register('exemptionReason')}
        error={errors.exemptionReason}
      />
      <Field
        label={t('taxRates.exemptionCode')}
        hint={t('taxRates.exemptionCodeHint')}
        registration={register('exemptionCode')}
        error={errors.exemptionCode}
      />
      <CheckboxField
        label={t('taxRates.isDefault')}
        registration={register('isDefault')}
        error={errors.isDefault}
      />
    </RecordForm>
  );
}

function DeleteTaxRate({ rate, onDone }: { rate: TaxRate; onDone: (note: string) => void }) {
  const { t } = useTranslation();
  return (
    <DeleteRecordButton
      labels={{
        delete: t('taxRates.delete'),
        deleteNamed: t('taxRates.deleteNamed', { name: rate.name }),
        confirm: t('taxRates.confirmDelete', { name: rate.name }),
        cancel: t('taxRates.cancel'),
      }}
      remove={() =>
        api.DELETE('/v1/tax-rates/{taxRateId}', { params: { path: { taxRateId: rate.id } } })
      }
      invalidate={[keys.taxRates.all, keys.readiness.all]}
      deleted={t('taxRates.deleted', { name: rate.name })}
      onDone={onDone}
    />
  );
}

function TaxRateTable({
  rates,
  format,
  onEdit,
  onDone,
}: {
  rates: TaxRate[];
  format: NumberFormat | undefined;
  onEdit: (rate: TaxRate) => void;
  onDone: (message: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">{t('taxRates.tableCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('taxRates.name')}</th>
            <th scope="col" className="numeric">
              {t('taxRates.rate')}
            </th>
            <th scope="col">{t('taxRates.category')}</th>
            <th scope="col">{t('taxRates.exemptionReason')}</th>
            <th scope="col">{t('taxRates.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {rates.map((rate) => (
            <tr key={rate.id}>
              <th scope="row">
                {rate.name}
                {rate.isDefault ? <span className="badge">{t('taxRates.default')}</span> : null}
              </th>
              <td className="numeric">{formatPercent(rate.rate, format)}</td>
              <td>{t(`taxRates.categories.${rate.category}`)}</td>
              <td>{rate.exemptionReason ?? ''}</td>
              <td>
                <div className="actions">
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={t('taxRates.editNamed', { name: rate.name })}
                    onClick={() => onEdit(rate)}
                  >
                    {t('taxRates.edit')}
                  </button>
                  <DeleteTaxRate rate={rate} onDone={onDone} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function TaxRatesPage() {
  const { t } = useTranslation();
  const rates = useTaxRates();
  const format = useAccountSettings().data?.numberFormat;
  const { editing, note, newButton, open, done } = useRecordEditing<Editing>();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <RecordListHeader
        title={t('taxRates.title')}
        newLabel={t('taxRates.new')}
        newButton={newButton}
        onNew={() => open({ kind: 'new' })}
      />
      <p className="lead">{t('taxRates.intro')}</p>
      <FormNote message={note} />
      <RecordListStatus
        isPending={rates.isPending}
        isError={rates.isError}
        onRetry={() => void rates.refetch()}
      />
      {rates.data ? (
        rates.data.length === 0 ? (
          <p>{t('taxRates.empty')}</p>
        ) : (
          <TaxRateTable
            rates={rates.data}
            format={format}
            onEdit={(rate) => open({ kind: 'edit', rate })}
            onDone={done}
          />
        )
      ) : null}
      {editing ? (
        <TaxRateForm
          key={editing.kind === 'edit' ? editing.rate.id : 'new'}
          editing={editing}
          format={format}
          onDone={done}
        />
      ) : null}
    </section>
  );
}
