import { Link } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';

export function NotFound() {
  const { t } = useTranslation();
  return (
    <main className="page-center">
      <section className="card" aria-labelledby="not-found-title">
        <h1 id="not-found-title">{t('notFound.title')}</h1>
        <p>{t('notFound.text')}</p>
        <Link to="/" className="button">
          {t('notFound.home')}
        </Link>
      </section>
    </main>
  );
}
