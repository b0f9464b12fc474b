/**
 * i18next. German, the default, is bundled (the signed-out pages' texts; the signed-in screens'
 * load with the first of them); English is its own chunk, loaded when chosen (it
 * would add ~1.3 KB gzip to every first load otherwise, the sign-in budget is tight). The
 * choice is kept in localStorage — it is a preference, not a secret.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import signedOut from 'virtual:kontor/de-signed-out';

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

async function loadLanguage(language: Language): Promise<void> {
  if (i18next.hasResourceBundle(language, 'translation')) return;
  const { default: texts } = await import('./locales/en.json');
  i18next.addResourceBundle(language, 'translation', texts);
}

export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(storageKey, language);
  } catch {
    // Not remembered, still switched.
  }
  await loadLanguage(language);
  await i18next.changeLanguage(language);
}

let signedInTexts: Promise<void> | null = null;

/**
 * All German texts (the entry has only the sign-in page's and what every page shows; see
 * vite.config.ts): loaded once, before the first other page renders — a signed-in screen, or
 * the setup, password and invitation pages.
 */
export function loadSignedInTexts(): Promise<void> {
  signedInTexts ??= import('./locales/de.json')
    .then(({ default: de }) => {
      i18next.addResourceBundle('de', 'translation', de, true, true);
    })
    .catch((error: unknown) => {
      signedInTexts = null;
      throw error;
    });
  return signedInTexts;
}

export function currentLanguage(): Language {
  return isLanguage(i18next.language) ? i18next.language : 'de';
}

/** Starts i18next in the remembered language; main.tsx renders once this settled. */
export async function initI18n(): Promise<void> {
  const language = storedLanguage();
  i18next.on('languageChanged', (lng) => {
    document.documentElement.lang = lng;
  });
  await i18next.use(initReactI18next).init({
    resources: { de: { translation: signedOut } },
    lng: 'de',
    fallbackLng: 'de',
    supportedLngs: languages,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = 'de';
  if (language !== 'de') await loadLanguage(language).then(() => i18next.changeLanguage(language));
}
