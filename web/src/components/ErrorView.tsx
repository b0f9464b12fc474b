import { useTranslation } from 'react-i18next';

/** What a crashed view shows instead of itself (router error component and app boundary). */
export function ErrorView() {
  const { t } = useTranslation();
  return (
    <main className="page-center">
      <section className="card" aria-labelledby="error-title">
        <h1 id="error-title">{t('errors.boundaryTitle')}</h1>
        <p>{t('errors.boundaryText')}</p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          {t('errors.reload')}
        </button>
      </section>
    </main>
  );
}
