/**
 * Create or edit a partner. The API checks everything (VAT id syntax and check digit, Leitweg-ID,
 * URL, country, number format and uniqueness); each refusal shows on its field, and the
 * values typed stay. An edit sends the version read: a 409 `version_conflict` offers to
 * reload the stored version and keep the edits (they are sent again against it).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { components, Problem } from '@kontor/client';
import { useId, useState, type ReactNode } from 'react';
import {
  useForm,
  type FieldError,
  type UseFormRegisterReturn,
  type UseFormSetValue,
} from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { useKeepEditsOnConflict } from '../../hooks/useKeepEditsOnConflict';

type Partner = components['schemas']['Partner'];
type Address = components['schemas']['Address'];
type EinvoiceFormat = Partner['einvoiceFormat'];

interface AddressValues {
  street: string;
  postalCode: string;
  city: string;
  country: string;
  email: string;
  phone: string;
}

export interface PartnerFormValues {
  name: string;
  type: Partner['type'];
  partnerNumber: string;
  vatId: string;
  buyerReference: string;
  website: string;
  tags: string;
  description: string;
  language: Partner['language'];
  einvoiceFormat: EinvoiceFormat;
  dunningBlocked: boolean;
  /** The billing address; it is always sent first, so the API's `/body/addresses/0/…` is it. */
  addresses: [AddressValues];
}

const FIELDS = [
  'name',
  'type',
  'partnerNumber',
  'vatId',
  'buyerReference',
  'website',
  'tags',
  'description',
  'language',
  'einvoiceFormat',
  'dunningBlocked',
  'addresses.0.street',
  'addresses.0.postalCode',
  'addresses.0.city',
  'addresses.0.country',
  'addresses.0.email',
  'addresses.0.phone',
] as const;

const documentLanguages: Partner['language'][] = ['de', 'en'];
const ADDRESS_KEYS = ['street', 'postalCode', 'city', 'country', 'email', 'phone'] as const;

function billingOf(partner: Partner | undefined): Address | undefined {
  return partner?.addresses.find((a) => a.type === 'BILLING') ?? partner?.addresses[0];
}

export function valuesOf(partner?: Partner): PartnerFormValues {
  const billing = billingOf(partner);
  return {
    name: partner?.name ?? '',
    type: partner?.type ?? 'CUSTOMER',
    partnerNumber: partner?.partnerNumber ?? '',
    vatId: partner?.vatId ?? '',
    buyerReference: partner?.buyerReference ?? '',
    website: partner?.website ?? '',
    tags: partner?.tags.join(', ') ?? '',
    description: partner?.description ?? '',
    language: partner?.language ?? 'de',
    einvoiceFormat: partner?.einvoiceFormat ?? 'ZUGFERD',
    dunningBlocked: partner?.dunningBlocked ?? false,
    addresses: [
      {
        street: billing?.street ?? '',
        postalCode: billing?.postalCode ?? '',
        city: billing?.city ?? '',
        country: billing?.country ?? 'DE',
        email: billing?.email ?? '',
        phone: billing?.phone ?? '',
      },
    ],
  };
}

/** The addresses to send: the form's billing address first, the partner's others after it. */
function addressesOf(values: PartnerFormValues, partner?: Partner): Address[] {
  const form = values.addresses[0];
  const billing: Record<string, string> = { type: 'BILLING' };
  for (const key of ADDRESS_KEYS) if (form[key].trim() !== '') billing[key] = form[key].trim();
  const others = partner?.addresses.filter((a) => a !== billingOf(partner)) ?? [];
  const filled = Object.keys(billing).some((key) => key !== 'type' && key !== 'country');
  return [...(filled ? [billing as unknown as Address] : []), ...others];
}

