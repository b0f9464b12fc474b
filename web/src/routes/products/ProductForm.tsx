/**
 * Create or edit a product: name, type, net price, unit (text the API reads as a UN/ECE code),
 * tax rate and description. The price is read in the account's number format; whether its
 * decimals fit the currency is the API's check, shown on the price field.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { components } from '@kontor/client';
import { changedOnly } from '../../api/changes';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import type { TaxRate } from '../../api/taxRates';
import { Field } from '../../components/Form';
import { SelectField, TextAreaField } from '../../components/FormFields';
import { RecordForm, useRecordVersion } from '../../components/RecordList';
import { formatDecimalInput, parseDecimal, taxRateLabel, type NumberFormat } from '../../format';

type Product = components['schemas']['Product'];
type Currency = components['schemas']['CreateProduct']['currency'];
export type Editing = { kind: 'new' } | { kind: 'edit'; product: Product };

interface Values {
  name: string;
  type: Product['type'];
  unitPrice: string;
  unit: string;
  taxRateId: string;
  description: string;
}

const FIELDS: readonly Path<Values>[] = [
  'name',
  'type',
  'unitPrice',
  'unit',
  'taxRateId',
  'description',
];

function initialValues(editing: Editing, rates: TaxRate[], format?: NumberFormat): Values {
  if (editing.kind === 'edit') {
    const { product } = editing;
    return {
      name: product.name,
      type: product.type,
      unitPrice: formatDecimalInput(product.unitPrice, format),
      unit: product.unit ?? '',
      taxRateId: product.taxRateId ?? '',
      description: product.description ?? '',
    };
  }
  const preset = rates.find((rate) => rate.isDefault)?.id ?? '';
  return { name: '', type: 'SERVICE', unitPrice: '', unit: '', taxRateId: preset, description: '' };
}

interface Props {
  editing: Editing;
  rates: TaxRate[];
  currency: Currency;
  format: NumberFormat | undefined;
  onDone: (note: string) => void;
}

export function ProductForm({ editing, rates, currency, format, onDone }: Props) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    getFieldState,
    setValue,
    formState: { errors, isSubmitting, dirtyFields },
  } = useForm<Values>({ defaultValues: initialValues(editing, rates, format) });

  // Rates that arrive after a new form opened: preset the default, unless one was picked.
  const defaultRate = rates.find((rate) => rate.isDefault)?.id;
  useEffect(() => {
    if (editing.kind === 'new' && defaultRate && !getFieldState('taxRateId').isDirty)
      setValue('taxRateId', defaultRate);
  }, [editing.kind, defaultRate, getFieldState, setValue]);

  const record = useRecordVersion<Product>({
    version: editing.kind === 'edit' ? editing.product.version : 0,
    load: () =>
      api.GET('/v1/products/{productId}', {
        params: { path: { productId: editing.kind === 'edit' ? editing.product.id : '' } },
      }),
    resave: (atVersion) => handleSubmit((values) => save(values, atVersion))(),
    showError: setFormError,
    fieldProblem: (problem) => applyProblem(problem, setError, FIELDS),
    texts: { conflict: t('products.conflict'), reload: t('products.reloadKeep') },
  });

  async function save(values: Values, atVersion: number) {
    setFormError(null);
    const unitPrice = parseDecimal(values.unitPrice, format);
    if (unitPrice === null) {
      setError(
        'unitPrice',
        { type: 'format', message: t('products.priceNotNumber') },
        { shouldFocus: true },
      );
      return;
    }
    const fields = { name: values.name.trim(), type: values.type, unitPrice };
    const unit = values.unit.trim();
    const description = values.description.trim();
    try {
      const { error } =
        editing.kind === 'new'
          ? await api.POST('/v1/products', {
              body: {
                ...fields,
                currency,
                ...(unit === '' ? {} : { unit }),
                ...(description === '' ? {} : { description }),
                ...(values.taxRateId === '' ? {} : { taxRateId: values.taxRateId }),
              },
            })
          : await api.PUT('/v1/products/{productId}', {
              params: { path: { productId: editing.product.id } },
              body: {
                ...changedOnly(
                  {
                    ...fields,
                    unit: unit === '' ? null : unit,
                    description: description === '' ? null : description,
                    taxRateId: values.taxRateId === '' ? null : values.taxRateId,
                  },
                  dirtyFields,
                ),
                version: atVersion,
              },
            });
      if (error) {
        record.showProblem(error);
        return;
      }
      await queryClient.invalidateQueries({ queryKey: keys.products.all });
      onDone(t('products.saved', { name: fields.name }));
    } catch {
      setFormError(t('common.unexpected'));
    }
  }

  return (
    <RecordForm
      id="product-form"
      title={
        editing.kind === 'new'
          ? t('products.newTitle')
          : t('products.editTitle', { name: editing.product.name })
      }
      onSubmit={(event) => void handleSubmit((values) => save(values, record.version))(event)}
      busy={isSubmitting}
      error={formError}
      reload={record.reload}
      saveLabel={t('products.save')}
      cancelLabel={t('products.cancel')}
      onCancel={() => onDone('')}
    >
      <div className="form-row">
        <Field label={t('products.name')} registration={register('name')} error={errors.name} />
        <SelectField label={t('products.type')} registration={register('type')} error={errors.type}>
          <option value="SERVICE">{t('products.types.SERVICE')}</option>
          <option value="GOODS">{t('products.types.GOODS')}</option>
        </SelectField>
      </div>
      <div className="form-row">
        <Field
          label={t('products.unitPriceIn', {
            currency: editing.kind === 'edit' ? editing.product.currency : currency,
          })}
          inputMode="decimal"
          registration={register('unitPrice')}
          error={errors.unitPrice}
        />
        <Field
          label={t('products.unit')}
          hint={t('products.unitHint')}
          registration={register('unit')}
          error={errors.unit}
        />
      </div>
      <SelectField
        label={t('products.taxRate')}
        registration={register('taxRateId')}
        error={errors.taxRateId}
      >
        <option value="">{t('products.noTaxRate')}</option>
        {rates.map((rate) => (
          <option key={rate.id} value={rate.id}>
            {taxRateLabel(rate, format)}
          </option>
        ))}
      </SelectField>
      <TextAreaField
        label={t('products.description')}
        rows={3}
        registration={register('description')}
        error={errors.description}
      />
    </RecordForm>
  );
}
