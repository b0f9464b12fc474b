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

// The API process serves `dist/` at `/` under a CSP without 'unsafe-inline': the build must put
// no inline script or style into index.html (Vite's production output has none).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
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
    // Every browser the app supports preloads modules itself; the polyfill would cost bytes.
    modulePreload: { polyfill: false },
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
