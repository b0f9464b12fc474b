import { useRouter } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { api, refreshSession } from '../api/client';
import { retryAll, useNetworkState } from '../api/network';
import { getSession } from '../api/session';

/**
 * Shown while the server cannot be reached (fetch failed) or answers 502/503/504. Retry asks
 * again for what the screen shows and for `/health` (any answer clears the banner: the client
 * middleware sets the state from every response). When the server was away at start, the
 * session could not be restored then: Retry restores it and lets the routes decide again.
 */
export function NetworkBanner() {
  const { t } = useTranslation();
  const state = useNetworkState();
  const router = useRouter();
  if (state === 'ok') return null;

  const retry = async () => {
    await retryAll();
    await api.GET('/health').catch(() => undefined);
    if (getSession() === null && (await refreshSession().catch(() => null)) !== null) {
      await router.invalidate();
    }
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
