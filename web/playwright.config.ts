/**
 * Browser tests of the web app against a real Kontor (web/e2e/support/kontor.ts starts one per
 * spec file). Chromium is the one Kontor already ships for PDFs (@sparticuz/chromium), so the
 * tests need no browser download. One worker: the machine's two cores also run the server.
 */
import { defineConfig } from '@playwright/test';

const chromium = (await import('@sparticuz/chromium')).default;
// No WebGL needed: spares unpacking SwiftShader.
chromium.setGraphicsMode = false;

export default defineConfig({
  testDir: './e2e',
  outputDir: '../test-results/web',
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // In CI a failed test runs once more; the list reporter names one that passed only then
  // ("flaky") at the end of the run.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    locale: 'de-DE',
    screenshot: 'off',
    trace: 'off',
    video: 'off',
    launchOptions: { executablePath: await chromium.executablePath() },
  },
});
