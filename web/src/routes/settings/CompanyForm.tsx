/**
 * The seller's master data (`PUT /v1/account/company`): name, address, tax ids, contact and the
 * first bank account, and the SEPA creditor id. The API checks every field: on leaving it and
 * while typing an IBAN, VAT id, tax number or creditor id (`POST /v1/account/company/check`, useCompanyCheck), and again on save;
 * every refused field shows the API's message beside it, and what was typed stays. A stale
 * version (409 version_conflict) offers to reload the version and save the same values again.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm, type Path } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { components, Problem } from '@kontor/client';
import type { Company } from '../../api/account';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { applyProblem } from '../../api/problems';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { CheckboxField, SelectField, TextAreaField } from '../../components/FormFields';
import { useKeepEditsOnConflict } from '../../hooks/useKeepEditsOnConflict';
import { COUNTRIES, type Country } from './countries';
import { useCompanyCheck } from './useCompanyCheck';

type CheckCompany = components['schemas']['CheckCompanyRequest'];

export interface CompanyValues {
  legalName: string;
  address: { street: string; postalCode: string; city: string; country: Country };
  vatId: string;
  taxNumber: string;
  registerCourt: string;
  registerNumber: string;
  managingDirectors: string;
  email: string;
  phone: string;
  website: string;
  smallBusiness: boolean;
  defaultPaymentTermDays: string;
  bankAccounts: { iban: string; bic: string; accountHolder: string; bankName: string }[];
  /** The SEPA creditor identifier (Gläubiger-ID) direct debits need. */
  creditorId: string;
}

/** Every field a problem may name (its pointer `/body/…` read as a form path). */
const FIELDS: readonly Path<CompanyValues>[] = [
  'legalName',
  'address',
  'address.street',
  'address.postalCode',
  'address.city',
  'address.country',
  'vatId',
  'taxNumber',
  'registerCourt',
  'registerNumber',
  'managingDirectors',
  'email',
  'phone',
  'website',
  'smallBusiness',
  'defaultPaymentTermDays',
  'bankAccounts',
  'bankAccounts.0.iban',
  'bankAccounts.0.bic',
  'bankAccounts.0.accountHolder',
  'bankAccounts.0.bankName',
  'creditorId',
];

function toValues(company: Company): CompanyValues {
  const bank = company.bankAccounts[0];
  return {
    legalName: company.legalName,
    address: {
      street: company.address?.street ?? '',
      postalCode: company.address?.postalCode ?? '',
      city: company.address?.city ?? '',
      country: company.address?.country ?? 'DE',
    },
    vatId: company.vatId ?? '',
    taxNumber: company.taxNumber ?? '',
    registerCourt: company.registerCourt ?? '',
    registerNumber: company.registerNumber ?? '',
    managingDirectors: company.managingDirectors.join('\n'),
    email: company.email ?? '',
    phone: company.phone ?? '',
    website: company.website ?? '',
    smallBusiness: company.smallBusiness,
    defaultPaymentTermDays:
      company.defaultPaymentTermDays === null ? '' : String(company.defaultPaymentTermDays),
    bankAccounts: [
      {
        iban: bank?.iban ?? '',
        bic: bank?.bic ?? '',
        accountHolder: bank?.accountHolder ?? '',
        bankName: bank?.bankName ?? '',
      },
    ],
    creditorId: company.creditorId ?? '',
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** A term the API can judge: a whole number as typed, else the text's number (the API refuses it). */
function termDays(text: string): number | null {
  if (text.trim() === '') return null;
  const days = Number(text.trim());
  return Number.isFinite(days) ? days : Number.NaN;
}

/**
 * The whole object PUT replaces (without its version, which is what the check takes): the
 * form's fields, the rest (more bank accounts, BT-34) kept.
 */
function toBody(values: CompanyValues, base: Company): CheckCompany {
  const { street, postalCode, city, country } = values.address;
  const anyAddress = [street, postalCode, city].some((part) => part.trim() !== '');
  const bank = values.bankAccounts[0];
  const firstBank =
    bank === undefined || bank.iban.trim() === ''
      ? []
      : [
          {
            iban: bank.iban.trim(),
            bic: orNull(bank.bic),
            accountHolder: orNull(bank.accountHolder),
            bankName: orNull(bank.bankName),
          },
        ];
  return {
    legalName: values.legalName.trim(),
    address: anyAddress
      ? { street: street.trim(), postalCode: postalCode.trim(), city: city.trim(), country }
      : null,
    vatId: orNull(values.vatId),
    taxNumber: orNull(values.taxNumber),
    registerCourt: orNull(values.registerCourt),
    registerNumber: orNull(values.registerNumber),
    managingDirectors: values.managingDirectors
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    email: orNull(values.email),
    phone: orNull(values.phone),
    website: orNull(values.website),
    electronicAddress: base.electronicAddress,
    bankAccounts: [...firstBank, ...base.bankAccounts.slice(1)],
    smallBusiness: values.smallBusiness,
    defaultPaymentTermDays: termDays(values.defaultPaymentTermDays),
    creditorId: orNull(values.creditorId),
  };
}

function useCountryOptions() {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const names = new Intl.DisplayNames([i18n.language], { type: 'region' });
    return COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) =>
      a.name.localeCompare(b.name, i18n.language),
    );
  }, [i18n.language]);
}

