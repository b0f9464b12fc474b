/**
 * The owner of a spec file's Kontor, made without the browser: the setup link's account
 * through `POST /v1/web/setup`, a typed client (the generated one, as the app uses it) that
 * seeds data through the API, and a sign-in of the page through the real sign-in form.
 * Flows other than the first start use it so each spec tests its own screens, not the setup.
 */
import { expect, type Page } from '@playwright/test';
import createClient from 'openapi-fetch';
import type { paths } from '@kontor/client';
import type { Kontor } from './kontor';

export const OWNER = {
  company: 'Muster Werkstatt GmbH',
  name: 'Olga Owner',
  email: 'owner@example.com',
  password: 'correct horse battery staple 42',
};

export type Api = ReturnType<typeof createClient<paths>>;

/** The owner's account (created once per Kontor) and an API client signed in as the owner. */
export async function ownerApi(kontor: Kontor): Promise<Api> {
  const link = await kontor.setupLink();
  const token = new URL(link).hash.replace(/^#token=/, '');
  const client = createClient<paths>({
    baseUrl: kontor.url,
    headers: { 'x-kontor-client': 'web' },
  });
  const check = await client.POST('/v1/web/setup/check', { body: { token } });
  if (check.response.ok) {
    const created = await client.POST('/v1/web/setup', {
      body: {
        token,
        email: OWNER.email,
        password: OWNER.password,
        name: OWNER.name,
        companyName: OWNER.company,
      },
    });
    if (created.error) throw new Error(`setup failed: ${JSON.stringify(created.error)}`);
  }
  const session = await client.POST('/v1/web/session', {
    body: { email: OWNER.email, password: OWNER.password },
  });
  if (session.error) throw new Error(`sign-in failed: ${JSON.stringify(session.error)}`);
  return createClient<paths>({
    baseUrl: kontor.url,
    headers: {
      'x-kontor-client': 'web',
      authorization: `Bearer ${session.data.accessToken}`,
    },
  });
}

/** Signs the page in as the owner through the sign-in form and waits for the cockpit. */
export async function signInAsOwner(page: Page, kontor: Kontor, path = '/'): Promise<void> {
  await page.goto(`${kontor.url}/sign-in?redirect=${encodeURIComponent(path)}`);
  await page.getByLabel('E-Mail-Adresse').fill(OWNER.email);
  await page.getByLabel('Passwort').fill(OWNER.password);
  await page.getByRole('button', { name: 'Anmelden' }).click();
  await expect(page.getByRole('navigation').first()).toBeVisible();
}
