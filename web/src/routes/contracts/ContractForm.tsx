/**
 * Create or edit a contract, with its billing plan and plan lines. Every refusal of the API
 * lands on its field (`/body/billing/lineItems/0/quantity` → that line's quantity); a 409
 * `version_conflict` offers to reload the contract and save the user's edits (the fields they
 * changed) on top of it, keeping what someone else changed in the other fields.
 */
import type { components } from '@kontor/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useFieldArray, useForm, useWatch, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { ErrorAlert, unwrap } from '../../components/AdminKit';
import { Field, FormAlert } from '../../components/Form';
import { today } from '../../format';
import '../../styles/admin.css';
import '../../styles/forms.css';

type Contract = components['schemas']['Contract'];
type CreateContract = components['schemas']['CreateContract'];
type Currency = CreateContract['currency'];
type Interval = NonNullable<Contract['billing']>['interval'];

interface LineValues {
  productId: string;
  description: string;
  quantity: string;
  unitPrice: string;
}

export interface ContractValues {
  name: string;
  partnerId: string;
  startDate: string;
  endDate: string;
  totalValue: string;
  currency: string;
  status: 'DRAFT' | 'ACTIVE';
  description: string;
  billing: {
    enabled: boolean;
    interval: Interval;
    nextInvoiceDate: string;
    endDate: string;
    period: 'IN_ADVANCE' | 'IN_ARREARS';
    autoFinalize: boolean;
    autoSend: boolean;
    lineItems: LineValues[];
  };
}

const CURRENCIES = ['EUR', 'GBP', 'USD', 'CHF'] as const;
const INTERVALS: Interval[] = ['MONTHLY', 'QUARTERLY', 'HALF_YEARLY', 'YEARLY'];
const emptyLine: LineValues = { productId: '', description: '', quantity: '1', unitPrice: '' };

function valuesOf(contract: Contract | undefined): ContractValues {
  const plan = contract?.billing;
  return {
    name: contract?.name ?? '',
    partnerId: contract?.partnerId ?? '',
    startDate: contract?.startDate ?? today(),
    endDate: contract?.endDate ?? '',
    totalValue: contract ? String(contract.totalValue) : '',
    currency: contract?.currency ?? 'EUR',
    status: contract?.status ?? 'ACTIVE',
    description: contract?.description ?? '',
    billing: {
      enabled: contract === undefined || plan !== null,
      interval: plan?.interval ?? 'MONTHLY',
      nextInvoiceDate: plan?.nextInvoiceDate ?? today(),
      endDate: plan?.endDate ?? '',
      period: plan?.period ?? 'IN_ADVANCE',
      autoFinalize: plan?.autoFinalize ?? false,
      autoSend: plan?.autoSend ?? false,
      lineItems: plan
        ? plan.lineItems.map((line) => ({
            productId: line.productId ?? '',
            description: line.description ?? '',
            quantity: String(line.quantity),
            unitPrice: line.unitPrice === undefined ? '' : String(line.unitPrice),
          }))
        : [emptyLine],
    },
  };
}

/** A number field's text as the API wants it; left as typed when it is not a number, so the API names it. */
function num(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value.replace(',', '.'));
}

function planOf(values: ContractValues['billing'], paused: boolean) {
  return {
    interval: values.interval,
    nextInvoiceDate: values.nextInvoiceDate,
    endDate: values.endDate === '' ? null : values.endDate,
    period: values.period,
    autoFinalize: values.autoFinalize,
    autoSend: values.autoSend,
    paused,
    lineItems: values.lineItems.map((line) => ({
      ...(line.productId ? { productId: line.productId } : {}),
      ...(line.description ? { description: line.description } : {}),
      quantity: num(line.quantity),
      ...(line.unitPrice.trim() === '' ? {} : { unitPrice: num(line.unitPrice) }),
    })),
  };
}

function bodyOf(values: ContractValues, partnerName: string, existing?: Contract): CreateContract {
  return {
    name: values.name,
    partnerId: values.partnerId,
    partnerName,
    startDate: values.startDate,
    ...(values.endDate ? { endDate: values.endDate } : {}),
    totalValue: num(values.totalValue),
    currency: values.currency as Currency,
    status: values.status,
    ...(values.description ? { description: values.description } : {}),
    ...(values.billing.enabled
      ? { billing: planOf(values.billing, existing?.billing?.paused ?? false) }
      : {}),
  };
}

function fieldNames(values: ContractValues): Path<ContractValues>[] {
  const names: Path<ContractValues>[] = [
    'name',
    'partnerId',
    'startDate',
    'endDate',
    'totalValue',
    'currency',
    'status',
    'description',
    'billing.interval',
    'billing.nextInvoiceDate',
    'billing.endDate',
    'billing.period',
  ];
  values.billing.lineItems.forEach((_, index) => {
    for (const part of ['productId', 'description', 'quantity', 'unitPrice'] as const) {
      names.push(`billing.lineItems.${index}.${part}`);
    }
  });
  return names;
}

