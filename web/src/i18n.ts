/**
 * i18next. German, the default, is bundled; English is its own chunk, loaded when chosen (it
 * would add ~1.3 KB gzip to every first load otherwise, the sign-in budget is tight). The
 * choice is kept in localStorage — it is a preference, not a secret.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
// Only the texts of the public pages travel in the entry chunk (named JSON imports are
// tree-shaken); the signed-in screens' texts load with the shell (`loadAppTexts`), so every
// area's keys do not count against the sign-in page's JS budget.
import {
  acceptInvitation,
  app,
  common,
  errors,
  forgotPassword,
  language as languageTexts,
  notFound,
  resetPassword,
  setup,
  signIn,
} from './locales/de.json';

const publicTexts = {
  acceptInvitation,
  app,
  common,
  errors,
  forgotPassword,
  language: languageTexts,
  notFound,
  resetPassword,
  setup,
  signIn,
};

/** All German texts, before the signed-in shell renders (English loads whole when chosen). */
export async function loadAppTexts(): Promise<void> {
  // `?raw`: a module of its own (the JSON module itself is in the entry, for the parts above).
  const { default: raw } = await import('./locales/de.json?raw');
  i18next.addResourceBundle('de', 'translation', JSON.parse(raw) as unknown, true, false);
}

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
    resources: { de: { translation: publicTexts } },
    lng: 'de',
    fallbackLng: 'de',
    supportedLngs: languages,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  document.documentElement.lang = 'de';
  if (language !== 'de') await loadLanguage(language).then(() => i18next.changeLanguage(language));
}