function tagsOf(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

function createBody(values: PartnerFormValues): components['schemas']['CreatePartner'] {
  const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
  return {
    name: values.name.trim(),
    type: values.type,
    partnerNumber: optional(values.partnerNumber),
    vatId: optional(values.vatId),
    buyerReference: optional(values.buyerReference),
    website: optional(values.website),
    description: optional(values.description),
    tags: tagsOf(values.tags),
    language: values.language,
    einvoiceFormat: values.einvoiceFormat,
    dunningBlocked: values.dunningBlocked,
    addresses: addressesOf(values),
  };
}

function updateBody(
  values: PartnerFormValues,
  partner: Partner,
  version: number,
): components['schemas']['UpdatePartner'] {
  const nullable = (text: string) => (text.trim() === '' ? null : text.trim());
  return {
    version,
    name: values.name.trim(),
    type: values.type,
    // A number cannot be cleared, only changed: an emptied field keeps the stored one.
    partnerNumber: values.partnerNumber.trim() === '' ? undefined : values.partnerNumber.trim(),
    vatId: nullable(values.vatId),
    buyerReference: nullable(values.buyerReference),
    website: nullable(values.website),
    description: nullable(values.description),
    tags: tagsOf(values.tags),
    language: values.language,
    einvoiceFormat: values.einvoiceFormat,
    dunningBlocked: values.dunningBlocked,
    addresses: addressesOf(values, partner),
  };
}

/** A tag's refusal (`/body/tags/3`) belongs to the one tags field. */
function normalised(problem: Problem): Problem {
  return {
    ...problem,
    errors: problem.errors?.map((entry) => ({
      ...entry,
      path: entry.path.replace(/^(\/body)?\/tags\/\d+.*$/, '/body/tags'),
    })),
  };
}

function Choice({
  label,
  registration,
  error,
  children,
}: {
  label: string;
  registration: UseFormRegisterReturn;
  error: FieldError | undefined;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        {...registration}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        {children}
      </select>
      {error?.message ? (
        <p className="field-error" id={`${id}-error`}>
          {error.message}
        </p>
      ) : null}
    </div>
  );
}

function TextArea({
  label,
  registration,
  error,
}: {
  label: string;
  registration: UseFormRegisterReturn;
  error: FieldError | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={3}
        {...registration}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error?.message ? (
        <p className="field-error" id={`${id}-error`}>
          {error.message}
        </p>
      ) : null}
    </div>
  );
}

type Dirty = Partial<Record<keyof PartnerFormValues, unknown>>;

/** Sets the fields the user changed (react-hook-form's dirty map) back to their values. */
function reapply(
  setValue: UseFormSetValue<PartnerFormValues>,
  typed: PartnerFormValues,
  dirty: Dirty,
) {
  for (const field of Object.keys(dirty) as (keyof PartnerFormValues)[]) {
    if (field === 'addresses') {
      const address = (dirty.addresses as Partial<Record<keyof AddressValues, boolean>>[])[0];
      for (const key of ADDRESS_KEYS) {
        if (address?.[key]) {
          setValue(`addresses.0.${key}`, typed.addresses[0][key], { shouldDirty: true });
        }
      }
    } else {
      setValue(field, typed[field], { shouldDirty: true });
    }
  }
}

interface Props {
  /** The stored partner to edit; none: a new one. */
  partner?: Partner;
}

