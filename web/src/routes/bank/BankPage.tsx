/**
 * Bank statement import, step one: the account's active import (only one may be open, the
 * API enforces it) or the upload of a new statement. The upload shows its progress and the
 * import's processing while the page stays usable; the review is its own page.
 */
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { ProblemError, applyProblem } from '../../api/problems';
import { Field, FormAlert } from '../../components/Form';
import { formatDate, today } from '../../format';
import { importStatement, type ImportStage } from './upload';
import '../../styles/forms.css';
import '../../styles/bank.css';

/** The active import, or null: the API answers 404 when there is none. */
export function useActiveImport() {
  return useQuery({
    queryKey: keys.bank.active(),
    queryFn: async () => {
      const { data, error, response } = await api.GET('/v1/bank-statement-imports/active');
      if (response.status === 404) return null;
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}

function ActiveImport({ id }: { id: string }) {
  const { t } = useTranslation();
  const active = useActiveImport().data;
  if (!active) return null;
  return (
    <section className="panel" aria-labelledby="active-import-title">
      <h2 id="active-import-title">{t('bank.active.title')}</h2>
      <p>
        {t('bank.active.summary', {
          fileName: active.fileName,
          format: active.format,
          from: formatDate(active.periodFrom),
          to: formatDate(active.periodTo),
        })}
      </p>
      <p className="muted">
        {t('bank.counts', {
          total: active.transactionCount,
          undecided: active.undecidedCount,
          accepted: active.acceptedCount,
          rejected: active.rejectedCount,
        })}
      </p>
      <Link
        className="button button-primary"
        to="/bank/imports/$importId"
        params={{ importId: id }}
      >
        {t('bank.active.review')}
      </Link>
    </section>
  );
}

interface Values {
  file: FileList | null;
  periodFrom: string;
  periodTo: string;
  autoApprove: boolean;
}

/** What the file picker offers: MT940/STA, CAMT XML and CSV (a filter, no user text). */
const STATEMENT_TYPES = '.sta,.mt940,.txt,.940,.xml,.csv,text/plain,text/csv,application/xml';

function firstOfLastYear(): string {
  return `${new Date().getFullYear() - 1}-01-01`;
}

function UploadProgress({ stage, share }: { stage: ImportStage; share: number }) {
  const { t } = useTranslation();
  const percent = Math.round(share * 100);
  const text =
    stage === 'preparing'
      ? t('bank.upload.preparing')
      : stage === 'uploading'
        ? t('bank.upload.uploading', { percent })
        : t('bank.upload.processing');
  return (
    <div className="upload-progress">
      <progress
        aria-label={t('bank.upload.progressLabel')}
        max={100}
        // While the server reads the file there is no measure: an indeterminate bar.
        value={stage === 'processing' ? undefined : percent}
      />
      <p role="status">{text}</p>
    </div>
  );
}

function UploadForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ stage: ImportStage; share: number } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<Values>({
    defaultValues: {
      file: null,
      periodFrom: firstOfLastYear(),
      periodTo: today(),
      autoApprove: false,
    },
  });

  const onSubmit = async (values: Values) => {
    const file = values.file?.item(0);
    if (!file) {
      setError('file', { message: t('bank.upload.fileRequired') }, { shouldFocus: true });
      return;
    }
    setFormError(null);
    abort.current = new AbortController();
    try {
      const created = await importStatement(
        {
          file,
          periodFrom: values.periodFrom,
          periodTo: values.periodTo,
          autoApprove: values.autoApprove,
        },
        (stage, share) => setProgress({ stage, share }),
        abort.current.signal,
      );
      queryClient.setQueryData(keys.bank.detail(created.id), created);
      await queryClient.invalidateQueries({ queryKey: keys.bank.active() });
      await navigate({ to: '/bank/imports/$importId', params: { importId: created.id } });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') {
        setFormError(t('bank.upload.cancelled'));
      } else if (error instanceof ProblemError) {
        // An import opened meanwhile (another tab): show it.
        if (error.problem.code === 'state_conflict') {
          await queryClient.invalidateQueries({ queryKey: keys.bank.active() });
        }
        setFormError(
          applyProblem(error.problem, setError, ['periodFrom', 'periodTo', 'autoApprove']),
        );
      } else {
        setFormError(t('common.unexpected'));
      }
    } finally {
      setProgress(null);
      abort.current = null;
    }
  };

  return (
    <section className="panel" aria-labelledby="upload-title">
      <h2 id="upload-title">{t('bank.upload.title')}</h2>
      <p className="muted">{t('bank.upload.intro')}</p>
      <form className="form" noValidate onSubmit={(event) => void handleSubmit(onSubmit)(event)}>
        <FormAlert message={formError} />
        <Field
          label={t('bank.upload.file')}
          type="file"
          accept={STATEMENT_TYPES}
          hint={t('bank.upload.fileHint')}
          registration={register('file')}
          error={errors.file}
        />
        <div className="field-row">
          <Field
            label={t('bank.upload.periodFrom')}
            type="date"
            required
            registration={register('periodFrom', { required: t('common.required') })}
            error={errors.periodFrom}
          />
          <Field
            label={t('bank.upload.periodTo')}
            type="date"
            required
            registration={register('periodTo', { required: t('common.required') })}
            error={errors.periodTo}
          />
        </div>
        <div className="checkbox-field">
          <input id="auto-approve" type="checkbox" {...register('autoApprove')} />
          <label htmlFor="auto-approve">{t('bank.upload.autoApprove')}</label>
        </div>
        {progress ? <UploadProgress stage={progress.stage} share={progress.share} /> : null}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={isSubmitting}>
            {t('bank.upload.submit')}
          </button>
          {progress?.stage === 'uploading' ? (
            <button type="button" className="button" onClick={() => abort.current?.abort()}>
              {t('bank.upload.cancel')}
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}

export function BankPage() {
  const { t } = useTranslation();
  const active = useActiveImport();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <h1 id="screen-title">{t('bank.title')}</h1>
      <nav className="bank-nav" aria-label={t('sepa.bankNav')}>
        <Link to="/bank/sepa">{t('sepa.bankLink')}</Link>
      </nav>
      {active.isPending ? <p role="status">{t('app.loading')}</p> : null}
      {active.isError ? (
        <div role="alert" className="form-alert">
          {active.error.message}
        </div>
      ) : null}
      {active.data ? <ActiveImport id={active.data.id} /> : null}
      {active.data === null ? <UploadForm /> : null}
    </section>
  );
}
