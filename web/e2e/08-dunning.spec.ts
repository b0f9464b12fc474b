/**
 * Flow 8 — dunning: overdue FINAL invoices (dated and due in the past on creation) appear in
 * the proposed run with the level, fees, interest and totals of the API's own dry run; a
 * blocked invoice and a blocked customer leave the proposal; of the two letters left one is
 * unchosen, the run sends the chosen one, and the API shows that invoice at dunning level 1
 * and the unchosen and blocked ones untouched.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import {
  dayFromToday,
  seedCompany,
  seedCustomer,
  seedFinalInvoice,
  type SeededInvoice,
} from './support/billing-seed';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner, type Api } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('de-DE', { style: 'currency', currency }).format(amount);

function rowOf(page: Page, invoice: SeededInvoice): Locator {
  return page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: invoice.documentNumber, exact: true }) });
}

async function invoiceState(api: Api, invoice: SeededInvoice) {
  const { data, error } = await api.GET('/v1/documents/{documentId}', {
    params: { path: { documentId: invoice.id } },
  });
  if (error) throw new Error(JSON.stringify(error));
  return data;
}

test('the proposed run as the API computes it, blocks, and the letter sent', async ({ page }) => {
  const api = await ownerApi(kontor());
  await seedCompany(api);
  const hansa = await seedCustomer(api, 'Hansa Handel GmbH', 'buchhaltung@hansa.example.com');
  const elbe = await seedCustomer(api, 'Elbe Logistik AG', 'rechnung@elbe.example.com');
  const dated = { creationDate: dayFromToday(-44), dueDate: dayFromToday(-30) };
  const kept = await seedFinalInvoice(api, hansa, { quantity: 10, ...dated });
  const blocked = await seedFinalInvoice(api, hansa, { quantity: 5, ...dated });
  const ofBlockedCustomer = await seedFinalInvoice(api, elbe, { quantity: 3, ...dated });
  const unchosen = await seedFinalInvoice(api, hansa, { quantity: 7, ...dated });

  // The API's own dry run is what the table must show.
  const dry = await api.POST('/v1/dunning/runs', { body: { dryRun: true } });
  if (dry.error) throw new Error(JSON.stringify(dry.error));
  expect(dry.data.letters).toHaveLength(4);

  await signInAsOwner(page, kontor(), '/dunning');
  await expect(page.getByRole('heading', { name: 'Mahnwesen', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: /Vorgeschlagener Mahnlauf/ });
  await expect(table).toContainText('4 Briefe');
  for (const letter of dry.data.letters) {
    const row = table.getByRole('row').filter({
      has: page.getByRole('rowheader', { name: letter.invoiceNumber ?? '', exact: true }),
    });
    // Every proposed letter starts chosen.
    await expect(
      row.getByRole('checkbox', { name: `Brief zur Rechnung ${letter.invoiceNumber} senden` }),
    ).toBeChecked();
    // The first cell holds the choice; the invoice number is the row header.
    const cells = row.getByRole('cell');
    await expect(cells.nth(1)).toHaveText(letter.partnerName ?? '');
    await expect(cells.nth(3)).toContainText(String(letter.level));
    await expect(cells.nth(3)).toContainText(
      letter.kind === 'PAYMENT_REMINDER' ? 'Zahlungserinnerung' : 'Mahnung',
    );
    await expect(cells.nth(4)).toHaveText(money(letter.openAmount, letter.currency));
    await expect(cells.nth(5)).toContainText(money(letter.fee, letter.currency));
    if (letter.flatFee > 0) {
      await expect(cells.nth(5)).toContainText(money(letter.flatFee, letter.currency));
    }
    await expect(cells.nth(6)).toContainText(money(letter.interest, letter.currency));
    await expect(cells.nth(7)).toContainText(money(letter.total, letter.currency));
  }
  const chooseAll = table.getByRole('checkbox', { name: 'Alle Briefe wählen' });
  await expect(chooseAll).toBeChecked();
  await expectNoAxeViolations(page);
  await screenshot(page, 'dunning');

  // Another as-of day is a proposal only (a shareable ?date=); sending is as of today.
  const later = dayFromToday(20);
  await page.getByLabel('Stichtag').fill(later);
  await expect(page).toHaveURL(new RegExp(`date=${later}`));
  await expect(table).toContainText(
    new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeZone: 'UTC' }).format(
      new Date(`${later}T12:00:00Z`),
    ),
  );
  await expect(page.getByText('Gesendet wird nur zum heutigen Tag')).toBeVisible();
  await page.getByLabel('Stichtag').fill(dayFromToday(0));
  await expect(page).not.toHaveURL(/date=/);

  // Block one invoice: it leaves the proposal, and the API has the block.
  await rowOf(page, blocked)
    .getByRole('button', { name: `Rechnung ${blocked.documentNumber} sperren` })
    .click();
  await expect(page.getByRole('status').filter({ hasText: 'gesperrt' })).toContainText(
    blocked.documentNumber,
  );
  await expect(rowOf(page, blocked)).toHaveCount(0);
  expect((await invoiceState(api, blocked)).dunningBlocked).toBe(true);
  const blockedList = page.getByRole('region', { name: 'Gesperrte überfällige Rechnungen' });
  await expect(blockedList).toContainText(blocked.documentNumber);

  // Block a customer: its invoice leaves the proposal, the partner carries the block.
  await rowOf(page, ofBlockedCustomer)
    .getByRole('button', { name: 'Kunde Elbe Logistik AG sperren' })
    .click();
  await expect(page.getByText('Elbe Logistik AG wird nicht mehr gemahnt.')).toBeVisible();
  await expect(rowOf(page, ofBlockedCustomer)).toHaveCount(0);
  const partner = await api.GET('/v1/partners/{partnerId}', {
    params: { path: { partnerId: elbe } },
  });
  expect(partner.data?.dunningBlocked).toBe(true);
  await expect(table).toContainText('2 Briefe');

  // "All" takes every letter out, and puts them back; nothing chosen sends nothing.
  const sendButton = (n: number) =>
    page.getByRole('button', { name: `Gewählte Briefe senden (${n})` });
  await chooseAll.uncheck();
  await expect(table.getByRole('checkbox', { checked: true })).toHaveCount(0);
  await expect(sendButton(0)).toBeDisabled();
  await expect(page.getByText('Kein Brief gewählt')).toBeVisible();
  await chooseAll.check();
  await expect(sendButton(2)).toBeEnabled();

  // Take one letter out: "all" is mixed, the run counts the one chosen letter.
  const unchosenBox = rowOf(page, unchosen).getByRole('checkbox', {
    name: `Brief zur Rechnung ${unchosen.documentNumber} senden`,
  });
  await unchosenBox.uncheck();
  await expect(chooseAll).toBeChecked({ indeterminate: true });
  await expect(rowOf(page, kept).getByRole('checkbox')).toBeChecked();
  await expectNoAxeViolations(page);

  // Send the chosen letter.
  await sendButton(1).click();
  await page.getByRole('button', { name: 'Ja, 1 Briefe senden' }).click();
  await expect(page.getByRole('heading', { name: 'Mahnlauf ausgeführt' })).toBeVisible();
  await expect(page.getByText('1 Briefe erstellt')).toBeVisible();
  // The unchosen letter is still proposed, still unchosen; the sent one is gone.
  await expect(rowOf(page, kept)).toHaveCount(0);
  await expect(unchosenBox).not.toBeChecked();
  await expect(table).toContainText('1 Briefe');
  await expectNoAxeViolations(page);

  // The settings: a shorter term to pay, saved for the account.
  const settings = page.getByRole('region', { name: 'Mahneinstellungen' });
  await settings.getByLabel('Zahlungsfrist im Brief (Tage)').fill('7');
  await settings.getByLabel('Gebühr der Stufe 2').fill('3.5');
  await settings.getByRole('button', { name: 'Einstellungen speichern' }).click();
  await expect(settings.getByRole('status')).toHaveText('Die Einstellungen sind gespeichert.');
  const saved = await api.GET('/v1/dunning/settings');
  expect(saved.data?.paymentDays).toBe(7);
  expect(saved.data?.levels[1]?.fee).toBe(3.5);
  await expectNoAxeViolations(page);

  const sent = await invoiceState(api, kept);
  expect(sent.dunningLevel).toBe(1);
  expect(sent.lastDunnedAt).not.toBeNull();
  expect((await invoiceState(api, unchosen)).dunningLevel).toBe(0);
  expect((await invoiceState(api, unchosen)).lastDunnedAt).toBeNull();
  expect((await invoiceState(api, blocked)).dunningLevel).toBe(0);
  expect((await invoiceState(api, ofBlockedCustomer)).dunningLevel).toBe(0);
});
