import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage, languages, setLanguage, type Language } from '../i18n';

/** A native select: labelled, keyboard-usable, and the choice is remembered (i18n.ts). */
export function LanguageSwitch() {
  // useTranslation re-renders this on a language change, so the value below is current.
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="language-switch">
      <label htmlFor={id}>{t('language.label')}</label>
      <select
        id={id}
        value={currentLanguage()}
        onChange={(event) => void setLanguage(event.target.value as Language)}
      >
        {languages.map((language) => (
          <option key={language} value={language}>
            {language === 'de' ? t('language.de') : t('language.en')}
          </option>
        ))}
      </select>
    </div>
  );
}
