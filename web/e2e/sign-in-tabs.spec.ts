/**
 * The session across tabs: each tab restores it from the single-use refresh cookie as it
 * loads, and tabs that load at the same moment must not present the same cookie twice (the
 * server would take that as a stolen token and end the session).
 */
import { expect, test } from '@playwright/test';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner } from './support/owner';

const kontor = kontorPerFile();

test('tabs opened at the same moment share the session instead of ending it', async ({
  context,
}) => {
  await ownerApi(kontor());
  // The app lets one tab refresh at a time (Web Locks); the others send the cookie it set.
  const first = await context.newPage();
  await signInAsOwner(first, kontor());
  const tabs = await Promise.all([context.newPage(), context.newPage(), context.newPage()]);
  await Promise.all(tabs.map((tab) => tab.goto(`${kontor().url}/invoices`)));
  for (const tab of tabs) {
    await expect(tab.getByRole('navigation').first()).toBeVisible();
    expect(new URL(tab.url()).pathname).toBe('/invoices');
  }
  // And the session is still alive afterwards.
  await first.reload();
  await expect(first.getByRole('navigation').first()).toBeVisible();
  expect(new URL(first.url()).pathname).toBe('/');
});
