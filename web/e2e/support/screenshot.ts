import path from 'node:path';
import type { Page } from '@playwright/test';

const screenshots = path.resolve(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');

/** Writes `docs/screenshots/<name>.png` at 1280×800 (the docs show the app as it is). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), animations: 'disabled' });
}
