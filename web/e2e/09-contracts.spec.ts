/**
 * Flow 9, contracts and recurring invoices: a contract with a monthly billing plan is made in
 * the browser (a refused field shows on its field first), its detail shows the next invoice
 * date, the plan is paused and resumed, a dry run lists the one invoice due, and the real run
 * makes it — checked through the API. The schedule is switched off (REMINDER_INTERVAL_MS=0)
 * so only the page's run bills.
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { rowsOf } from './support/lists';
import { ownerApi, signInAsOwner } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile({ env: { REMINDER_INTERVAL_MS: '0' } });

/** The first day of the current month, as the API and date inputs want it. */
function firstOfMonth(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-01`;
}

test('create a contract with a monthly plan, pause and resume it, dry run, then bill', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  const customer = await api.POST('/v1/partners', {
    body: {
      name: 'Hafenbetrieb Nord GmbH',
      addresses: [
        {
          type: 'BILLING',
          street: 'Hafenstraße 5',
          postalCode: '20095',
          city: 'Hamburg',
          country: 'DE',
          email: 'ap@hafen.example.com',
        },
      ],
    },
  });
  expect(customer.error).toBeUndefined();
  const rates = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
  const s19 = rowsOf(rates.data).find((rate) => rate.category === 'S' && rate.rate === 19);
  const product = await api.POST('/v1/products', {
    body: {
      name: 'Wartungspauschale',
      unitPrice: 100,
      currency: 'EUR',
      ...(s19 ? { taxRateId: s19.id } : {}),
    },
  });
  expect(product.error).toBeUndefined();

  await signInAsOwner(page, kontor(), '/contracts');
  await expect(page.getByRole('heading', { name: 'Verträge' })).toBeVisible();
  await expect(page.getByText('Keine Verträge gefunden.')).toBeVisible();
  await expectNoAxeViolations(page);

  await page.getByRole('link', { name: 'Neuer Vertrag' }).click();
  await expect(page.getByRole('heading', { name: 'Neuer Vertrag' })).toBeVisible();
  const start = firstOfMonth();
  await page.getByLabel('Name', { exact: true }).fill('Wartung Hafenkran');
  await page.getByLabel('Kunde').selectOption({ label: 'Hafenbetrieb Nord GmbH' });
  await page.getByLabel('Beginn').fill(start);
  await page.getByLabel('Vertragswert').fill('1200');
  await page.getByLabel('Nächstes Rechnungsdatum').fill(start);
  const line = page.getByRole('group', { name: 'Position 1' });
  await line.getByLabel('Produkt').selectOption({ label: 'Wartungspauschale' });
  // A quantity the API refuses comes back on its field; nothing typed is lost.
  await line.getByLabel('Menge').fill('-1');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Vertrag anlegen' }).click();
  await expect(line.getByLabel('Menge')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Wartung Hafenkran');
  await expectNoAxeViolations(page);
  await line.getByLabel('Menge').fill('1');
  await line.getByLabel('Einzelpreis').fill('100');
  await page.getByRole('button', { name: 'Vertrag anlegen' }).click();

  // The detail: the plan with its next invoice date.
  await expect(page.getByRole('heading', { name: 'Wartung Hafenkran' })).toBeVisible();
  const [year, month] = start.split('-');
  await expect(page.getByText(`01.${month}.${year}`).first()).toBeVisible();
  await expect(page.getByText('läuft')).toBeVisible();
  await expectNoAxeViolations(page);

  // Pause and resume, each stored by the API.
  await page.getByRole('button', { name: 'Plan pausieren' }).click();
  await expect(page.getByText('pausiert')).toBeVisible();
  const contractId = new URL(page.url()).pathname.split('/').pop() ?? '';
  const paused = await api.GET('/v1/contracts/{contractId}', { params: { path: { contractId } } });
  expect(paused.data?.billing?.paused).toBe(true);
  await page.getByRole('button', { name: 'Plan fortsetzen' }).click();
  await expect(page.getByText('läuft')).toBeVisible();

  // The dry run shows the one invoice due and makes nothing.
  await page.getByRole('button', { name: 'Probelauf' }).click();
  const proposed = page.getByRole('table', { name: 'Das würde abgerechnet' });
  await expect(proposed.getByRole('row')).toHaveCount(2);
  await expect(proposed).toContainText('Vorschlag');
  await expectNoAxeViolations(page);
  const before = await api.GET('/v1/contracts/{contractId}/invoices', {
    params: { path: { contractId } },
  });
  expect(rowsOf(before.data)).toHaveLength(0);

  // The real run makes it.
  await page.getByRole('button', { name: '1 Rechnung jetzt erstellen' }).click();
  await expect(page.getByText('1 Rechnung erstellt.')).toBeVisible();
  const after = await api.GET('/v1/contracts/{contractId}/invoices', {
    params: { path: { contractId } },
  });
  const made = rowsOf(after.data);
  expect(made).toHaveLength(1);
  expect(made[0]?.invoiceDate).toBe(start);
  await expect(page.getByRole('table', { name: 'Rechnungen aus diesem Vertrag' })).toContainText(
    'DRAFT',
  );
  await expect(page.getByRole('cell', { name: 'Wartungspauschale' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'contracts');

  // An edit that meets someone else's change (409 version_conflict) keeps what was typed and
  // saves the edited fields on top of the stored contract.
  await page.getByRole('link', { name: 'Bearbeiten' }).click();
  await expect(page.getByRole('heading', { name: /bearbeiten/ })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('Wartung Hafenkran und Brücke');
  const current = await api.GET('/v1/contracts/{contractId}', { params: { path: { contractId } } });
  const elsewhere = await api.PUT('/v1/contracts/{contractId}', {
    params: { path: { contractId } },
    body: { version: current.data?.version ?? 0, description: 'Im Büro geändert' },
  });
  expect(elsewhere.error).toBeUndefined();
  await page.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByRole('alert')).toContainText('changed by someone else');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue(
    'Wartung Hafenkran und Brücke',
  );
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Neu laden und meine Änderungen behalten' }).click();
  await expect(page.getByRole('heading', { name: 'Wartung Hafenkran und Brücke' })).toBeVisible();
  const saved = await api.GET('/v1/contracts/{contractId}', { params: { path: { contractId } } });
  expect(saved.data?.name).toBe('Wartung Hafenkran und Brücke');
  // What someone else changed in another field stays.
  expect(saved.data?.description).toBe('Im Büro geändert');
  expect(saved.data?.billing?.nextInvoiceDate).toBe(current.data?.billing?.nextInvoiceDate);

  // The list shows the contract with its moved-on plan.
  await page.getByRole('link', { name: 'Zurück zu den Verträgen' }).click();
  await expect(page.getByRole('link', { name: 'Wartung Hafenkran und Brücke' })).toBeVisible();
  await expectNoAxeViolations(page);

  // Search and status filter live in the URL.
  await page.getByLabel('Suche').fill('Kantine');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await expect(page).toHaveURL(/q=Kantine/);
  await expect(page.getByText('Keine Verträge gefunden.')).toBeVisible();
  await page.goBack();
  await expect(page.getByLabel('Suche')).toHaveValue('');
  await page.getByLabel('Status').selectOption('ACTIVE');
  await expect(page).toHaveURL(/status=ACTIVE/);
  await expect(page.getByRole('link', { name: 'Wartung Hafenkran und Brücke' })).toBeVisible();
});
