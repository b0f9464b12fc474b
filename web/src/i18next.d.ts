// Typed translation keys: `t('signIn.title')` checks the key against the German file, which
// test/web-locales.test.ts keeps equal in keys to the English one.
import 'i18next';
import type de from './locales/de.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof de };
  }
}
