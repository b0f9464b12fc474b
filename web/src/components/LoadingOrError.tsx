import { useTranslation } from 'react-i18next';
import { ProblemError } from '../api/problems';

/**
 * What a screen shows while its data loads or when reading it failed: the problem's detail
 * (the API's words) and a Retry. Loading is announced politely, a failure as an alert.
 */
export function LoadingOrError({ error, onRetry }: { error: Error | null; onRetry: () => void }) {
  const { t } = useTranslation();
  if (error === null) {
    return (
      <p className="muted" role="status">
        {t('app.loading')}
      </p>
    );
  }
  const message = error instanceof ProblemError ? error.message : t('common.unexpected');
  return (
    <div className="form-alert" role="alert">
      <p>{message}</p>
      <button type="button" className="button button-small" onClick={onRetry}>
        {t('dataStatus.retry')}
      </button>
    </div>
  );
}
