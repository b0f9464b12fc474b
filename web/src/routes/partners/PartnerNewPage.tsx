import { Link } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { PartnerForm } from './PartnerForm';
import '../../styles/screens.css';
import '../../styles/forms.css';
import '../../styles/records.css';
import '../../styles/partners.css';

/** A new customer or vendor; saved, it opens on its own page. */
export function PartnerNewPage() {
  const { t } = useTranslation();
  return (
    <section className="screen" aria-labelledby="screen-title">
      <p>
        <Link to="/partners">{t('partners.backToList')}</Link>
      </p>
      <h1 id="screen-title">{t('partners.newTitle')}</h1>
      <PartnerForm />
    </section>
  );
}
