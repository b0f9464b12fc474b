/**
 * Flow 7 — bank statement import: a statement generated here (MT940, lines paying two seeded
 * FINAL invoices by amount and number, and one line nobody knows) is uploaded through the
 * page with its progress shown, reviewed line by line with the API's suggestions and reasons,
 * accepted as suggested, the unknown line rejected, and finalized — after which the API says
 * both invoices are PAID.
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import {
  dayFromToday,
  seedCompany,
  seedCustomer,
  seedFinalInvoice,
  type SeededInvoice,
} from './support/billing-seed';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();

interface StatementLine {
  date: string;
  cents: number;
  name: string;
  iban: string;
  purpose: string;
  ref: string;
}

const yymmdd = (day: string) => day.slice(2).replace(/-/g, '');
const mt940Amount = (cents: number) =>
  `${Math.floor(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** A German MT940 statement: `:61:` lines with bank references, `:86:` with SEPA subfields. */
function mt940(lines: StatementLine[]): string {
  const opening = 500_000;
  const closing = opening + lines.reduce((sum, line) => sum + line.cents, 0);
  const first = lines[0]!.date;
  const last = lines[lines.length - 1]!.date;
  const out = [
    ':20:STARTUMSE',
    ':25:12030000/202051',
    ':28C:00001/001',
    `:60F:C${yymmdd(first)}EUR${mt940Amount(opening)}`,
  ];
  for (const line of lines) {
    const mark = line.cents >= 0 ? 'C' : 'D';
    out.push(
      `:61:${yymmdd(line.date)}${line.date.slice(5).replace('-', '')}${mark}${mt940Amount(line.cents)}NTRFNONREF//${line.ref}`,
    );
    const chunks = `SVWZ+${line.purpose}`.match(/.{1,27}/g) ?? [''];
    const purpose = chunks.map((chunk, i) => `?${20 + i}${chunk}`).join('');
    out.push(`:86:166?00GUTSCHRIFT${purpose}?30COBADEFFXXX?31${line.iban}?32${line.name}`);
  }
  out.push(`:62F:C${yymmdd(last)}EUR${mt940Amount(closing)}`, '-');
  return out.join('\r\n') + '\r\n';
}

const cents = (amount: number) => Math.round(amount * 100);

