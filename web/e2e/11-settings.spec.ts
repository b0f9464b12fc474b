/**
 * Flow 11, settings: invite a user (preview first; the invitation mail lands in the outbox),
 * change a role, meet the last-admin rule, remove the user; create an API token (its secret is
 * shown once and works against the API with the installation's client key), revoke it (it
 * stops working); a webhook endpoint to a receiver on 127.0.0.1 gets a real event, which is
 * replayed, and its secret rotated; plan and usage; the account's settings.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { rowsOf } from './support/lists';
import { OWNER, ownerApi, signInAsOwner } from './support/owner';
import { screenshot } from './support/screenshot';

// Loopback targets are private: allowed for this Kontor only.
const kontor = kontorPerFile({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });

interface Received {
  id: string;
  body: { type: string; data: { name?: string } };
}

/** A webhook receiver on 127.0.0.1 that answers 204 and keeps what it got. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({
        id: String(req.headers['webhook-id']),
        body: JSON.parse(body) as Received['body'],
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/kontor-hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function openTab(page: Page, name: string) {
  await page
    .getByRole('navigation', { name: 'Bereiche der Einstellungen' })
    .getByRole('link', { name })
    .click();
  await expect(page.getByRole('heading', { level: 2, name })).toBeVisible();
}

test('users and roles: invite with a preview, change a role, the last admin, remove', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  await signInAsOwner(page, kontor(), '/settings');
  await expect(page.getByRole('heading', { level: 2, name: 'Benutzer & Rollen' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Olga Owner/ })).toBeVisible();
  await expectNoAxeViolations(page);

  // The preview first; only then the invitation.
  await page.getByLabel('Name', { exact: true }).fill('Uwe User');
  await page.getByLabel('E-Mail-Adresse').fill('uwe@example.com');
  await expect(page.getByRole('button', { name: 'Einladung senden' })).toBeHidden();
  await page.getByRole('button', { name: 'Einladung prüfen' }).click();
  await expect(page.getByText('Die Einladung ist möglich.')).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Einladung senden' }).click();
  await expect(page.getByText('Einladung an uwe@example.com gesendet.')).toBeVisible();
  const code = await kontor().mail('uwe@example.com', /invitation code is (\d{6})/);
  expect(code).toMatch(/^\d{6}$/);
  const row = page.getByRole('row', { name: /Uwe User/ });
  await expect(row).toContainText('Eingeladen');

  // Change the role.
  await row.getByLabel('Rolle von Uwe User').selectOption('admin');
  await row.getByRole('button', { name: 'Rolle übernehmen für Uwe User' }).click();
  await expect
    .poll(async () => (await api.GET('/v1/users')).data)
    .toMatchObject({
      data: expect.arrayContaining([
        expect.objectContaining({ email: 'uwe@example.com', role: 'admin' }),
      ]),
    });

  // The owner is the only active admin: the API refuses, the page says why.
  const owner = page.getByRole('row', { name: /Olga Owner/ });
  await owner.getByLabel('Rolle von Olga Owner').selectOption('user');
  await owner.getByRole('button', { name: 'Rolle übernehmen für Olga Owner' }).click();
  await expect(owner.getByRole('alert')).toContainText('at least one active admin');
  await expectNoAxeViolations(page);

  // Remove the invited user.
  await row.getByRole('button', { name: 'Uwe User entfernen' }).click();
  const dialog = page.getByRole('dialog', { name: 'Uwe User entfernen?' });
  await expect(dialog).toBeVisible();
  await expectNoAxeViolations(page);
  await dialog.getByRole('button', { name: 'Endgültig entfernen' }).click();
  // The open dialog hides the page from the accessibility tree: wait for it to close first.
  await expect(dialog).toBeHidden();
  await expect(row).toBeHidden();
  const users = await api.GET('/v1/users');
  expect(rowsOf(users.data).map((u) => u.email)).toEqual([OWNER.email]);
});

test('API tokens: the secret shows once, works with the client key, and stops after revoke', async ({
  page,
}) => {
  await ownerApi(kontor());
  await signInAsOwner(page, kontor(), '/settings?tab=tokens');
  await expect(page.getByRole('heading', { level: 2, name: 'API-Tokens' })).toBeVisible();
  await expectNoAxeViolations(page);

  await page.getByLabel('Name', { exact: true }).fill('Buchhaltungs-Export');
  await page.getByRole('button', { name: 'Token erstellen' }).click();
  await expect(page.getByText('nur jetzt angezeigt')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Kopieren' })).toBeVisible();
  const secret = await page.getByLabel('Token', { exact: true }).inputValue();
  expect(secret).toMatch(/^kpat_/);
  await expectNoAxeViolations(page);

  const clientKey = fs.readFileSync(path.join(kontor().dataDir, 'api-key.txt'), 'utf8').trim();
  const asToken = () =>
    fetch(`${kontor().url}/v1/users`, {
      headers: { 'x-api-key': clientKey, authorization: `Bearer ${secret}` },
    });
  expect((await asToken()).status).toBe(200);

  // Once put away, the secret is gone from the page.
  await page.getByRole('button', { name: 'Ich habe es gespeichert' }).click();
  await expect(page.getByLabel('Token', { exact: true })).toBeHidden();
  await expect(page.getByRole('row', { name: /Buchhaltungs-Export/ })).toBeVisible();

  await page.getByRole('button', { name: 'Token Buchhaltungs-Export widerrufen' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Token widerrufen' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('row', { name: /Buchhaltungs-Export/ })).toBeHidden();
  await expect(page.getByText('Noch keine Tokens.')).toBeVisible();
  expect((await asToken()).status).toBe(401);
});

test('webhooks: a real event arrives at a local receiver, is replayed; the secret rotates', async ({
  page,
}) => {
  const receiver = await startReceiver();
  try {
    const api = await ownerApi(kontor());
    await signInAsOwner(page, kontor(), '/settings');
    await openTab(page, 'Webhooks');
    await expect(page.getByText('Noch keine Endpunkte.')).toBeVisible();
    await expectNoAxeViolations(page);

    await page.getByLabel('Ziel-URL').fill(receiver.url);
    await page.getByLabel('Beschreibung').fill('Warenwirtschaft');
    await page.getByRole('checkbox', { name: 'partner.created' }).check();
    await page.getByRole('button', { name: 'Endpunkt anlegen' }).click();
    const first = await page.getByLabel('Signaturgeheimnis', { exact: true }).inputValue();
    expect(first).toMatch(/^whsec_/);
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Ich habe es gespeichert' }).click();

    // A real event: a partner made through the API.
    await api.POST('/v1/partners', { body: { name: 'Webhook Kunde KG' } });
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(1);
    expect(receiver.received[0]?.body.type).toBe('partner.created');
    expect(receiver.received[0]?.body.data.name).toBe('Webhook Kunde KG');

    await page.getByRole('link', { name: `Zustellungen an ${receiver.url}` }).click();
    const deliveries = page.getByRole('table', { name: `Zustellungen an ${receiver.url}` });
    await expect(deliveries.getByRole('row', { name: /partner\.created/ })).toContainText(
      'Zugestellt',
    );
    await expectNoAxeViolations(page);

    // Replay: the same message (the same webhook-id) once more.
    await deliveries.getByRole('button', { name: /Erneut senden/ }).click();
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(2);
    expect(receiver.received[1]?.id).toBe(receiver.received[0]?.id);
    await expect(deliveries.getByRole('row', { name: /partner\.created/ })).toContainText('2');

    // Rotate: a new secret, shown once.
    await page.getByRole('button', { name: `Geheimnis erneuern für ${receiver.url}` }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: 'Neues Geheimnis erzeugen' })
      .click();
    const second = await page.getByLabel('Signaturgeheimnis', { exact: true }).inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
  } finally {
    await receiver.close();
  }
});

test('plan and usage as bars; the account settings are saved', async ({ page }) => {
  const api = await ownerApi(kontor());
  await signInAsOwner(page, kontor(), '/settings?tab=plan');
  await expect(page.getByRole('heading', { level: 2, name: 'Tarif & Nutzung' })).toBeVisible();
  await expect(page.getByRole('meter').first()).toBeVisible();
  await expect(page.getByText('Plätze').first()).toBeVisible();
  await expect(page.getByRole('table', { name: 'Tarife' })).toContainText('Ihr Tarif');
  await expectNoAxeViolations(page);
  await screenshot(page, 'settings');

  await openTab(page, 'Konto');
  await page.getByLabel('Datumsformat').selectOption('DD/MM/YYYY');
  await page.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByText('Einstellungen gespeichert.')).toBeVisible();
  const settings = await api.GET('/v1/account/addresses');
  expect(settings.data?.dateFormat).toBe('DD/MM/YYYY');
  await expectNoAxeViolations(page);
  await expect(page.getByRole('link', { name: 'Unternehmen' })).toHaveAttribute(
    'href',
    '/settings/company',
  );
});
