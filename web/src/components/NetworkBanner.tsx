import { useTranslation } from 'react-i18next';
import { api } from '../api/client';
import { retryAll, useNetworkState } from '../api/network';

/**
 * Shown while the server cannot be reached (fetch failed) or answers 503. Retry asks again
 * for what the screen shows and for `/health`: any answer clears the banner (the client
 * middleware sets the state from every response).
 */
export function NetworkBanner() {
  const { t } = useTranslation();
  const state = useNetworkState();
  if (state === 'ok') return null;

  const retry = async () => {
    await retryAll();
    await api.GET('/health').catch(() => undefined);
  };

  return (
    <div className="network-banner" role="alert">
      <span>{state === 'offline' ? t('errors.offline') : t('errors.unavailable')}</span>
      <button type="button" className="button button-small" onClick={() => void retry()}>
        {t('errors.retry')}
      </button>
    </div>
  );
}