test('upload a statement, review the suggestions, accept them and book the payments', async ({
  page,
}) => {
  const api = await ownerApi(kontor());
  await seedCompany(api);
  const hansa = await seedCustomer(api, 'Hansa Handel GmbH', 'buchhaltung@hansa.example.com');
  const elbe = await seedCustomer(api, 'Elbe Logistik AG', 'rechnung@elbe.example.com');
  const issued = dayFromToday(-20);
  const due = dayFromToday(-6);
  const first: SeededInvoice = await seedFinalInvoice(api, hansa, {
    quantity: 10,
    creationDate: issued,
    dueDate: due,
  });
  const second: SeededInvoice = await seedFinalInvoice(api, elbe, {
    quantity: 5,
    creationDate: issued,
    dueDate: due,
  });
  const booked = dayFromToday(-2);
  const statement = mt940([
    {
      date: booked,
      cents: cents(first.grossTotal),
      name: 'Hansa Handel GmbH',
      iban: 'DE89370400440532013000',
      purpose: `Rechnung ${first.documentNumber}`,
      ref: 'BANKREF1',
    },
    {
      date: booked,
      cents: cents(second.grossTotal),
      name: 'Elbe Logistik AG',
      iban: 'DE44500105175407324931',
      purpose: `RE ${second.documentNumber} danke`,
      ref: 'BANKREF2',
    },
    {
      date: booked,
      cents: 4_200,
      name: 'Unbekannt',
      iban: 'DE75512108001245126199',
      purpose: 'Erstattung Pfand',
      ref: 'BANKREF3',
    },
  ]);

  await signInAsOwner(page, kontor(), '/bank');
  await expect(page.getByRole('heading', { name: 'Bankimport', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Kontoauszug hochladen' })).toBeVisible();
  await expectNoAxeViolations(page);

  // A file that is no statement: the API's reason shows on the form, nothing is imported.
  await page.getByLabel('Auszugsdatei').setInputFiles({
    name: 'notiz.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('Einkaufsliste: Milch, Brot\r\n', 'latin1'),
  });
  await page.getByRole('button', { name: 'Hochladen und einlesen' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Kontoauszug hochladen' })).toBeVisible();
  expect((await api.GET('/v1/bank-statement-imports/active')).response.status).toBe(404);

  // The server takes a moment to read the statement: the page shows it and stays usable.
  await page.route('**/v1/bank-statement-imports', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await route.continue();
  });
  await page.getByLabel('Auszugsdatei').setInputFiles({
    name: 'umsatz.sta',
    mimeType: 'text/plain',
    buffer: Buffer.from(statement, 'latin1'),
  });
  await page.getByRole('button', { name: 'Hochladen und einlesen' }).click();
  await expect(page.getByRole('progressbar', { name: 'Fortschritt des Imports' })).toBeVisible();
  await expect(page.getByRole('status')).toContainText('wird gelesen und abgeglichen');
  await expect(page.getByRole('link', { name: 'Bank', exact: true })).toBeEnabled();

  // The review: three lines, two with the invoice they pay and why.
  await expect(page.getByRole('heading', { name: 'Import prüfen' })).toBeVisible();
  await page.unroute('**/v1/bank-statement-imports');
  expect(new URL(page.url()).pathname).toMatch(/^\/bank\/imports\/imp_/);
  const lines = page.getByRole('list', { name: 'Zeilen des Auszugs' });
  const firstLine = lines.getByRole('listitem').filter({ hasText: 'Zeile 1: Hansa Handel GmbH' });
  await expect(firstLine).toContainText(`Rechnung ${first.documentNumber}`);
  await expect(firstLine).toContainText(`invoice number ${first.documentNumber} in the purpose`);
  await expect(firstLine).toContainText('amount equals the open amount of the invoice');
  const marks = firstLine.getByRole('list', { name: 'Abgleich mit der Rechnung' });
  await expect(marks).toContainText('Betrag passt');
  await expect(marks).toContainText('Name passt');
  await expect(marks).toContainText('Rechnungsnummer im Zweck');
  const secondLine = lines.getByRole('listitem').filter({ hasText: 'Zeile 2: Elbe Logistik AG' });
  await expect(secondLine).toContainText(`invoice number ${second.documentNumber} in the purpose`);
  const unknown = lines.getByRole('listitem').filter({ hasText: 'Zeile 3: Unbekannt' });
  await expect(unknown).toContainText('Kein Vorschlag');
  await expectNoAxeViolations(page);
  await screenshot(page, 'bank-review');

  // Accept what the API suggests, reject the line nobody knows, then book.
  await page.getByRole('button', { name: 'Alle Vorschläge annehmen (2)' }).click();
  await expect(firstLine).toContainText('Angenommen');
  await expect(secondLine).toContainText('Angenommen');
  await expect(unknown).toContainText('Offen');
  // The open lines alone (the API filters), a link that can be shared.
  const filters = page.getByRole('navigation', { name: 'Zeilen filtern' });
  await filters.getByRole('link', { name: 'Offen' }).click();
  await expect(page).toHaveURL(/filter=undecided/);
  await expect(filters.getByRole('link', { name: 'Offen' })).toHaveAttribute(
    'aria-current',
    'page',
  );
  await expect(filters.getByRole('link', { name: 'Alle' })).not.toHaveAttribute(
    'aria-current',
    'page',
  );
  await expect(lines.getByRole('heading', { level: 3 })).toHaveCount(1);
  await unknown.getByRole('button', { name: 'Ablehnen (Zeile 3)' }).click();
  await expect(page.getByText('Keine Zeilen in dieser Auswahl.')).toBeVisible();
  await filters.getByRole('link', { name: 'Alle' }).click();
  await expect(lines.getByRole('heading', { level: 3 })).toHaveCount(3);
  await expect(unknown).toContainText('Abgelehnt');
  await page.getByRole('button', { name: 'Import abschließen und buchen' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Gebucht am' })).toContainText(
    '2 Zahlungen angelegt',
  );
  await expectNoAxeViolations(page);

  // The API agrees: both invoices are paid, no import is open any more.
  for (const invoice of [first, second]) {
    const { data } = await api.GET('/v1/documents/{documentId}', {
      params: { path: { documentId: invoice.id } },
    });
    expect(data?.paymentStatus, invoice.documentNumber).toBe('PAID');
  }
  const active = await api.GET('/v1/bank-statement-imports/active');
  expect(active.response.status).toBe(404);

  // The bank page offers a new upload again.
  await page.getByRole('link', { name: 'Zurück zum Bankimport' }).click();
  await expect(page.getByRole('heading', { name: 'Kontoauszug hochladen' })).toBeVisible();
});
