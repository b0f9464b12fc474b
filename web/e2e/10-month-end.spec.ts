/**
 * Flow 10, month end: FINAL invoices of this month are seeded through the API; the export
 * first names its missing settings, then the DATEV settings are saved, the month is exported
 * (read as a stream, offered as an object URL) and the downloaded ZIP holds the DATEV batch
 * with its EXTF header. The audit trail, filtered by action, shows the finalize events.
 */
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { rowsOf } from './support/lists';
import { ownerApi, signInAsOwner, type Api } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile({ env: { REMINDER_INTERVAL_MS: '0' } });

function firstOfMonth(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-01`;
}

/**
 * The seller's data a FINAL invoice needs (§14 UStG), then two invoices of this month, drafted
 * and then finalized (the step the audit trail records as `document.finalized`).
 */
async function seedInvoices(api: Api): Promise<string[]> {
  const company = await api.GET('/v1/account/company');
  expect(company.error).toBeUndefined();
  const stored = await api.PUT('/v1/account/company', {
    body: {
      version: company.data?.version ?? 0,
      legalName: 'Muster Werkstatt GmbH',
      address: { street: 'Musterstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
      vatId: 'DE123456788',
      taxNumber: '30/123/45678',
      registerCourt: null,
      registerNumber: null,
      managingDirectors: ['Olga Owner'],
      email: 'rechnung@example.com',
      phone: null,
      website: null,
      electronicAddress: { scheme: 'EM', value: 'rechnung@example.com' },
      bankAccounts: [
        { iban: 'DE02120300000000202051', bic: null, accountHolder: null, bankName: null },
      ],
      smallBusiness: false,
      defaultPaymentTermDays: 14,
    },
  });
  expect(stored.error).toBeUndefined();
  const partner = await api.POST('/v1/partners', {
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
  const rates = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
  const s19 = rowsOf(rates.data).find((rate) => rate.category === 'S' && rate.rate === 19);
  const numbers: string[] = [];
  for (const amount of [100, 250]) {
    const invoice = await api.POST('/v1/documents', {
      body: {
        documentType: 'INVOICE',
        name: 'Rechnung',
        creationDate: firstOfMonth(),
        deliveryDate: firstOfMonth(),
        status: 'DRAFT',
        partnerId: partner.data?.id ?? '',
        lineItems: [
          { description: 'Wartung', quantity: 1, unitPrice: amount, taxRateId: s19?.id ?? '' },
        ],
      },
    });
    expect(invoice.error, JSON.stringify(invoice.error)).toBeUndefined();
    const final = await api.PUT('/v1/documents/{documentId}', {
      params: { path: { documentId: invoice.data?.id ?? '' } },
      body: { version: invoice.data?.version ?? 0, status: 'FINAL' },
    });
    expect(final.error, JSON.stringify(final.error)).toBeUndefined();
    numbers.push(final.data?.documentNumber ?? '');
  }
  return numbers;
}

test('DATEV export of the month as a ZIP with the EXTF batch; the audit trail by action', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  const numbers = await seedInvoices(api);

  await signInAsOwner(page, kontor(), '/month-end');
  await expect(page.getByRole('heading', { name: 'Monatsabschluss' })).toBeVisible();
  await expectNoAxeViolations(page);

  // Without settings the API refuses the export and says what is missing.
  await page.getByRole('button', { name: 'Export starten' }).click();
  await expect(page.getByRole('alert').first()).toBeVisible();
  await expectNoAxeViolations(page);

  await page.getByLabel('Beraternummer').fill('29098');
  await page.getByLabel('Mandantennummer').fill('55003');
  await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
  await expect(page.getByText('Einstellungen gespeichert.')).toBeVisible();
  const settings = await api.GET('/v1/exports/datev/settings');
  expect(settings.data?.consultantNumber).toBe(29098);
  // The chart's defaults stay defaults (not pinned by the form).
  expect(settings.data?.bankAccount).toBe(1200);

  // A revenue account of its own for a rate: a refused number shows on its row's field.
  await page.getByRole('button', { name: 'Zuordnung hinzufügen' }).click();
  const mapping = page.getByRole('group', { name: 'Zuordnung 1' });
  await mapping.getByLabel('Steuersatz').selectOption({ index: 0 });
  await mapping.getByLabel('Erlöskonto').fill('kein Konto');
  await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
  await expect(mapping.getByLabel('Erlöskonto')).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page);
  await mapping.getByLabel('Erlöskonto').fill('8401');
  await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
  await expect(page.getByText('Einstellungen gespeichert.')).toBeVisible();
  await expect
    .poll(async () => (await api.GET('/v1/exports/datev/settings')).data?.revenueAccounts.length)
    .toBe(1);

  // The export, then the file saved from the object URL.
  await page.getByRole('button', { name: 'Export starten' }).click();
  const download = page.getByRole('link', { name: /DATEV_.*\.zip herunterladen/ });
  await expect(download).toBeVisible();
  const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
  expect(file.suggestedFilename()).toMatch(/^DATEV_\d{6}01_\d{8}\.zip$/);
  const bytes = fs.readFileSync(await file.path());
  expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
  const entries = unzipSync(new Uint8Array(bytes));
  const csv = strFromU8(entries['EXTF_Buchungsstapel.csv'] ?? new Uint8Array(), true);
  expect(csv.startsWith('"EXTF";700;21;"Buchungsstapel";13;')).toBe(true);
  for (const number of numbers) {
    expect(number).not.toBe('');
    expect(csv).toContain(number);
  }
  await expectNoAxeViolations(page);

  // The audit trail, filtered by action (kept in the URL).
  await page.getByLabel('Aktion').fill('document.finalized');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await expect(page).toHaveURL(/action=document\.finalized/);
  const trail = page.getByRole('table', { name: 'Protokolleinträge, neueste zuerst' });
  await expect(trail.getByRole('row')).toHaveCount(3);
  await expect(trail.getByRole('cell', { name: 'document.finalized' })).toHaveCount(2);
  await expectNoAxeViolations(page);
  await screenshot(page, 'month-end');
});