export function PartnerForm({ partner }: Props) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<PartnerFormValues>({ defaultValues: valuesOf(partner) });
  const { register, handleSubmit, setError, formState } = form;
  const errors = formState.errors;
  // Read during render so react-hook-form tracks it (used when a conflict is reloaded).
  const dirtyFields = formState.dirtyFields;
  const addressErrors = errors.addresses?.[0];
  const [version, setVersion] = useState(partner?.version ?? 0);
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const keepEdits = useKeepEditsOnConflict<Partner>({
    load: () =>
      api.GET('/v1/partners/{partnerId}', {
        params: { path: { partnerId: partner?.id ?? '' } },
      }),
    // The stored values, then what the user changed on top: their edits win, the rest is what
    // the other writer saved. The next save sends them on the stored version.
    keep: (data) => {
      queryClient.setQueryData(keys.partners.detail(data.id), data);
      const typed = form.getValues();
      form.reset(valuesOf(data));
      reapply(form.setValue, typed, dirtyFields);
      setVersion(data.version);
      keepEdits.noteProblem(null);
      setMessage(null);
      setSaved(t('partners.form.reloaded', { version: data.version }));
    },
    onProblem: (problem) => refused(problem),
    onUnexpected: () => setMessage(t('common.unexpected')),
  });

  function refused(problem: Problem) {
    if (keepEdits.noteProblem(problem)) {
      setMessage(t('partners.form.conflict'));
      return;
    }
    setMessage(applyProblem(normalised(problem), setError, FIELDS));
  }

  const submit = handleSubmit(async (values) => {
    setMessage(null);
    setSaved(null);
    keepEdits.noteProblem(null);
    try {
      if (partner === undefined) {
        const { data, error } = await api.POST('/v1/partners', { body: createBody(values) });
        if (error) return refused(error);
        await queryClient.invalidateQueries({ queryKey: keys.partners.lists() });
        await navigate({ to: '/partners/$partnerId', params: { partnerId: data.id } });
        return;
      }
      const { data, error } = await api.PUT('/v1/partners/{partnerId}', {
        params: { path: { partnerId: partner.id } },
        body: updateBody(values, partner, version),
      });
      if (error) return refused(error);
      queryClient.setQueryData(keys.partners.detail(data.id), data);
      await queryClient.invalidateQueries({ queryKey: keys.partners.lists() });
      setVersion(data.version);
      form.reset(valuesOf(data));
      setSaved(t('partners.form.saved'));
    } catch {
      setMessage(t('common.unexpected'));
    }
  });

  return (
    <form className="form partner-form" noValidate onSubmit={(event) => void submit(event)}>
      <FormAlert message={message} />
      {keepEdits.conflict ? (
        <button
          type="button"
          className="button"
          onClick={() => void keepEdits.reloadKeepingEdits()}
        >
          {t('partners.form.reloadKeep')}
        </button>
      ) : null}
      <FormNote message={saved} />
      <fieldset className="form-group">
        <legend>{t('partners.form.basics')}</legend>
        <Field
          label={t('partners.form.name')}
          registration={register('name', { required: t('common.required') })}
          error={errors.name}
          autoComplete="organization"
        />
        <Choice label={t('partners.type')} registration={register('type')} error={errors.type}>
          <option value="CUSTOMER">{t('partners.types.CUSTOMER')}</option>
          <option value="VENDOR">{t('partners.types.VENDOR')}</option>
        </Choice>
        <Field
          label={t('partners.number')}
          registration={register('partnerNumber')}
          error={errors.partnerNumber}
          hint={partner === undefined ? t('partners.form.numberHint') : undefined}
        />
        <Field
          label={t('partners.form.tags')}
          registration={register('tags')}
          error={errors.tags}
          hint={t('partners.form.tagsHint')}
        />
        <Field
          label={t('partners.form.website')}
          registration={register('website')}
          error={errors.website}
          type="url"
        />
        <TextArea
          label={t('partners.form.description')}
          registration={register('description')}
          error={errors.description}
        />
      </fieldset>
      <fieldset className="form-group">
        <legend>{t('partners.form.billingAddress')}</legend>
        <Field
          label={t('partners.form.street')}
          registration={register('addresses.0.street')}
          error={addressErrors?.street}
          autoComplete="street-address"
        />
        <Field
          label={t('partners.form.postalCode')}
          registration={register('addresses.0.postalCode')}
          error={addressErrors?.postalCode}
          autoComplete="postal-code"
        />
        <Field
          label={t('partners.form.city')}
          registration={register('addresses.0.city')}
          error={addressErrors?.city}
          autoComplete="address-level2"
        />
        <Field
          label={t('partners.form.country')}
          registration={register('addresses.0.country')}
          error={addressErrors?.country}
          hint={t('partners.form.countryHint')}
          maxLength={2}
        />
        <Field
          label={t('partners.email')}
          registration={register('addresses.0.email')}
          error={addressErrors?.email}
          type="email"
          autoComplete="email"
        />
        <Field
          label={t('partners.form.phone')}
          registration={register('addresses.0.phone')}
          error={addressErrors?.phone}
          type="tel"
          autoComplete="tel"
        />
      </fieldset>
      <fieldset className="form-group">
        <legend>{t('partners.form.invoicing')}</legend>
        <Field
          label={t('partners.form.vatId')}
          registration={register('vatId')}
          error={errors.vatId}
          hint={t('partners.form.vatIdHint')}
        />
        <Field
          label={t('partners.form.buyerReference')}
          registration={register('buyerReference')}
          error={errors.buyerReference}
        />
        <Choice
          label={t('partners.form.einvoiceFormat')}
          registration={register('einvoiceFormat')}
          error={errors.einvoiceFormat}
        >
          <option value="ZUGFERD">{t('partners.form.formats.ZUGFERD')}</option>
          <option value="XRECHNUNG_CII">{t('partners.form.formats.XRECHNUNG_CII')}</option>
          <option value="XRECHNUNG_UBL">{t('partners.form.formats.XRECHNUNG_UBL')}</option>
          <option value="PDF">{t('partners.form.formats.PDF')}</option>
        </Choice>
        <Choice
          label={t('partners.form.language')}
          registration={register('language')}
          error={errors.language}
        >
          {documentLanguages.map((language) => (
            <option key={language} value={language}>
              {t(`language.${language}`)}
            </option>
          ))}
        </Choice>
        <div className="field field-checkbox">
          <label>
            <input type="checkbox" {...register('dunningBlocked')} />{' '}
            {t('partners.form.dunningBlocked')}
          </label>
        </div>
      </fieldset>
      <div>
        <button type="submit" className="button button-primary" disabled={formState.isSubmitting}>
          {partner === undefined ? t('partners.form.create') : t('partners.form.save')}
        </button>
      </div>
    </form>
  );
}
