/**
 * Flow 2, the setup checklist until invoices can become FINAL: a fresh owner sees what is
 * missing (the API's invoice readiness), fills in the company data — first with a VAT id whose
 * check digit is wrong, which the API refuses on its field while everything typed stays —,
 * adds the bank account and uploads a logo (a small PNG made here), and the checklist says
 * ready. An IBAN with a wrong check sum is refused on its field as soon as the owner leaves it,
 * before any save, and a tax number while it is typed (the API's check route); fixed, the
 * message goes. The API holds what the form showed. Then the owner sets an own invoice number format
 * (a refused one first, shown on its field) and the API numbers the next invoice with it.
 */
import { deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();

/** CRC-32 of a PNG chunk (type and data), as the format asks. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of `width` × `height` blue pixels: signature, IHDR, IDAT, IEND. */
function bluePng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.alloc(width * 3, Buffer.from([31, 79, 184])),
  ]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function checklistItem(page: Page, name: string) {
  return page.getByRole('region', { name: 'Bereit für Rechnungen?' }).getByRole('listitem').filter({
    hasText: name,
  });
}

test('a fresh owner fills in what invoices need until the checklist says ready', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  await signInAsOwner(page, kontor(), '/settings/company');
  await expect(page.getByRole('heading', { name: 'Unternehmen', level: 1 })).toBeVisible();

  // What is missing, from the API's readiness.
  const checklist = page.getByRole('region', { name: 'Bereit für Rechnungen?' });
  await expect(checklist).toContainText('Es fehlen noch Angaben.');
  await expect(checklistItem(page, 'Firma, Anschrift')).toContainText(
    'Straße und Hausnummer fehlt.',
  );
  await expect(checklistItem(page, 'Bankverbindung')).toContainText('Offen');
  await expect(checklistItem(page, 'Steuersätze')).toContainText('Erledigt');
  await expectNoAxeViolations(page);

  // The company data, with a VAT id whose check digit is wrong.
  await page
    .getByLabel('Firma (vollständiger Name mit Rechtsform)', { exact: true })
    .fill('Muster Werkstatt GmbH');
  await page.getByLabel('Straße und Hausnummer', { exact: true }).fill('Hauptstraße 5');
  await page.getByLabel('PLZ', { exact: true }).fill('10115');
  await page.getByLabel('Ort', { exact: true }).fill('Berlin');
  await expect(page.getByLabel('Land', { exact: true })).toHaveValue('DE');
  const vatId = page.getByLabel('USt-IdNr.', { exact: true });
  await vatId.fill('DE123456789');
  await page
    .getByLabel('E-Mail-Adresse für Rechnungen', { exact: true })
    .fill('rechnung@example.com');
  await page.getByLabel('Telefon', { exact: true }).fill('+49 30 1234567');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect(vatId).toHaveAttribute('aria-invalid', 'true');
  await expect(vatId).toHaveAccessibleDescription(/check digit/);
  await expect(vatId).toBeFocused();
  // Nothing typed was lost.
  await expect(page.getByLabel('Straße und Hausnummer', { exact: true })).toHaveValue(
    'Hauptstraße 5',
  );
  await expect(page.getByLabel('Telefon', { exact: true })).toHaveValue('+49 30 1234567');
  await expectNoAxeViolations(page);

  await vatId.fill('DE123456788');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Gespeichert.' })).toBeVisible();
  await expect(vatId).not.toHaveAttribute('aria-invalid', 'true');
  await expect(checklistItem(page, 'Firma, Anschrift')).toContainText('Erledigt');

  // The bank account: the checklist's link leads to its section.
  await checklist.getByRole('link', { name: 'Jetzt ergänzen: Bankverbindung' }).click();
  await expect(page).toHaveURL(/#bank$/);
  const iban = page.getByLabel('IBAN', { exact: true });
  await expect(iban).toBeInViewport();
  await expect(iban).not.toHaveAttribute('aria-invalid', 'true');

  // Checked by the API on leaving the field, before saving: the message sits on the field.
  await iban.fill('DE89 3704 0044 0532 0130 01');
  await iban.press('Tab');
  await expect(iban).toHaveAttribute('aria-invalid', 'true');
  await expect(iban).toHaveAccessibleDescription(/check sum/);
  await expect(iban).toHaveValue('DE89 3704 0044 0532 0130 01');
  await expect(page.getByLabel('BIC', { exact: true })).toBeFocused();
  expect((await api.GET('/v1/account/company')).data?.bankAccounts).toEqual([]);
  await expectNoAxeViolations(page);
  await iban.fill('DE89 3704 0044 0532 0130 00');
  await iban.press('Tab');
  await expect(iban).not.toHaveAttribute('aria-invalid', 'true');
  await expect(iban).not.toHaveAccessibleDescription(/check sum/);

  // A tax number is checked while it is typed (once typing pauses), still without saving.
  const taxNumber = page.getByLabel('Steuernummer', { exact: true });
  await taxNumber.pressSequentially('30/123/4567');
  await expect(taxNumber).toBeFocused();
  await expect(taxNumber).toHaveAccessibleDescription(/10 to 13 digits/);
  await taxNumber.pressSequentially('8');
  await expect(taxNumber).not.toHaveAttribute('aria-invalid', 'true');
  await expect(taxNumber).toHaveValue('30/123/45678');
  await page.getByLabel('BIC', { exact: true }).fill('COBADEFFXXX');
  await page.getByLabel('Bank', { exact: true }).fill('Commerzbank');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Gespeichert.' })).toBeVisible();
  await expect(checklistItem(page, 'Bankverbindung')).toContainText('Erledigt');

  // The logo: a PNG through the signed upload.
  await page.getByLabel('Logo hochladen', { exact: true }).setInputFiles({
    name: 'logo.png',
    mimeType: 'image/png',
    buffer: bluePng(120, 40),
  });
  await expect(page.getByRole('status').filter({ hasText: 'Logo gespeichert.' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Ihr Logo' })).toBeVisible();
  await expect(checklistItem(page, 'Logo')).toContainText('Erledigt');

  // The logo moved the account's version, which the company data shares: saving again works.
  await page.getByLabel('Website', { exact: true }).fill('https://werkstatt.example.com');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect
    .poll(async () => (await api.GET('/v1/account/company')).data?.website)
    .toBe('https://werkstatt.example.com');
  await expect(page.getByRole('alert')).toBeHidden();

  // Ready, and the API holds what the form showed.
  await expect(checklist).toContainText('Alles bereit');
  await expectNoAxeViolations(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'setup-checklist');

  const company = await api.GET('/v1/account/company');
  expect(company.data).toMatchObject({
    legalName: 'Muster Werkstatt GmbH',
    address: { street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', country: 'DE' },
    vatId: 'DE123456788',
    email: 'rechnung@example.com',
    phone: '+49 30 1234567',
    website: 'https://werkstatt.example.com',
    bankAccounts: [{ iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', bankName: 'Commerzbank' }],
  });
  const account = await api.GET('/v1/account/addresses');
  expect(account.data?.logoFileId).toMatch(/^fil_/);
  const readiness = await api.GET('/v1/account/invoice-readiness');
  expect(readiness.data?.ready).toBe(true);

  // Someone else saves the company meanwhile: saving answers the conflict, and "reload and
  // keep my changes" saves what was typed on the stored version.
  if (company.error) throw new Error(JSON.stringify(company.error));
  const { updatedAt: _updatedAt, ...stored } = company.data;
  const other = await api.PUT('/v1/account/company', {
    body: { ...stored, phone: '+49 30 999999' },
  });
  if (other.error) throw new Error(JSON.stringify(other.error));
  const phone = page.getByLabel('Telefon', { exact: true });
  await phone.fill('+49 30 7654321');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('Jemand hat diese Daten inzwischen geändert');
  await expect(phone).toHaveValue('+49 30 7654321');
  const reloadKeep = page.getByRole('button', { name: 'Neu laden und meine Änderungen behalten' });
  await reloadKeep.click();
  await expect
    .poll(async () => (await api.GET('/v1/account/company')).data?.phone)
    .toBe('+49 30 7654321');
  await expect(reloadKeep).toBeHidden();
  await expect(page.getByRole('alert')).toBeHidden();

  // A reload shows the stored data (nothing only held in the page).
  await page.reload();
  await expect(page.getByLabel('USt-IdNr.', { exact: true })).toHaveValue('DE123456788');
  await expect(page.getByLabel('IBAN', { exact: true })).toHaveValue('DE89370400440532013000');

  // The invoice number format: a refused one lands on its field in the API's words, nothing
  // typed is lost; a good one shows the next number as the API computes it.
  const today = new Date().toISOString().slice(0, 10);
  const year = today.slice(0, 4);
  const numbering = page.getByRole('region', { name: 'Rechnungsnummern' });
  const invoiceFormat = numbering.getByLabel('Format der Rechnungsnummern', { exact: true });
  const saveFormats = numbering.getByRole('button', { name: 'Nummernformate speichern' });
  await expect(invoiceFormat).toHaveValue('{YYYY}-{0000}');
  await expect(numbering).toContainText(`${year}-0001`);
  await invoiceFormat.fill('RE-{YYYY}-{00}');
  await saveFormats.click();
  await expect(invoiceFormat).toHaveAttribute('aria-invalid', 'true');
  await expect(invoiceFormat).toHaveAccessibleDescription(/3 to 8 digits/);
  await expect(invoiceFormat).toBeFocused();
  await expect(invoiceFormat).toHaveValue('RE-{YYYY}-{00}');
  await expectNoAxeViolations(page);

  await invoiceFormat.fill('RE-{YYYY}-{00000}');
  await saveFormats.click();
  await expect(numbering.getByRole('status')).toContainText('ab der nächsten');
  await expect(invoiceFormat).not.toHaveAttribute('aria-invalid', 'true');
  await expect(numbering).toContainText(`RE-${year}-00001`);
  await expect(checklistItem(page, 'Rechnungsnummern')).toContainText(`RE-${year}-00001`);
  await expectNoAxeViolations(page);

  // The API numbers the next invoice that becomes FINAL in the new format.
  const customer = await api.POST('/v1/partners', {
    body: {
      name: 'Bäckerei Sonnenschein',
      addresses: [
        {
          type: 'BILLING',
          street: 'Ringstraße 5',
          postalCode: '20095',
          city: 'Hamburg',
          country: 'DE',
        },
      ],
    },
  });
  if (customer.error) throw new Error(JSON.stringify(customer.error));
  const invoice = await api.POST('/v1/documents', {
    body: {
      documentType: 'INVOICE',
      name: 'Reparatur Ofen',
      partnerId: customer.data.id,
      creationDate: today,
      deliveryDate: today,
      status: 'FINAL',
      lineItems: [{ description: 'Reparatur Ofen', quantity: 1, unitPrice: 250 }],
    },
  });
  if (invoice.error) throw new Error(JSON.stringify(invoice.error));
  expect(invoice.data.documentNumber).toBe(`RE-${year}-00001`);
  const formats = await api.GET('/v1/documents/numbering');
  expect(formats.data).toMatchObject({
    invoiceFormat: 'RE-{YYYY}-{00000}',
    creditNoteFormat: 'GS-{YYYY}-{0000}',
    nextInvoiceNumber: `RE-${year}-00002`,
  });

  // Someone else changes the formats meanwhile: the same way out as for the company data.
  if (formats.error) throw new Error(JSON.stringify(formats.error));
  const otherFormats = await api.PUT('/v1/documents/numbering', {
    body: {
      invoiceFormat: 'RE-{YYYY}-{00000}',
      creditNoteFormat: 'GS-{YY}-{0000}',
      version: formats.data.version,
    },
  });
  if (otherFormats.error) throw new Error(JSON.stringify(otherFormats.error));
  const creditNoteFormat = numbering.getByLabel('Format der Stornos und Rechnungskorrekturen', {
    exact: true,
  });
  await creditNoteFormat.fill('KR-{YYYY}-{0000}');
  await saveFormats.click();
  await expect(numbering.getByRole('alert')).toContainText(
    'Jemand hat diese Daten inzwischen geändert',
  );
  await numbering.getByRole('button', { name: 'Neu laden und meine Änderungen behalten' }).click();
  await expect
    .poll(async () => (await api.GET('/v1/documents/numbering')).data?.creditNoteFormat)
    .toBe('KR-{YYYY}-{0000}');
  await expect(creditNoteFormat).toHaveValue('KR-{YYYY}-{0000}');
  await expect(numbering.getByRole('alert')).toBeHidden();
});