function useOptions() {
  const partners = useQuery({
    queryKey: keys.partners.list({ limit: 100, type: 'CUSTOMER' }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/partners', { params: { query: { limit: 100 } } })),
  });
  const products = useQuery({
    queryKey: keys.products.list({ limit: 100 }),
    queryFn: async () =>
      unwrap(await api.GET('/v1/products', { params: { query: { limit: 100 } } })),
  });
  return { partners, products };
}

export function ContractForm({ contract }: { contract?: Contract }) {
  const { t } = useTranslation();
  // The record the edits apply to: replaced by a fresh read after a version conflict.
  const [base, setBase] = useState(contract);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { partners, products } = useOptions();
  const [formError, setFormError] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const form = useForm<ContractValues>({ defaultValues: valuesOf(contract) });
  const {
    register,
    handleSubmit,
    setError,
    control,
    formState: { errors, isSubmitting },
  } = form;
  const lines = useFieldArray({ control, name: 'billing.lineItems' });
  const billingEnabled = useWatch({ control, name: 'billing.enabled' });

  const save = async (values: ContractValues, version?: number) => {
    setFormError(null);
    setConflict(false);
    const partner = partners.data?.data.find((p) => p.id === values.partnerId);
    const body = bodyOf(values, partner?.name ?? base?.partnerName ?? '', base);
    try {
      const result =
        base === undefined
          ? await api.POST('/v1/contracts', { body })
          : await api.PUT('/v1/contracts/{contractId}', {
              params: { path: { contractId: base.id } },
              body: {
                ...body,
                version: version ?? base.version,
                endDate: body.endDate ?? null,
                description: body.description ?? null,
                billing: body.billing ?? null,
              },
            });
      if (result.error) {
        if (result.error.code === 'version_conflict') setConflict(true);
        setFormError(applyProblem(result.error, setError, fieldNames(values)));
        return;
      }
      await queryClient.invalidateQueries({ queryKey: keys.contracts.all });
      await navigate({ to: '/contracts/$contractId', params: { contractId: result.data.id } });
    } catch {
      setFormError(t('common.unexpected'));
    }
  };

  /** Reads the stored contract and saves the fields the user changed on top of it. */
  const reloadAndKeep = async () => {
    if (base === undefined) return;
    const fresh = await api.GET('/v1/contracts/{contractId}', {
      params: { path: { contractId: base.id } },
    });
    if (!fresh.data) {
      setFormError(t('common.unexpected'));
      return;
    }
    const edited = form.getValues();
    const merged = valuesOf(fresh.data);
    // The plan is one value for the API (a PUT replaces it whole): edited anywhere, kept whole.
    for (const key of Object.keys(form.formState.dirtyFields) as (keyof ContractValues)[]) {
      Object.assign(merged, { [key]: edited[key] });
    }
    setBase(fresh.data);
    await save(merged, fresh.data.version);
  };

  const required = { required: t('common.required') };
  return (
    <form
      className="admin-form"
      noValidate
      onSubmit={(event) => void handleSubmit((v) => save(v))(event)}
    >
      <FormAlert message={formError} />
      {conflict ? (
        <button type="button" className="button" onClick={() => void reloadAndKeep()}>
          {t('admin.reloadKeep')}
        </button>
      ) : null}
      <ErrorAlert error={partners.error ?? products.error} />
      <div className="admin-panel admin-grid">
        <Field
          label={t('contracts.name')}
          registration={register('name', required)}
          error={errors.name}
        />
        <div className="field">
          <label htmlFor="contract-partner">{t('contracts.partner')}</label>
          <select
            id="contract-partner"
            {...register('partnerId', required)}
            aria-invalid={errors.partnerId ? true : undefined}
            aria-describedby={errors.partnerId ? 'contract-partner-error' : undefined}
          >
            <option value="">{t('contracts.choosePartner')}</option>
            {contract && !partners.data?.data.some((p) => p.id === contract.partnerId) ? (
              <option value={contract.partnerId}>{contract.partnerName}</option>
            ) : null}
            {partners.data?.data.map((partner) => (
              <option key={partner.id} value={partner.id}>
                {partner.name}
              </option>
            ))}
          </select>
          {errors.partnerId?.message ? (
            <p className="field-error" id="contract-partner-error">
              {errors.partnerId.message}
            </p>
          ) : null}
        </div>
        <Field
          label={t('contracts.startDate')}
          type="date"
          registration={register('startDate', required)}
          error={errors.startDate}
        />
        <Field
          label={t('contracts.endDate')}
          type="date"
          registration={register('endDate')}
          error={errors.endDate}
        />
        <Field
          label={t('contracts.totalValue')}
          inputMode="decimal"
          registration={register('totalValue', required)}
          error={errors.totalValue}
        />
        <div className="field">
          <label htmlFor="contract-currency">{t('contracts.currency')}</label>
          <select id="contract-currency" {...register('currency')}>
            {[...new Set([...CURRENCIES, contract?.currency ?? 'EUR'])].map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="contract-status">{t('contracts.status')}</label>
          <select id="contract-status" {...register('status')}>
            <option value="ACTIVE">{t('contracts.statusACTIVE')}</option>
            <option value="DRAFT">{t('contracts.statusDRAFT')}</option>
          </select>
        </div>
        <Field
          label={t('contracts.description')}
          registration={register('description')}
          error={errors.description}
        />
      </div>
      <fieldset className="admin-fieldset">
        <legend>{t('contracts.plan')}</legend>
        <label className="admin-check">
          <input type="checkbox" {...register('billing.enabled')} />
          {t('contracts.planEnabled')}
        </label>
        {billingEnabled ? (
          <PlanFields form={form} lines={lines} products={products.data?.data ?? []} />
        ) : null}
      </fieldset>
      <div className="admin-actions">
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {contract === undefined ? t('contracts.create') : t('contracts.save')}
        </button>
        {contract === undefined ? (
          <Link to="/contracts" className="button">
            {t('admin.cancel')}
          </Link>
        ) : (
          <Link to="/contracts/$contractId" params={{ contractId: contract.id }} className="button">
            {t('admin.cancel')}
          </Link>
        )}
      </div>
    </form>
  );
}

type Form = ReturnType<typeof useForm<ContractValues>>;
type Lines = ReturnType<typeof useFieldArray<ContractValues, 'billing.lineItems'>>;
type Product = components['schemas']['Product'];

function PlanFields({ form, lines, products }: { form: Form; lines: Lines; products: Product[] }) {
  const { t } = useTranslation();
  const {
    register,
    formState: { errors },
  } = form;
  const plan = errors.billing;
  return (
    <div className="admin-form">
      <div className="admin-grid">
        <div className="field">
          <label htmlFor="plan-interval">{t('contracts.interval')}</label>
          <select id="plan-interval" {...register('billing.interval')}>
            {INTERVALS.map((interval) => (
              <option key={interval} value={interval}>
                {t(`contracts.interval${interval}`)}
              </option>
            ))}
          </select>
        </div>
        <Field
          label={t('contracts.nextInvoiceDate')}
          type="date"
          registration={register('billing.nextInvoiceDate', { required: t('common.required') })}
          error={plan?.nextInvoiceDate}
        />
        <Field
          label={t('contracts.planEndDate')}
          type="date"
          registration={register('billing.endDate')}
          error={plan?.endDate}
        />
        <div className="field">
          <label htmlFor="plan-period">{t('contracts.period')}</label>
          <select id="plan-period" {...register('billing.period')}>
            <option value="IN_ADVANCE">{t('contracts.periodIN_ADVANCE')}</option>
            <option value="IN_ARREARS">{t('contracts.periodIN_ARREARS')}</option>
          </select>
        </div>
      </div>
      <label className="admin-check">
        <input type="checkbox" {...register('billing.autoFinalize')} />
        {t('contracts.autoFinalize')}
      </label>
      <label className="admin-check">
        <input type="checkbox" {...register('billing.autoSend')} />
        {t('contracts.autoSend')}
      </label>
      <fieldset className="admin-fieldset admin-lines">
        <legend>{t('contracts.lines')}</legend>
        {lines.fields.map((line, index) => (
          <div
            className="admin-line"
            key={line.id}
            role="group"
            aria-label={t('contracts.lineN', { n: index + 1 })}
          >
            <div className="field">
              <label htmlFor={`line-${index}-product`}>{t('contracts.product')}</label>
              <select
                id={`line-${index}-product`}
                {...register(`billing.lineItems.${index}.productId`)}
              >
                <option value="">{t('contracts.noProduct')}</option>
                {products.map((product) => (
                  <option key={product.id} value={product.id}>
                    {product.name}
                  </option>
                ))}
              </select>
            </div>
            <Field
              label={t('contracts.lineDescription')}
              registration={register(`billing.lineItems.${index}.description`)}
              error={plan?.lineItems?.[index]?.description}
            />
            <Field
              label={t('contracts.quantity')}
              inputMode="decimal"
              registration={register(`billing.lineItems.${index}.quantity`)}
              error={plan?.lineItems?.[index]?.quantity}
            />
            <Field
              label={t('contracts.unitPrice')}
              inputMode="decimal"
              hint={t('contracts.unitPriceHint')}
              registration={register(`billing.lineItems.${index}.unitPrice`)}
              error={plan?.lineItems?.[index]?.unitPrice}
            />
            <button
              type="button"
              className="button button-small"
              disabled={lines.fields.length === 1}
              onClick={() => lines.remove(index)}
            >
              {t('contracts.removeLine', { n: index + 1 })}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="button button-small"
          onClick={() => lines.append(emptyLine)}
        >
          {t('contracts.addLine')}
        </button>
      </fieldset>
    </div>
  );
}
