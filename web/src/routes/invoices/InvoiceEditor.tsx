import type { Problem } from '@kontor/client';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import {
  useFieldArray,
  useForm,
  useWatch,
  type FieldPath,
  type UseFormReturn,
} from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError } from '../../api/problems';
import { queryClient } from '../../api/query';
import { FormAlert, FormNote } from '../../components/Form';
import { EditorField } from './EditorField';
import { SearchCombobox, type ComboboxOption } from '../../components/SearchCombobox';
import { useFormats } from '../../api/account';
import { today } from '../../format';
import {
  createBody,
  editorFieldOf,
  emptyLine,
  formatDecimal,
  numberProblems,
  updateBody,
  valuesOf,
  type EditorValues,
  type SalesType,
} from './editor-model';
import { DocumentChain } from './DocumentChain';
import { FinalizeProblems, type FinalizeProblem } from './FinalizeProblems';
import { asJson, finalFocus, useInvoiceTitle, type Invoice } from './shared';
import '../../styles/forms.css';
import '../../styles/screens.css';
import '../../styles/invoices.css';

/** Units offered for free lines (UN/ECE Rec. 20); a product's line keeps the product's own. */
const unitCodes = ['C62', 'H87', 'HUR', 'DAY', 'MON', 'LS', 'KGM', 'MTR', 'SET'] as const;

/**
 * Set before the editor of a just-created draft mounts on its own address: focus returns to
 * the save button there, so a keyboard user continues where they were.
 */
let focusAfterCreate = false;

const PARTNER_INPUT = 'invoice-partner';
const DATE_KIND: EditorValues['periodKind'] = 'date';
const PERIOD_KIND: EditorValues['periodKind'] = 'period';

function useTaxRates() {
  return useQuery({
    queryKey: keys.taxRates.list({ limit: 100 }),
    staleTime: 5 * 60_000,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
      if (error) throw new ProblemError(error);
      return asJson(data).data;
    },
  });
}

async function searchPartners(q: string) {
  const { data, error } = await api.GET('/v1/partners', {
    params: { query: { limit: 10, type: 'CUSTOMER', ...(q.trim() ? { q: q.trim() } : {}) } },
  });
  if (error) throw new ProblemError(error);
  return asJson(data).data.map((partner) => ({
    id: partner.id,
    label: partner.name,
    ...(partner.partnerNumber ? { detail: partner.partnerNumber } : {}),
    value: partner,
  }));
}

function useProductSearch() {
  const format = useFormats();
  return async (q: string) => {
    const { data, error } = await api.GET('/v1/products', {
      params: { query: { limit: 10, ...(q.trim() ? { q: q.trim() } : {}) } },
    });
    if (error) throw new ProblemError(error);
    return asJson(data).data.map((product) => ({
      id: product.id,
      label: product.name,
      detail: format.money(product.unitPrice, product.currency),
      value: product,
    }));
  };
}

type ProductOption = Awaited<ReturnType<ReturnType<typeof useProductSearch>>>[number];