export function CompanyForm({ company }: { company: Company }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const countries = useCountryOptions();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const {
    register,
    handleSubmit,
    setError,
    clearErrors,
    getValues,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<CompanyValues>({ defaultValues: toValues(company) });

  /** What the form saves on: the cache's company (see `save`), else the one it was given. */
  const latest = () => queryClient.getQueryData<Company>(keys.company.all) ?? company;

  const keepEdits = useKeepEditsOnConflict<Company>({
    load: () => api.GET('/v1/account/company'),
    // 409: take the stored version and save the same values again (nothing typed is lost).
    keep: async (stored) => {
      queryClient.setQueryData(keys.company.all, stored);
      await handleSubmit(save)();
    },
    onProblem: (problem) => showProblem(problem),
    onUnexpected: () => setFormError(t('common.unexpected')),
  });

  const check = useCompanyCheck({
    getValues,
    setError,
    clearErrors,
    stored: () => toValues(latest()),
    body: (values) => toBody(values, latest()),
  });

  function showProblem(problem: Problem) {
    // The API's words for a conflict are for developers; the owner gets the way out.
    setFormError(
      keepEdits.noteProblem(problem)
        ? t('company.conflict')
        : applyProblem(problem, setError, FIELDS),
    );
  }

  /**
   * Saves at the version the cache holds: it changes only by this page's own writes (this
   * form, the logo, which shares the version) or a reload, never by a background refetch
   * (useCompany), so another user's change still answers 409.
   */
  async function save(values: CompanyValues) {
    setFormError(null);
    setSaved(false);
    try {
      const base = latest();
      const { data, error } = await api.PUT('/v1/account/company', {
        body: { version: base.version, ...toBody(values, base) },
      });
      if (error) {
        showProblem(error);
        return;
      }
      keepEdits.noteProblem(null);
      queryClient.setQueryData(keys.company.all, data);
      // The account settings share the version; the checklist reads the company.
      await queryClient.invalidateQueries({ queryKey: keys.account.all });
      await queryClient.invalidateQueries({ queryKey: keys.readiness.all });
      // The creditor id and the first bank account decide what SEPA runs can do.
      await queryClient.invalidateQueries({ queryKey: keys.sepa.proposals() });
      reset(toValues(data));
      setSaved(true);
    } catch {
      setFormError(t('common.unexpected'));
    }
  }

  /** A text field, checked by the API on leaving it (and while typing, if `asTyped`). */
  const field = (name: Path<CompanyValues>, asTyped = false) =>
    register(name, {
      onBlur: () => check.now(name),
      onChange: asTyped ? () => check.soon(name) : undefined,
    });
  // The form edits the first bank account (the one invoices print).
  const bank = (name: keyof CompanyValues['bankAccounts'][number]) =>
    field(`bankAccounts.0.${name}`, name === 'iban');
  const bankErrors = errors.bankAccounts?.[0];

  return (
    <form
      className="form company-form"
      noValidate
      aria-labelledby="company-title"
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
      <fieldset className="form-section" id="company">
        <legend>{t('company.masterData')}</legend>
        <Field
          label={t('company.legalName')}
          autoComplete="organization"
          required
          hint={t('company.legalNameHint')}
          registration={field('legalName')}
          error={errors.legalName}
        />
        <Field
          label={t('company.street')}
          autoComplete="street-address"
          registration={field('address.street')}
          error={errors.address?.street ?? errors.address}
        />
        <div className="form-row">
          <Field
            label={t('company.postalCode')}
            autoComplete="postal-code"
            registration={field('address.postalCode')}
            error={errors.address?.postalCode}
          />
          <Field
            label={t('company.city')}
            autoComplete="address-level2"
            registration={field('address.city')}
            error={errors.address?.city}
          />
        </div>
        <SelectField
          label={t('company.country')}
          registration={register('address.country')}
          error={errors.address?.country}
        >
          {countries.map((country) => (
            <option key={country.code} value={country.code}>
              {country.name}
            </option>
          ))}
        </SelectField>
      </fieldset>
      <fieldset className="form-section" id="tax">
        <legend>{t('company.taxes')}</legend>
        <p className="field-hint">{t('company.taxesHint')}</p>
        <Field
          label={t('company.vatId')}
          registration={field('vatId', true)}
          error={errors.vatId}
          hint={t('company.vatIdHint')}
        />
        <Field
          label={t('company.taxNumber')}
          registration={field('taxNumber', true)}
          error={errors.taxNumber}
          hint={t('company.taxNumberHint')}
        />
        <CheckboxField
          label={t('company.smallBusiness')}
          hint={t('company.smallBusinessHint')}
          registration={register('smallBusiness')}
          error={errors.smallBusiness}
        />
        <Field
          label={t('company.paymentTerm')}
          inputMode="numeric"
          registration={field('defaultPaymentTermDays')}
          error={errors.defaultPaymentTermDays}
        />
      </fieldset>
      <fieldset className="form-section" id="contact">
        <legend>{t('company.contact')}</legend>
        <Field
          label={t('company.email')}
          type="email"
          autoComplete="email"
          registration={field('email')}
          error={errors.email}
        />
        <Field
          label={t('company.phone')}
          type="tel"
          autoComplete="tel"
          registration={field('phone')}
          error={errors.phone}
        />
        <Field
          label={t('company.website')}
          type="url"
          autoComplete="url"
          registration={field('website')}
          error={errors.website}
        />
        <div className="form-row">
          <Field
            label={t('company.registerCourt')}
            registration={field('registerCourt')}
            error={errors.registerCourt}
          />
          <Field
            label={t('company.registerNumber')}
            registration={field('registerNumber')}
            error={errors.registerNumber}
          />
        </div>
        <TextAreaField
          label={t('company.managingDirectors')}
          hint={t('company.managingDirectorsHint')}
          rows={2}
          registration={field('managingDirectors')}
          error={errors.managingDirectors}
        />
      </fieldset>
      <fieldset className="form-section" id="bank">
        <legend>{t('company.bank')}</legend>
        <p className="field-hint">{t('company.bankHint')}</p>
        <Field
          label={t('company.iban')}
          autoComplete="off"
          registration={bank('iban')}
          error={bankErrors?.iban ?? errors.bankAccounts}
        />
        <div className="form-row">
          <Field
            label={t('company.bic')}
            autoComplete="off"
            registration={bank('bic')}
            error={bankErrors?.bic}
          />
          <Field
            label={t('company.bankName')}
            registration={bank('bankName')}
            error={bankErrors?.bankName}
          />
        </div>
        <Field
          label={t('company.accountHolder')}
          hint={t('company.accountHolderHint')}
          registration={bank('accountHolder')}
          error={bankErrors?.accountHolder}
        />
      </fieldset>
      <fieldset className="form-section" id="sepa">
        <legend>{t('sepa.company.legend')}</legend>
        <Field
          label={t('sepa.company.creditorId')}
          autoComplete="off"
          hint={t('sepa.company.creditorIdHint')}
          registration={field('creditorId', true)}
          error={errors.creditorId}
        />
      </fieldset>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {isSubmitting ? t('company.saving') : t('company.save')}
        </button>
        <FormNote message={saved ? t('company.saved') : null} />
      </div>
    </form>
  );
}
