/**
 * Flow 5, products and tax rates: the owner creates a product with a price the API refuses
 * (more decimals than EUR has) and sees the refusal on the price field with everything typed
 * still there, fixes it and finds the product in the list (and through the search); edits it,
 * also after someone else changed it (reload and keep the edits); and creates a tax rate in the
 * settings, edits it past another change the same way, and the product form then offers it.
 * Every outcome is checked in the API too.
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();

test('create a product with a wrong price, fix it, edit it; create a tax rate', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  // A second product seeded through the API, so the list and its search have something to sift.
  const seeded = await api.POST('/v1/products', {
    body: { name: 'Anfahrtspauschale', unitPrice: 45, currency: 'EUR', unit: 'pauschal' },
  });
  expect(seeded.error).toBeUndefined();

  await signInAsOwner(page, kontor(), '/products');
  await expect(page.getByRole('heading', { name: 'Produkte', level: 1 })).toBeVisible();
  await expect(page.getByRole('row', { name: /Anfahrtspauschale/ })).toBeVisible();
  await expectNoAxeViolations(page);

  // New product: 85,505 € has more decimals than EUR allows — the API says so on the price.
  await page.getByRole('button', { name: 'Neues Produkt' }).click();
  const form = page.getByRole('form', { name: 'Neues Produkt' });
  await form.getByLabel('Name').fill('Beratung');
  await form.getByLabel('Preis netto in EUR').fill('85,505');
  await form.getByLabel('Einheit').fill('Std.');
  await expect(form.getByLabel('Steuersatz')).toHaveValue(/^txr_/);
  await form.getByRole('button', { name: 'Speichern' }).click();
  const price = form.getByLabel('Preis netto in EUR');
  await expect(price).toHaveAttribute('aria-invalid', 'true');
  await expect(price).toHaveAccessibleDescription(/decimals/);
  await expect(price).toBeFocused();
  // Nothing typed was lost.
  await expect(form.getByLabel('Name')).toHaveValue('Beratung');
  await expect(form.getByLabel('Einheit')).toHaveValue('Std.');
  await expectNoAxeViolations(page);

  await price.fill('85,50');
  await form.getByRole('button', { name: 'Speichern' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: '„Beratung“ gespeichert.' }),
  ).toBeVisible();
  const row = page.getByRole('row', { name: /Beratung/ });
  await expect(row).toContainText('85,50 €');
  await expect(row).toContainText('Std.');
  await expect(row).toContainText(/USt 19\s%/);

  const stored = await api.GET('/v1/products', { params: { query: { q: 'Beratung' } } });
  const product = typeof stored.data === 'string' ? undefined : stored.data?.data[0];
  expect(product).toMatchObject({
    name: 'Beratung',
    unitPrice: 85.5,
    unit: 'Std.',
    unitCode: 'HUR',
  });

  // The search narrows the list (and lives in the URL, so the link can be shared).
  await page.getByLabel('Produkte suchen').fill('Anfahrt');
  await expect(page).toHaveURL(/q=Anfahrt/);
  await expect(page.getByRole('row', { name: /Beratung/ })).toBeHidden();
  await expect(page.getByRole('row', { name: /Anfahrtspauschale/ })).toBeVisible();
  await page.getByLabel('Produkte suchen').fill('');
  await expect(page.getByRole('row', { name: /Beratung/ })).toBeVisible();

  // Edit: a new price and the 7 % rate.
  await page.getByRole('button', { name: 'Bearbeiten: Beratung' }).click();
  const edit = page.getByRole('form', { name: '„Beratung“ bearbeiten' });
  await expect(edit.getByLabel('Preis netto in EUR')).toHaveValue('85,5');
  await edit.getByLabel('Preis netto in EUR').fill('92');
  const seededRates = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
  const reduced = (typeof seededRates.data === 'string' ? [] : (seededRates.data?.data ?? [])).find(
    (rate) => rate.name === 'USt 7 %',
  );
  await edit.getByLabel('Steuersatz').selectOption(reduced?.id ?? 'missing');
  await edit.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByRole('row', { name: /Beratung/ })).toContainText('92,00 €');
  await expect(page.getByRole('row', { name: /Beratung/ })).toContainText(/USt 7\s%/);
  const edited = await api.GET('/v1/products/{productId}', {
    params: { path: { productId: product?.id ?? '' } },
  });
  expect(edited.data).toMatchObject({ unitPrice: 92, version: 2 });
  await screenshot(page, 'products');

  // Someone else changes the product meanwhile: saving offers to reload and keep the edits.
  await page.getByRole('button', { name: 'Bearbeiten: Beratung' }).click();
  const again = page.getByRole('form', { name: '„Beratung“ bearbeiten' });
  const behind = await api.PUT('/v1/products/{productId}', {
    params: { path: { productId: product?.id ?? '' } },
    body: { version: 2, description: 'Changed elsewhere' },
  });
  expect(behind.data?.version).toBe(3);
  await again.getByLabel('Preis netto in EUR').fill('95');
  await again.getByRole('button', { name: 'Speichern' }).click();
  await expect(again.getByRole('alert')).toContainText('inzwischen geändert');
  await expect(again.getByLabel('Preis netto in EUR')).toHaveValue('95');
  await expectNoAxeViolations(page);
  await again.getByRole('button', { name: 'Neu laden und meine Änderungen behalten' }).click();
  await expect(page.getByRole('row', { name: /Beratung/ })).toContainText('95,00 €');
  const kept = await api.GET('/v1/products/{productId}', {
    params: { path: { productId: product?.id ?? '' } },
  });
  // The price is the owner's, the description someone else's: both kept.
  expect(kept.data).toMatchObject({ unitPrice: 95, description: 'Changed elsewhere', version: 4 });

  // Delete asks once more; the product is gone from the list and the API.
  await page.getByRole('button', { name: 'Löschen: Anfahrtspauschale' }).click();
  await page.getByRole('button', { name: '„Anfahrtspauschale“ wirklich löschen' }).click();
  await expect(page.getByRole('row', { name: /Anfahrtspauschale/ })).toBeHidden();
  const gone = await api.GET('/v1/products/{productId}', {
    params: { path: { productId: seeded.data?.id ?? '' } },
  });
  expect(gone.response.status).toBe(404);

  // Tax rates live in the settings: create one; a wrong category/rate pair is the API's to refuse.
  await page.goto(`${kontor().url}/settings/tax-rates`);
  await expect(page.getByRole('heading', { name: 'Steuersätze', level: 1 })).toBeVisible();
  await expect(page.getByRole('row', { name: /USt 19\s%/ })).toContainText('Standard');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Neuer Steuersatz' }).click();
  const rateForm = page.getByRole('form', { name: 'Neuer Steuersatz' });
  await rateForm.getByLabel('Bezeichnung').fill('Ausfuhr');
  await rateForm.getByLabel('Satz in %').fill('0');
  await rateForm.getByLabel('Steuerkategorie').selectOption({ label: 'Ausfuhr außerhalb der EU' });
  await rateForm.getByRole('button', { name: 'Speichern' }).click();
  // G needs an exemption reason: the API names the field.
  await expect(rateForm.getByLabel('Befreiungsgrund')).toHaveAttribute('aria-invalid', 'true');
  await expect(rateForm.getByLabel('Bezeichnung')).toHaveValue('Ausfuhr');
  await expectNoAxeViolations(page);
  await rateForm
    .getByLabel('Befreiungsgrund')
    .fill('Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1a UStG)');
  await rateForm.getByLabel('VATEX-Code').fill('VATEX-EU-G');
  await rateForm.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByRole('row', { name: /Ausfuhr/ })).toContainText(
    'Ausfuhr außerhalb der EU',
  );
  const rates = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
  const created = typeof rates.data === 'string' ? [] : (rates.data?.data ?? []);
  expect(created.find((rate) => rate.name === 'Ausfuhr')).toMatchObject({
    rate: 0,
    category: 'G',
    exemptionCode: 'VATEX-EU-G',
  });

  // Someone else renames the rate meanwhile: saving offers to reload and keep the edits.
  const ausfuhr = created.find((rate) => rate.name === 'Ausfuhr');
  await page.getByRole('button', { name: 'Bearbeiten: Ausfuhr' }).click();
  const rateEdit = page.getByRole('form', { name: 'Steuersatz „Ausfuhr“ bearbeiten' });
  const renamed = await api.PATCH('/v1/tax-rates/{taxRateId}', {
    params: { path: { taxRateId: ausfuhr?.id ?? '' } },
    body: { version: ausfuhr?.version ?? 0, name: 'Ausfuhr (Drittland)' },
  });
  expect(renamed.error).toBeUndefined();
  await rateEdit
    .getByLabel('Befreiungsgrund')
    .fill('Steuerfreie Ausfuhr in Drittländer (§ 4 Nr. 1a UStG)');
  await rateEdit.getByRole('button', { name: 'Speichern' }).click();
  await expect(rateEdit.getByRole('alert')).toContainText('inzwischen geändert');
  await expect(rateEdit.getByLabel('Befreiungsgrund')).toHaveValue(
    'Steuerfreie Ausfuhr in Drittländer (§ 4 Nr. 1a UStG)',
  );
  await expectNoAxeViolations(page);
  await rateEdit.getByRole('button', { name: 'Neu laden und meine Änderungen behalten' }).click();
  await expect(page.getByRole('row', { name: /Ausfuhr \(Drittland\)/ })).toContainText(
    'Steuerfreie Ausfuhr in Drittländer',
  );
  const keptRate = await api.GET('/v1/tax-rates/{taxRateId}', {
    params: { path: { taxRateId: ausfuhr?.id ?? '' } },
  });
  // The reason is the owner's, the name someone else's: both kept.
  expect(keptRate.data).toMatchObject({
    name: 'Ausfuhr (Drittland)',
    exemptionReason: 'Steuerfreie Ausfuhr in Drittländer (§ 4 Nr. 1a UStG)',
    version: (ausfuhr?.version ?? 0) + 2,
  });

  // A rate a product uses cannot go: the API's refusal shows in its row.
  await page.getByRole('button', { name: 'Löschen: USt 7 %' }).click();
  await page.getByRole('button', { name: '„USt 7 %“ wirklich löschen' }).click();
  await expect(page.getByRole('row', { name: /USt 7\s%/ }).getByRole('alert')).toBeVisible();
  await expectNoAxeViolations(page);

  // The product form offers the new rate at once (the list was invalidated, not stale).
  await page.goto(`${kontor().url}/products`);
  await page.getByRole('button', { name: 'Neues Produkt' }).click();
  await expect(
    page.getByRole('form', { name: 'Neues Produkt' }).getByLabel('Steuersatz'),
  ).toContainText('Ausfuhr');
});