function LineEditor({
  form,
  index,
  onRemove,
}: {
  form: UseFormReturn<EditorValues>;
  index: number;
  onRemove: () => void;
}) {
  const { t, i18n } = useTranslation();
  const rates = useTaxRates();
  const searchProducts = useProductSearch();
  const {
    register,
    setValue,
    control,
    formState: { errors },
  } = form;
  const lineErrors = errors.lines?.[index];
  const [productId, description, unitCode] = useWatch({
    control,
    name: [`lines.${index}.productId`, `lines.${index}.description`, `lines.${index}.unitCode`],
  });
  const position = index + 1;
  const id = (name: string) => `invoice-lines-${index}-${name}`;
  const productInputId = id('productId');

  // A product carries its unit, price and tax rate into the line (the API would default them
  // too; here the user sees and may change them before saving).
  const pick = (option: ComboboxOption<ProductOption['value']>) => {
    const product = option.value;
    const dirty = { shouldDirty: true };
    setValue(`lines.${index}.productId`, product.id, dirty);
    setValue(`lines.${index}.description`, product.name, dirty);
    setValue(`lines.${index}.unitPrice`, formatDecimal(product.unitPrice, i18n.language), dirty);
    setValue(`lines.${index}.unitCode`, product.unitCode ?? 'C62', dirty);
    if (product.taxRateId) setValue(`lines.${index}.taxRateId`, product.taxRateId, dirty);
  };

  return (
    <fieldset className="invoice-line" id={`invoice-line-${index}`}>
      <legend>{t('invoices.editor.line', { position })}</legend>
      <SearchCombobox
        label={t('invoices.editor.product')}
        inputId={productInputId}
        selectedText={productId ? description : ''}
        queryKey={keys.products.list({ picker: true })}
        search={searchProducts}
        onSelect={pick}
        hint={t('invoices.editor.productHint')}
      />
      <EditorField
        label={t('invoices.editor.description')}
        id={id('description')}
        registration={register(`lines.${index}.description`)}
        error={lineErrors?.description}
      />
      <div className="invoice-line-numbers">
        <EditorField
          label={t('invoices.editor.quantity')}
          id={id('quantity')}
          inputMode="decimal"
          registration={register(`lines.${index}.quantity`)}
          error={lineErrors?.quantity}
        />
        <div className="field">
          <label htmlFor={id('unitCode')}>{t('invoices.editor.unit')}</label>
          <select id={id('unitCode')} {...register(`lines.${index}.unitCode`)}>
            {[...new Set([...unitCodes, unitCode])].map((code) => (
              <option key={code} value={code}>
                {unitCodes.includes(code as (typeof unitCodes)[number])
                  ? t(`invoices.units.${code as (typeof unitCodes)[number]}`)
                  : code}
              </option>
            ))}
          </select>
        </div>
        <EditorField
          label={t('invoices.editor.unitPrice')}
          id={id('unitPrice')}
          inputMode="decimal"
          registration={register(`lines.${index}.unitPrice`)}
          error={lineErrors?.unitPrice}
        />
        <div className="field">
          <label htmlFor={id('taxRateId')}>{t('invoices.editor.taxRate')}</label>
          <select
            id={id('taxRateId')}
            {...register(`lines.${index}.taxRateId`)}
            aria-invalid={lineErrors?.taxRateId ? true : undefined}
          >
            <option value="">{t('invoices.editor.defaultRate')}</option>
            {rates.data?.map((rate) => (
              <option key={rate.id} value={rate.id}>
                {rate.name}
              </option>
            ))}
          </select>
          {lineErrors?.taxRateId?.message ? (
            <p className="field-error">{lineErrors.taxRateId.message}</p>
          ) : null}
        </div>
      </div>
      <button type="button" className="button button-small" onClick={onRemove}>
        {t('invoices.editor.removeLine', { position })}
      </button>
    </fieldset>
  );
}

