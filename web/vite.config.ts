import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes `<asset>.br` and `<asset>.gz` beside each text asset: the API serves them by
 * Accept-Encoding (@fastify/static `preCompressed`) instead of compressing on every request.
 */
function precompress(): Plugin {
  return {
    name: 'kontor-precompress',
    apply: 'build',
    writeBundle(options) {
      const assets = path.join(options.dir ?? 'dist', 'assets');
      for (const name of fs.readdirSync(assets)) {
        if (!/\.(js|css|svg|json)$/.test(name)) continue;
        const file = path.join(assets, name);
        const bytes = fs.readFileSync(file);
        fs.writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        fs.writeFileSync(
          `${file}.br`,
          brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

/**
 * The German texts a signed-out visitor needs, as the module `virtual:kontor/de-signed-out`:
 * German is bundled into the entry chunk (the sign-in page's 120 kB budget), and every
 * signed-in screen's texts would grow it; those load with the first signed-in page instead
 * (`loadSignedInTexts` in src/i18n.ts). de.json stays the one source of the German texts.
 */
export const SIGNED_OUT_SECTIONS = ['app', 'common', 'language', 'signIn', 'notFound', 'errors'];

function signedOutTexts(): Plugin {
  const id = 'virtual:kontor/de-signed-out';
  const source = path.join(import.meta.dirname, 'src', 'locales', 'de.json');
  return {
    name: 'kontor-signed-out-texts',
    resolveId: (name) => (name === id ? `\0${id}` : null),
    load(name) {
      if (name !== `\0${id}`) return null;
      this.addWatchFile(source);
      const all = JSON.parse(fs.readFileSync(source, 'utf8')) as Record<string, unknown>;
      const texts = Object.fromEntries(SIGNED_OUT_SECTIONS.map((key) => [key, all[key]]));
      return `export default ${JSON.stringify(texts)};`;
    },
  };
}

// The API process serves `dist/` at `/` under a CSP without 'unsafe-inline': the build must put
// no inline script or style into index.html (Vite's production output has none).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), signedOutTexts(), precompress()],
  resolve: {
    alias: {
      // The shim re-implements useSyncExternalStore for React < 18; React 19 has it built in.
      'use-sync-external-store/shim/with-selector': 'use-sync-external-store/with-selector',
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Small assets stay files: a data: URL for a font or script would need a wider CSP.
    assetsInlineLimit: 0,
    sourcemap: false,
    // One stylesheet for the whole app (5 kB gzip), linked from index.html: no stylesheet
    // entries in the lazy pages' dependency lists, which live in the entry chunk.
    cssCodeSplit: false,
    // No preload helper and dependency lists in the entry chunk (0.6 kB gzip on the sign-in
    // page): a lazily loaded page fetches what it imports when it runs, and the router preloads
    // a page's chunk when the pointer rests on its link (`defaultPreload: 'intent'`).
    modulePreload: false,
    // dist/.vite/manifest.json: which chunks each route loads (scripts/budget.mjs).
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // What every page needs travels in one chunk; left alone the bundler cuts it into
          // several small ones (each costs bytes and a request on the sign-in page).
          groups: [
            {
              name: 'framework',
              test: /node_modules\/(react|react-dom|scheduler|@tanstack\/(react-router|router-core|history|store|react-store)|i18next|react-i18next|openapi-fetch|use-sync-external-store)\//,
            },
          ],
        },
      },
    },
  },
  // `vite preview` answers with the CSP the API process sends, so a preview shows what the
  // policy would block.
  preview: {
    headers: {
      'content-security-policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
        "connect-src 'self'; frame-src 'self' blob:; object-src 'none'; base-uri 'none'; " +
        "form-action 'self'; frame-ancestors 'none'",
    },
  },
  server: {
    // `npm run dev -w @kontor/web` beside a running Kontor on :3000.
    proxy: { '/v1': 'http://127.0.0.1:3000' },
  },
});
