/**
 * i18next with both languages bundled (two small JSON files; loading them lazily would cost a
 * round trip before the first text). German is the default; the choice is kept in
 * localStorage — it is a preference, not a secret.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import de from './locales/de.json';
import en from './locales/en.json';

export const languages = ['de', 'en'] as const;
export type Language = (typeof languages)[number];

const storageKey = 'kontor.language';

function isLanguage(value: unknown): value is Language {
  return languages.includes(value as Language);
}

function storedLanguage(): Language {
  try {
    const value = localStorage.getItem(storageKey);
    return isLanguage(value) ? value : 'de';
  } catch {
    // Storage can be disabled (privacy settings); German then.
    return 'de';
  }
}

export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(storageKey, language);
  } catch {
    // Not remembered, still switched.
  }
  await i18next.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18next.language) ? i18next.language : 'de';
}

i18next.on('languageChanged', (language) => {
  document.documentElement.lang = language;
});

// The resources are bundled, so init finishes synchronously (no backend to wait for).
void i18next.use(initReactI18next).init({
  resources: { de: { translation: de }, en: { translation: en } },
  lng: storedLanguage(),
  fallbackLng: 'de',
  supportedLngs: languages,
  interpolation: { escapeValue: false },
  returnNull: false,
});
document.documentElement.lang = i18next.language;

export default i18next;