function Totals({ invoice, dirty }: { invoice: Invoice | undefined; dirty: boolean }) {
  const { t } = useTranslation();
  const format = useFormats();
  return (
    <section className="invoice-totals" aria-labelledby="totals-title" aria-live="polite">
      <h2 id="totals-title">{t('invoices.totals.title')}</h2>
      {invoice === undefined ? (
        <p className="muted">{t('invoices.totals.notSaved')}</p>
      ) : (
        <>
          <table className="data-table">
            <caption className="visually-hidden">{t('invoices.totals.perRate')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('invoices.totals.rate')}</th>
                <th scope="col" className="numeric">
                  {t('invoices.totals.net')}
                </th>
                <th scope="col" className="numeric">
                  {t('invoices.totals.tax')}
                </th>
              </tr>
            </thead>
            <tbody>
              {invoice.taxes.map((tax) => (
                <tr key={tax.taxRateId}>
                  <th scope="row">
                    {t('invoices.totals.rateLabel', {
                      rate: format.percent(tax.rate),
                      category: tax.category,
                    })}
                  </th>
                  <td className="numeric">{format.money(tax.net, invoice.currency)}</td>
                  <td className="numeric">{format.money(tax.tax, invoice.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <dl className="totals-list">
            <dt>{t('invoices.totals.netTotal')}</dt>
            <dd>{format.money(invoice.netTotal, invoice.currency)}</dd>
            <dt>{t('invoices.totals.taxTotal')}</dt>
            <dd>{format.money(invoice.taxTotal, invoice.currency)}</dd>
            <dt>{t('invoices.totals.grossTotal')}</dt>
            <dd className="gross">{format.money(invoice.grossTotal, invoice.currency)}</dd>
          </dl>
          {dirty ? <p className="muted">{t('invoices.totals.unsaved')}</p> : null}
        </>
      )}
    </section>
  );
}

/** The editor's texts that name the kind of document (an invoice, a quote, an order confirmation). */
function useEditorTexts(documentType: SalesType) {
  const { t } = useTranslation();
  if (documentType === 'INVOICE')
    return {
      newTitle: t('invoices.editor.newTitle'),
      defaultName: t('invoices.defaultName'),
      back: t('invoices.editor.back'),
      date: t('invoices.editor.date'),
      note: t('invoices.editor.note'),
      finalized: t('invoices.editor.finalized'),
      conflict: t('invoices.editor.conflict'),
      finalElsewhere: t('invoices.editor.finalElsewhere'),
      missing: t('invoices.finalize.missing'),
      finalizeHint: t('invoices.finalize.hint'),
      finalizeSubmit: t('invoices.finalize.submit'),
    };
  const quote = documentType === 'QUOTE';
  return {
    newTitle: quote ? t('quotes.editor.newQuote') : t('quotes.editor.newOrderConfirmation'),
    defaultName: quote ? t('quotes.quoteName') : t('quotes.orderConfirmationName'),
    back: t('quotes.editor.back'),
    date: t('quotes.editor.date'),
    note: t('quotes.editor.note'),
    finalized: t('quotes.editor.finalized'),
    conflict: t('quotes.editor.conflict'),
    finalElsewhere: t('quotes.editor.finalElsewhere'),
    missing: t('quotes.finalize.missing'),
    finalizeHint: t('quotes.finalize.hint'),
    finalizeSubmit: quote
      ? t('quotes.finalize.submitQuote')
      : t('quotes.finalize.submitOrderConfirmation'),
  };
}

function defaultValues(documentType: SalesType): EditorValues {
  return {
    partnerId: '',
    partnerName: '',
    creationDate: today(),
    dueDate: '',
    validUntil: '',
    periodKind: 'date',
    // An invoice is mostly written after the work; a quote or confirmation before it.
    deliveryDate: documentType === 'INVOICE' ? today() : '',
    periodFrom: '',
    periodTo: '',
    buyerReference: '',
    paymentTerms: '',
    note: '',
    lines: [emptyLine()],
  };
}

function InvoiceEditor({
  invoice,
  documentType,
}: {
  invoice: Invoice | undefined;
  documentType: SalesType;
}) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const title = useInvoiceTitle();
  const texts = useEditorTexts(documentType);
  const isInvoice = documentType === 'INVOICE';
  const form = useForm<EditorValues>({
    defaultValues: invoice ? valuesOf(invoice, i18n.language) : defaultValues(documentType),
  });
  const { register, handleSubmit, setError, setValue, getValues, reset, control, formState } = form;
  const lines = useFieldArray({ control, name: 'lines' });
  const [formError, setFormError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const [incomplete, setIncomplete] = useState<FinalizeProblem[] | null>(null);
  const [busy, setBusy] = useState(false);
  const saveButton = useRef<HTMLButtonElement>(null);
  // The version the next PUT sends: the one this editor last read or wrote.
  const version = useRef(invoice?.version ?? 0);
  const periodKind = useWatch({ control, name: 'periodKind' });
  const partnerId = useWatch({ control, name: 'partnerId' });
  const partnerName = useWatch({ control, name: 'partnerName' });

  useEffect(() => {
    if (!focusAfterCreate) return;
    focusAfterCreate = false;
    saveButton.current?.focus();
  }, []);

  const check = useQuery({
    queryKey: keys.invoices.finalizeCheck(invoice?.id ?? ''),
    staleTime: 0,
    enabled: invoice !== undefined,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/documents/{documentId}/finalize-check', {
        params: { path: { documentId: invoice?.id ?? '' } },
      });
      if (error) throw new ProblemError(error);
      return data;
    },
  });

  /** Field errors where the form has the field, the rest (and the detail) above the form. */
  const showProblem = (problem: Problem) => {
    const rest: string[] = [];
    let first = true;
    for (const entry of problem.errors ?? []) {
      const field = editorFieldOf(entry.path);
      if (field === undefined) {
        rest.push(entry.message);
        continue;
      }
      setError(
        field as FieldPath<EditorValues>,
        { type: entry.code, message: entry.message },
        { shouldFocus: first },
      );
      first = false;
    }
    setFormError([problem.detail ?? problem.title, ...rest].join(' '));
  };

  const written = (saved: Invoice) => {
    version.current = saved.version;
    queryClient.setQueryData(keys.invoices.detail(saved.id), saved);
    void queryClient.invalidateQueries({ queryKey: keys.invoices.lists() });
    void queryClient.invalidateQueries({ queryKey: keys.invoices.finalizeCheck(saved.id) });
  };

  /** Saves the draft (and with `finalize`, makes it FINAL in the same write). */
  const save = async (values: EditorValues, finalize = false) => {
    setFormError(null);
    setNote(null);
    setConflict(false);
    const wrong = numberProblems(values);
    if (wrong.length > 0) {
      wrong.forEach((field, i) =>
        setError(
          field,
          { type: 'number', message: t('invoices.editor.notANumber') },
          { shouldFocus: i === 0 },
        ),
      );
      return;
    }
    setBusy(true);
    try {
      if (invoice === undefined) {
        const { data, error } = await api.POST('/v1/documents', {
          body: createBody(values, texts.defaultName, documentType),
        });
        if (error) return showProblem(error);
        written(data);
        focusAfterCreate = true;
        await navigate({
          to: isInvoice ? '/invoices/$documentId' : '/quotes/$documentId',
          params: { documentId: data.id },
          replace: true,
        });
        return;
      }
      const body = {
        ...updateBody(values, version.current, documentType),
        ...(finalize ? { status: 'FINAL' as const } : {}),
      };
      const { data, error } = await api.PUT('/v1/documents/{documentId}', {
        params: { path: { documentId: invoice.id } },
        body,
      });
      if (error) {
        if (error.code === 'version_conflict' || error.status === 412) setConflict(true);
        else if (error.code === 'invoice_incomplete') setIncomplete(error.errors ?? []);
        else showProblem(error);
        return;
      }
      setIncomplete(null);
      if (data.status === 'FINAL') finalFocus.pending = true;
      written(data);
      // What the API answered is the editor's new starting point (its lines, normalised).
      reset(valuesOf(data, i18n.language));
      setNote(finalize ? texts.finalized : t('invoices.editor.saved'));
    } catch {
      setFormError(t('common.unexpected'));
    } finally {
      setBusy(false);
    }
  };

  /** 409: the stored version moved on. Take it, keep what the user typed, and save again. */
  const reloadAndKeep = async () => {
    if (invoice === undefined) return;
    const fresh = await queryClient.fetchQuery({
      queryKey: keys.invoices.detail(invoice.id),
      staleTime: 0,
      queryFn: async () => {
        const { data, error } = await api.GET('/v1/documents/{documentId}', {
          params: { path: { documentId: invoice.id } },
        });
        if (error) throw new ProblemError(error);
        return data;
      },
    });
    if (fresh.status === 'FINAL') {
      setFormError(texts.finalElsewhere);
      return;
    }
    // The stored record, with what this user changed on top: their edits win, everything
    // they did not touch takes the newer stored value.
    const mine = getValues();
    const edited = Object.keys(formState.dirtyFields) as (keyof EditorValues)[];
    const merged: EditorValues = {
      ...valuesOf(fresh, i18n.language),
      ...Object.fromEntries(edited.map((key) => [key, mine[key]])),
    };
    version.current = fresh.version;
    reset(merged, { keepDefaultValues: true });
    await save(merged);
  };

  const heading = invoice ? title(invoice) : texts.newTitle;
  const problems: FinalizeProblem[] | undefined = incomplete ?? check.data?.problems;

  return (
    <section className="screen invoice-editor" aria-labelledby="screen-title">
      <div className="screen-header">
        <h1 id="screen-title">{heading}</h1>
        <Link to={isInvoice ? '/invoices' : '/quotes'} className="button">
          {texts.back}
        </Link>
      </div>
      <div className="invoice-editor-grid">
        <form
          className="form invoice-form"
          noValidate
          aria-label={heading}
          onSubmit={(event) => void handleSubmit((values) => save(values))(event)}
        >
          <FormAlert message={formError} />
          {conflict ? (
            <div className="form-alert" role="alert">
              <p>{texts.conflict}</p>
              <button type="button" className="button" onClick={() => void reloadAndKeep()}>
                {t('invoices.editor.reloadKeep')}
              </button>
            </div>
          ) : null}
          <SearchCombobox
            label={t('invoices.editor.customer')}
            inputId={PARTNER_INPUT}
            selectedText={partnerName}
            queryKey={keys.partners.list({ picker: true })}
            search={searchPartners}
            error={formState.errors.partnerId?.message}
            onSelect={(option) => {
              setValue('partnerId', option.id, { shouldDirty: true });
              setValue('partnerName', option.label, { shouldDirty: true });
            }}
          />
          <div className="form-row">
            <EditorField
              label={texts.date}
              id="invoice-creationDate"
              type="date"
              registration={register('creationDate', { required: t('common.required') })}
              error={formState.errors.creationDate}
            />
            {isInvoice ? (
              <EditorField
                label={t('invoices.editor.dueDate')}
                id="invoice-dueDate"
                type="date"
                hint={t('invoices.editor.dueDateHint')}
                registration={register('dueDate')}
                error={formState.errors.dueDate}
              />
            ) : null}
            {documentType === 'QUOTE' ? (
              <EditorField
                label={t('quotes.editor.validUntil')}
                id="invoice-validUntil"
                type="date"
                hint={t('quotes.editor.validUntilHint')}
                registration={register('validUntil')}
                error={formState.errors.validUntil}
              />
            ) : null}
          </div>
          <fieldset className="form-group">
            <legend>{t('invoices.editor.supply')}</legend>
            <div className="radio-row">
              <label>
                <input type="radio" value={DATE_KIND} {...register('periodKind')} />
                {t('invoices.editor.deliveryDateOption')}
              </label>
              <label>
                <input type="radio" value={PERIOD_KIND} {...register('periodKind')} />
                {t('invoices.editor.servicePeriodOption')}
              </label>
            </div>
            {periodKind === 'date' ? (
              <EditorField
                label={t('invoices.editor.deliveryDate')}
                id="invoice-deliveryDate"
                type="date"
                registration={register('deliveryDate')}
                error={formState.errors.deliveryDate}
              />
            ) : (
              <div className="form-row">
                <EditorField
                  label={t('invoices.editor.periodFrom')}
                  id="invoice-periodFrom"
                  type="date"
                  registration={register('periodFrom')}
                  error={formState.errors.periodFrom}
                />
                <EditorField
                  label={t('invoices.editor.periodTo')}
                  id="invoice-periodTo"
                  type="date"
                  registration={register('periodTo')}
                  error={formState.errors.periodTo}
                />
              </div>
            )}
          </fieldset>
          <h2>{t('invoices.editor.lines')}</h2>
          {lines.fields.map((line, index) => (
            <LineEditor
              key={line.id}
              form={form}
              index={index}
              onRemove={() => lines.remove(index)}
            />
          ))}
          <button
            type="button"
            id="invoice-lines"
            className="button"
            onClick={() => lines.append(emptyLine())}
          >
            {t('invoices.editor.addLine')}
          </button>
          <EditorField
            label={t('invoices.editor.paymentTerms')}
            id="invoice-paymentTerms"
            {...(isInvoice ? { hint: t('invoices.editor.paymentTermsHint') } : {})}
            registration={register('paymentTerms')}
            error={formState.errors.paymentTerms}
          />
          <EditorField
            label={t('invoices.editor.buyerReference')}
            id="invoice-buyerReference"
            registration={register('buyerReference')}
            error={formState.errors.buyerReference}
          />
          <EditorField
            label={texts.note}
            id="invoice-note"
            registration={register('note')}
            error={formState.errors.note}
          />
          <FormNote message={note} />
          <div className="form-actions">
            <button
              ref={saveButton}
              type="submit"
              className="button button-primary"
              disabled={busy}
            >
              {busy ? t('invoices.editor.saving') : t('invoices.editor.save')}
            </button>
          </div>
        </form>
        <aside className="invoice-side">
          <Totals invoice={invoice} dirty={formState.isDirty} />
          {invoice !== undefined ? <DocumentChain document={invoice} /> : null}
          {invoice !== undefined ? (
            <section className="invoice-finalize" aria-labelledby="finalize-title">
              <h2 id="finalize-title">{t('invoices.finalize.title')}</h2>
              {problems !== undefined && problems.length > 0 ? (
                <div role={incomplete ? 'alert' : undefined}>
                  <p>{texts.missing}</p>
                  <FinalizeProblems problems={problems} partnerId={partnerId || null} />
                </div>
              ) : check.data?.finalizable ? (
                <p>{t('invoices.finalize.ready')}</p>
              ) : null}
              <p className="muted">{texts.finalizeHint}</p>
              <button
                type="button"
                className="button button-primary"
                disabled={busy}
                onClick={() => void handleSubmit((values) => save(values, true))()}
              >
                {texts.finalizeSubmit}
              </button>
            </section>
          ) : null}
        </aside>
      </div>
    </section>
  );
}

/** A draft invoice, quote or order confirmation, edited by its type. */
export function DraftEditor({ invoice }: { invoice: Invoice }) {
  const documentType: SalesType =
    invoice.documentType === 'QUOTE' || invoice.documentType === 'ORDER_CONFIRMATION'
      ? invoice.documentType
      : 'INVOICE';
  return <InvoiceEditor key={invoice.id} invoice={invoice} documentType={documentType} />;
}

export function NewInvoicePage() {
  return <InvoiceEditor invoice={undefined} documentType="INVOICE" />;
}

/** A new quote or order confirmation: the same editor with the document type as a parameter. */
export function NewSalesDocument({ documentType }: { documentType: SalesType }) {
  return <InvoiceEditor key={documentType} invoice={undefined} documentType={documentType} />;
}
