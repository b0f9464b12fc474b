/**
 * Flow 12, quotes and order confirmations: the owner writes a quote in the invoice editor (a
 * product line and a free one), finalizes it (number AN-…), creates a customer link (its URL
 * shown once), sends it by mail (no mail server: the outbox), records the customer's acceptance, converts one of its two lines into an order
 * confirmation, finalizes that and converts it into an invoice; the chain quote → order
 * confirmation → invoice is visible on the invoice and on the quote.
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner, OWNER } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();
const CUSTOMER_EMAIL = 'einkauf@example.org';

async function seed(): Promise<void> {
  const api = await ownerApi(kontor());
  const current = await api.GET('/v1/account/company');
  if (current.error) throw new Error(JSON.stringify(current.error));
  const put = await api.PUT('/v1/account/company', {
    body: {
      version: current.data.version,
      legalName: OWNER.company,
      address: { street: 'Werkstattweg 3', postalCode: '10115', city: 'Berlin', country: 'DE' },
      vatId: 'DE123456788',
      taxNumber: '30/123/45678',
      registerCourt: null,
      registerNumber: null,
      managingDirectors: ['Olga Owner'],
      email: 'angebot@example.org',
      phone: null,
      website: null,
      electronicAddress: null,
      // A quote needs no bank data (it asks for no payment).
      bankAccounts: [],
      smallBusiness: false,
      defaultPaymentTermDays: 14,
    },
  });
  if (put.error) throw new Error(JSON.stringify(put.error));
  const partner = await api.POST('/v1/partners', {
    body: {
      name: 'Beispiel Handel GmbH',
      type: 'CUSTOMER',
      addresses: [
        {
          type: 'BILLING',
          street: 'Hafenstraße 5',
          postalCode: '20095',
          city: 'Hamburg',
          country: 'DE',
          email: CUSTOMER_EMAIL,
        },
      ],
    },
  });
  if (partner.error) throw new Error(JSON.stringify(partner.error));
  const rates = await api.GET('/v1/tax-rates', { params: { query: { limit: 100 } } });
  const rateList = rates.data;
  if (rateList === undefined || typeof rateList === 'string') throw new Error('no tax rates');
  const product = await api.POST('/v1/products', {
    body: {
      name: 'Beratung',
      unitPrice: 120,
      currency: 'EUR',
      unit: 'Std.',
      taxRateId: rateList.data.find((r) => r.rate === 19 && r.category === 'S')?.id ?? '',
    },
  });
  if (product.error) throw new Error(JSON.stringify(product.error));
}

test('quote → customer link → accepted → order confirmation (1 of 2 lines) → invoice', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await seed();
  await signInAsOwner(page, kontor(), '/quotes');

  // The list, with its tabs; a new quote from there.
  await expect(page.getByRole('heading', { level: 1, name: 'Angebote' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Auftragsbestätigungen' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Neues Angebot' }).click();

  // The editor: the invoice editor for a quote (valid until instead of a due date).
  await expect(page.getByRole('heading', { level: 1, name: 'Neues Angebot' })).toBeVisible();
  await expect(page.getByLabel('Gültig bis')).toBeVisible();
  await expect(page.getByLabel('Fällig am')).toHaveCount(0);
  const customer = page.getByRole('combobox', { name: 'Kunde', exact: true });
  await customer.fill('Beispiel');
  await page.getByRole('option', { name: /Beispiel Handel GmbH/ }).click();
  const line1 = page.getByRole('group', { name: 'Position 1' });
  await line1.getByRole('combobox', { name: 'Produkt (optional)' }).fill('Berat');
  await page.getByRole('option', { name: /Beratung/ }).click();
  await expect(line1.getByLabel('Einzelpreis netto')).toHaveValue('120');
  await line1.getByLabel('Menge').fill('2');
  await page.getByRole('button', { name: 'Position hinzufügen' }).click();
  const line2 = page.getByRole('group', { name: 'Position 2' });
  await line2.getByLabel('Beschreibung').fill('Workshop');
  await line2.getByLabel('Einzelpreis netto').fill('500');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Entwurf speichern' }).click();

  // The API's totals, the finalize check, finalize: the number from the quote sequence.
  await expect(page).toHaveURL(/\/quotes\/doc_/);
  const totals = page.getByRole('region', { name: 'Summen' });
  await expect(totals).toContainText('880,60');
  const finalize = page.getByRole('region', { name: 'Abschließen' });
  await expect(finalize.getByText('Alle Pflichtangaben sind vorhanden.')).toBeVisible();
  await expectNoAxeViolations(page);
  await finalize.getByRole('button', { name: 'Angebot abschließen' }).click();
  await expect(
    page.getByRole('heading', { level: 1, name: /Angebot AN-\d{4}-0001/ }),
  ).toBeVisible();
  const quoteUrl = page.url();

  // A customer link: its URL shown once, with a copy button and its expiry.
  const links = page.getByRole('region', { name: 'Kundenlink' });
  await links.getByRole('button', { name: 'Kundenlink erstellen' }).click();
  await expect(links.getByRole('textbox', { name: 'Kundenlink' })).toHaveValue(/\/c\/.+/);
  await expect(links.getByRole('button', { name: 'Link kopieren' })).toBeVisible();
  await expect(links.getByText(/^Gültig bis /)).toBeVisible();
  await expect(links.getByRole('row')).toHaveCount(2);
  await expect(links.getByRole('button', { name: /^Link vom .* widerrufen$/ })).toBeVisible();

  // Sent by mail: the API's preview first (recipient, Reply-To, no mail server), then the outbox.
  await page.getByRole('button', { name: 'Per E-Mail senden' }).click();
  const send = page.getByRole('dialog', { name: 'Angebot per E-Mail senden' });
  await expect(send.getByText(CUSTOMER_EMAIL)).toBeVisible();
  await expect(send.getByText('angebot@example.org')).toBeVisible();
  await expect(send.getByText(/Angebot AN-\d{4}-0001\.pdf/)).toBeVisible();
  await expect(send.getByText(/kein Mailserver eingerichtet/)).toBeVisible();
  await expectNoAxeViolations(page);
  await send.getByRole('button', { name: 'In den Postausgang legen' }).click();
  await expect(
    page.getByText(`Die E-Mail an ${CUSTOMER_EMAIL} liegt im Postausgang-Ordner`),
  ).toBeVisible();
  // The facts say where it went (the API's sentAt and sentTo).
  await expect(
    page.getByRole('definition').filter({ hasText: `an ${CUSTOMER_EMAIL}` }),
  ).toBeVisible();
  expect(await kontor().mail(CUSTOMER_EMAIL, /filename="(Angebot AN-\d{4}-0001\.pdf)"/)).toMatch(
    /^Angebot AN-/,
  );

  // The customer's answer: accepted, by name.
  await page.getByRole('button', { name: 'Annahme erfassen' }).click();
  const decision = page.getByRole('dialog', { name: 'Annahme des Angebots erfassen' });
  await expectNoAxeViolations(page);
  await decision.getByLabel('Wer hat geantwortet? (optional)').fill('Erika Mustermann');
  await decision.getByRole('button', { name: 'Als angenommen erfassen' }).click();
  await expect(page.getByText('Angebot als angenommen erfasst (Erika Mustermann).')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Angenommen');
  await expect(page.getByRole('button', { name: 'Annahme erfassen' })).toHaveCount(0);
  const preview = page.getByRole('img', { name: /Seite 1 von Angebot/ });
  await expect(preview).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBeGreaterThan(100);
  await screenshot(page, 'quote');
  await expectNoAxeViolations(page);

  // Convert one of the two lines into an order confirmation: its draft opens.
  await page.getByRole('button', { name: 'In Auftragsbestätigung umwandeln' }).click();
  const convert = page.getByRole('dialog', { name: 'Auftragsbestätigung erstellen' });
  await expect(convert.getByRole('checkbox', { name: /^Position 1: Beratung/ })).toBeChecked();
  await convert.getByRole('checkbox', { name: /^Position 2: Workshop/ }).uncheck();
  await expectNoAxeViolations(page);
  await convert.getByRole('button', { name: 'Auftragsbestätigung erstellen' }).click();
  await expect(page).not.toHaveURL(quoteUrl);
  await expect(page).toHaveURL(/\/quotes\/doc_/);
  await expect(page.getByRole('group', { name: 'Position 1' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Position 2' })).toHaveCount(0);
  const chain = page.getByRole('region', { name: 'Vorgang' });
  await expect(chain.getByRole('link', { name: /Angebot AN-\d{4}-0001/ })).toBeVisible();
  await page.getByRole('button', { name: 'Auftragsbestätigung abschließen' }).click();
  await expect(
    page.getByRole('heading', { level: 1, name: /Auftragsbestätigung AB-\d{4}-0001/ }),
  ).toBeVisible();
  await expectNoAxeViolations(page);

  // …and that into an invoice: the chain quote → order confirmation → invoice on its page.
  await page.getByRole('button', { name: 'In Rechnung umwandeln' }).click();
  const toInvoice = page.getByRole('dialog', { name: 'Rechnung erstellen' });
  await toInvoice.getByRole('button', { name: 'Rechnung erstellen' }).click();
  await expect(page).toHaveURL(/\/invoices\/doc_/);
  const invoiceChain = page.getByRole('region', { name: 'Vorgang' });
  const items = invoiceChain.getByRole('listitem');
  await expect(items).toHaveCount(3);
  await expect(items.nth(0)).toHaveText(/Angebot AN-\d{4}-0001/);
  await expect(items.nth(1)).toHaveText(/Auftragsbestätigung AB-\d{4}-0001/);
  await expect(items.nth(2)).toHaveText('Entwurf');
  await expect(page.getByRole('region', { name: 'Summen' })).toContainText('285,60');

  // Both ways: from the invoice back to the quote, which names its order confirmation.
  await invoiceChain.getByRole('link', { name: /Angebot AN-/ }).click();
  await expect(page).toHaveURL(quoteUrl);
  await expect(
    page
      .getByRole('region', { name: 'Vorgang' })
      .getByRole('link', { name: /Auftragsbestätigung AB-/ }),
  ).toBeVisible();

  // The list's tabs: the quote among the accepted, the confirmation under its own tab.
  await page.getByRole('link', { name: 'Angebote', exact: true }).click();
  await page.getByRole('link', { name: 'Angenommen' }).click();
  await expect(page.getByRole('link', { name: /AN-\d{4}-0001/ })).toBeVisible();
  await page.getByRole('link', { name: 'Offen' }).click();
  await expect(page.getByText('Nichts gefunden.')).toBeVisible();
  await page.getByRole('link', { name: 'Auftragsbestätigungen' }).click();
  await expect(page.getByRole('link', { name: /AB-\d{4}-0001/ })).toBeVisible();
  await expectNoAxeViolations(page);
});
