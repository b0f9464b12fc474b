/**
 * How documents are numbered (`GET/PUT /v1/documents/numbering`): the account's formats for
 * invoices, for cancellations and corrections, for quotes and for order confirmations, and the next numbers as the API computes
 * them. The rules (tokens, counter width, length) are the API's: a refused format comes back
 * on its field in the API's words, and the preview is the API's answer after saving.
 */
import type { components, Problem } from '@kontor/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError, applyProblem } from '../../api/problems';
import { Field, FormAlert, FormNote } from '../../components/Form';
import { useKeepEditsOnConflict } from '../../hooks/useKeepEditsOnConflict';

type Numbering = components['schemas']['InvoiceNumbering'];

interface Values {
  invoiceFormat: string;
  creditNoteFormat: string;
  quoteFormat: string;
  orderConfirmationFormat: string;
}

const FIELDS = [
  'invoiceFormat',
  'creditNoteFormat',
  'quoteFormat',
  'orderConfirmationFormat',
] as const;

const valuesOf = (numbering: Numbering): Values => ({
  invoiceFormat: numbering.invoiceFormat,
  creditNoteFormat: numbering.creditNoteFormat,
  quoteFormat: numbering.quoteFormat,
  orderConfirmationFormat: numbering.orderConfirmationFormat,
});

async function readNumbering(): Promise<Numbering> {
  const { data, error } = await api.GET('/v1/documents/numbering');
  if (error) throw new ProblemError(error);
  return data;
}

/**
 * Read once and then changed only by this form or an explicit reload, so the version it saves
 * at is the one the user saw (another user's change answers 409, not overwritten).
 */
function useNumbering() {
  return useQuery({
    queryKey: keys.invoiceNumbering.all,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    queryFn: readNumbering,
  });
}

export function NumberingSection() {
  const { t } = useTranslation();
  const numbering = useNumbering();
  return (
    <section className="settings-section" id="numbering" aria-labelledby="numbering-title">
      <h2 id="numbering-title">{t('company.numbering')}</h2>
      <p className="muted">{t('company.numberingText')}</p>
      {numbering.isError ? (
        <div role="alert">
          <p>{t('common.unexpected')}</p>
          <button type="button" className="button" onClick={() => void numbering.refetch()}>
            {t('errors.retry')}
          </button>
        </div>
      ) : null}
      {numbering.data ? <NumberingForm numbering={numbering.data} /> : null}
    </section>
  );
}

function NumberingForm({ numbering }: { numbering: Numbering }) {
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
  } = useForm<Values>({ defaultValues: valuesOf(numbering) });

  const keepEdits = useKeepEditsOnConflict<Numbering>({
    load: () => api.GET('/v1/documents/numbering'),
    // 409/412: take the stored version and save the same values again (nothing typed is lost).
    keep: async (stored) => {
      queryClient.setQueryData(keys.invoiceNumbering.all, stored);
      await handleSubmit(save)();
    },
    onProblem: (problem) => showProblem(problem),
    onUnexpected: () => setFormError(t('common.unexpected')),
  });

  function showProblem(problem: Problem) {
    setFormError(
      keepEdits.noteProblem(problem)
        ? t('company.conflict')
        : applyProblem(problem, setError, FIELDS),
    );
  }

  async function save(values: Values) {
    setFormError(null);
    setSaved(false);
    try {
      const latest = queryClient.getQueryData<Numbering>(keys.invoiceNumbering.all) ?? numbering;
      const { data, error } = await api.PUT('/v1/documents/numbering', {
        body: { ...values, version: latest.version },
      });
      if (error) {
        showProblem(error);
        return;
      }
      keepEdits.noteProblem(null);
      queryClient.setQueryData(keys.invoiceNumbering.all, data);
      // The checklist names the formats and the next number.
      await queryClient.invalidateQueries({ queryKey: keys.readiness.all });
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
      aria-labelledby="numbering-title"
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
      <div className="form-row">
        <Field
          label={t('company.invoiceFormatLabel')}
          hint={t('company.formatHint')}
          autoComplete="off"
          spellCheck={false}
          registration={register('invoiceFormat')}
          error={errors.invoiceFormat}
        />
        <Field
          label={t('company.creditNoteFormatLabel')}
          autoComplete="off"
          spellCheck={false}
          registration={register('creditNoteFormat')}
          error={errors.creditNoteFormat}
        />
      </div>
      <div className="form-row">
        <Field
          label={t('quotes.settings.quoteFormatLabel')}
          autoComplete="off"
          spellCheck={false}
          registration={register('quoteFormat')}
          error={errors.quoteFormat}
        />
        <Field
          label={t('quotes.settings.orderConfirmationFormatLabel')}
          autoComplete="off"
          spellCheck={false}
          registration={register('orderConfirmationFormat')}
          error={errors.orderConfirmationFormat}
        />
      </div>
      <dl className="facts" aria-live="polite">
        <dt>{t('company.nextInvoiceNumber')}</dt>
        <dd>
          <code>{numbering.nextInvoiceNumber}</code>
        </dd>
        <dt>{t('company.nextCreditNoteNumber')}</dt>
        <dd>
          <code>{numbering.nextCreditNoteNumber}</code>
        </dd>
        <dt>{t('quotes.settings.nextQuoteNumber')}</dt>
        <dd>
          <code>{numbering.nextQuoteNumber}</code>
        </dd>
        <dt>{t('quotes.settings.nextOrderConfirmationNumber')}</dt>
        <dd>
          <code>{numbering.nextOrderConfirmationNumber}</code>
        </dd>
      </dl>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={isSubmitting}>
          {isSubmitting ? t('company.saving') : t('company.numberingSave')}
        </button>
        <FormNote message={saved ? t('company.numberingSaved') : null} />
      </div>
    </form>
  );
}
