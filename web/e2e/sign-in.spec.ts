/**
 * The owner's first steps against a real Kontor: the setup link printed at the first start
 * creates the account and signs in; sign-out and sign-in; the session survives a reload and
 * reaches a second tab (the HttpOnly refresh cookie); the language switch; the password
 * pages; and the used setup link refuses a second use. Accessibility is checked on each kind
 * of screen.
 */
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();
const owner = {
  company: 'Muster Werkstatt GmbH',
  name: 'Olga Owner',
  email: 'owner@example.com',
  password: 'correct horse battery staple 42',
};
const newPassword = 'another horse battery staple 43';

async function signOut(page: Page) {
  await page.getByRole('button', { name: /Benutzermenü/ }).click();
  await page.getByRole('menuitem', { name: 'Abmelden' }).click();
  await expect(page.getByRole('heading', { name: 'Anmelden' })).toBeVisible();
}

async function signIn(page: Page, password: string) {
  await page.getByLabel('E-Mail-Adresse').fill(owner.email);
  await page.getByLabel('Passwort').fill(password);
  await page.getByRole('button', { name: 'Anmelden' }).click();
}

test('set up, sign out, sign in, stay signed in, switch language, recover a password', async ({
  page,
  context,
}) => {
  // The app must work under the server's CSP: anything it refuses shows up here.
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refused.push(message.text());
  });
  const link = await kontor().setupLink();
  expect(link.startsWith(`${kontor().url}/setup#token=`)).toBe(true);

  // The one-time setup: the owner's company and access, then signed in on the cockpit.
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Kontor einrichten' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByLabel('Name des Unternehmens').fill(owner.company);
  await page.getByLabel('Ihr Name').fill(owner.name);
  await page.getByLabel('E-Mail-Adresse').fill(owner.email);
  await page.getByLabel('Passwort').fill(owner.password);
  await page.getByRole('button', { name: 'Einrichten und anmelden' }).click();
  await expect(page.getByRole('heading', { name: 'Cockpit' })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/');
  await expect(page.getByText(owner.company)).toBeVisible();
  await expectNoAxeViolations(page);

  // Sign out, then a wrong password is refused on the form, the right one lets in.
  await signOut(page);
  await expectNoAxeViolations(page);
  await screenshot(page, 'sign-in');
  await signIn(page, 'not the password at all');
  await expect(page.getByRole('alert')).toContainText(
    'E-Mail-Adresse oder Passwort stimmen nicht.',
  );
  await signIn(page, owner.password);
  await expect(page.getByRole('heading', { name: 'Cockpit' })).toBeVisible();

  // A reload keeps the session (refresh cookie → new in-memory access token) …
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Cockpit' })).toBeVisible();
  // … and so does a second tab, straight onto a deep link.
  const second = await context.newPage();
  await second.goto(`${kontor().url}/invoices`);
  await expect(second.getByRole('heading', { name: 'Rechnungen' })).toBeVisible();
  await second.close();

  // English and back; the choice is remembered across a reload.
  await page.getByLabel('Sprache').selectOption('en');
  await expect(
    page.getByRole('navigation').getByRole('link', { name: 'Invoices', exact: true }),
  ).toBeVisible();
  await page.reload();
  await expect(
    page.getByRole('navigation').getByRole('link', { name: 'Invoices', exact: true }),
  ).toBeVisible();
  await page.getByLabel('Language').selectOption('de');
  await expect(
    page.getByRole('navigation').getByRole('link', { name: 'Rechnungen', exact: true }),
  ).toBeVisible();

  // Signed out, a deep link leads to sign-in and back to where it pointed.
  await signOut(page);
  await page.goto(`${kontor().url}/partners`);
  await expect(page.getByRole('heading', { name: 'Anmelden' })).toBeVisible();
  await signIn(page, owner.password);
  await expect(page.getByRole('heading', { name: 'Kunden & Lieferanten' })).toBeVisible();
  await signOut(page);

  // The forgot-password page answers (the same for every address).
  await page.getByRole('link', { name: 'Passwort vergessen?' }).click();
  await expect(page.getByRole('heading', { name: 'Passwort vergessen' })).toBeVisible();
  await page.getByLabel('E-Mail-Adresse').fill(owner.email);
  await page.getByRole('button', { name: 'Code senden' }).click();
  await expect(page.getByRole('status')).toContainText('ein Code unterwegs');
  await expectNoAxeViolations(page);

  // … and the mailed code sets a new password, which signs in.
  const code = await kontor().mail(owner.email, /password reset code is (\d{6})/);
  await page.getByRole('link', { name: 'Ich habe einen Code' }).click();
  await expect(page.getByRole('heading', { name: 'Neues Passwort setzen' })).toBeVisible();
  await expect(page.getByLabel('E-Mail-Adresse')).toHaveValue(owner.email);
  await page.getByLabel('Code aus der E-Mail').fill('000000');
  await page.getByLabel('Neues Passwort', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Passwort setzen und anmelden' }).click();
  await expect(page.getByRole('alert')).toContainText('Der Code stimmt nicht');
  await expectNoAxeViolations(page);
  await page.getByLabel('Code aus der E-Mail').fill(code);
  await page.getByRole('button', { name: 'Passwort setzen und anmelden' }).click();
  await expect(page.getByRole('heading', { name: 'Cockpit' })).toBeVisible();
  await signOut(page);
  await expect(page.getByRole('link', { name: 'Einladung erhalten?' })).toBeVisible();

  // The setup link was used up.
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Link nicht mehr gültig' })).toBeVisible();
  expect(refused).toEqual([]);
});

test('a server that answers 503 shows a banner, and Retry clears it once it is back', async ({
  page,
}) => {
  // The refresh at start meets a 503 (as from a Kontor that is starting or overloaded).
  await page.route('**/v1/web/session/refresh', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/problem+json',
      body: JSON.stringify({
        type: 'about:blank',
        title: 'Service unavailable',
        status: 503,
        code: 'service_unavailable',
        requestId: 'req_e2e',
      }),
    }),
  );
  await page.goto(`${kontor().url}/sign-in`);
  const banner = page.getByRole('alert').filter({ hasText: 'nicht erreichbar' });
  await expect(banner).toBeVisible();
  await page.unroute('**/v1/web/session/refresh');
  await banner.getByRole('button', { name: 'Erneut versuchen' }).click();
  await expect(banner).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Anmelden' })).toBeVisible();
});

test('an unknown address shows the not-found page', async ({ page }) => {
  await page.goto(`${kontor().url}/sign-in`);
  await expect(page.getByRole('heading', { name: 'Anmelden' })).toBeVisible();
  await page.goto(`${kontor().url}/no-such-page`);
  await expect(page.getByRole('heading', { name: 'Seite nicht gefunden' })).toBeVisible();
});
