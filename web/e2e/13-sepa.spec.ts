/**
 * Flow 13 — SEPA: the creditor id in the company data (a wrong one answers the API's message
 * on the field), the pre-notification period, a customer's mandate (a wrong IBAN refused on its
 * field) and a supplier's bank account on the partner page, the collection proposal of the
 * API's dry run with a FINAL invoice of that customer, the run created, its pain.008 downloaded
 * (the name the API gives it, the EndToEndId inside), the mandate changed after its collection
 * (a wrong IBAN refused on its field with what was typed kept, then an amendment the API marks
 * pending), the automatic collection switched on, and the mandate revoked. Then the list of
 * runs made, paged through as the API pages it (26 transfer runs seeded through the API).
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import {
  dayFromToday,
  seedCompany,
  seedCustomer,
  seedFinalInvoice,
  seedUploadedPdf,
} from './support/billing-seed';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner, type Api } from './support/owner';
import { screenshot } from './support/screenshot';

// The runs' list is seeded through the API (26 runs of a bill each): more requests in a minute
// than the plan allows, which is not what these flows test.
const kontor = kontorPerFile({ env: { RATE_LIMITS: 'off' } });

const WRONG_CREDITOR_ID = 'DE00ZZZ09999999999';
const CREDITOR_ID = 'DE98ZZZ09999999999';
const IBAN = 'DE02120300000000202051';
/** Another account at the same bank (Bankleitzahl 12030000). */
const NEW_IBAN = 'DE72120300000000202052';

const money = (amount: number) =>
  new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(amount);
const day = (iso: string) =>
  new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${iso}T00:00:00Z`),
  );

/** The API's own message for a field of a company check with one field changed. */
async function companyCheckMessage(api: Api, creditorId: string): Promise<string> {
  const company = await api.GET('/v1/account/company');
  if (company.error) throw new Error(JSON.stringify(company.error));
  const { version: _version, updatedAt: _updatedAt, ...fields } = company.data;
  const check = await api.POST('/v1/account/company/check', { body: { ...fields, creditorId } });
  const refused = check.error?.errors?.find((entry) => entry.path === '/body/creditorId');
  if (refused === undefined) throw new Error(`the API accepts ${creditorId}`);
  return refused.message;
}

test('creditor id, a mandate, the collection of its invoice, the pain.008, the revoke', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const api = await ownerApi(kontor());
  await seedCompany(api);
  const customer = await seedCustomer(api, 'Hansa Handel GmbH', 'buchhaltung@hansa.example.com');

  // The creditor id: checked by the API on leaving the field, then saved.
  await signInAsOwner(page, kontor(), '/settings/company');
  const creditorId = page.getByRole('textbox', { name: 'Gläubiger-ID' });
  await creditorId.fill(WRONG_CREDITOR_ID);
  await creditorId.blur();
  const wrongMessage = await companyCheckMessage(api, WRONG_CREDITOR_ID);
  await expect(creditorId).toHaveAttribute('aria-invalid', 'true');
  await expect(creditorId).toHaveAccessibleDescription(new RegExp(escape(wrongMessage)));
  await creditorId.fill(CREDITOR_ID);
  await creditorId.blur();
  await expect(creditorId).not.toHaveAttribute('aria-invalid', 'true');
  await page.getByRole('button', { name: 'Speichern', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Gespeichert' })).toBeVisible();
  const company = await api.GET('/v1/account/company');
  expect(company.data?.creditorId).toBe(CREDITOR_ID);

  // The pre-notification days: the API's refusal on the field, then a valid period.
  const days = page.getByRole('textbox', { name: 'Vorabankündigung (Tage)' });
  await expect(days).toHaveValue('14');
  await days.fill('0');
  await page.getByRole('button', { name: 'SEPA-Einstellungen speichern' }).click();
  await expect(days).toHaveAttribute('aria-invalid', 'true');
  await days.fill('5');
  await page.getByRole('button', { name: 'SEPA-Einstellungen speichern' }).click();
  await expect(page.getByText('SEPA-Einstellungen gespeichert.')).toBeVisible();
  expect((await api.GET('/v1/sepa/settings')).data?.preNotificationDays).toBe(5);
  await expectNoAxeViolations(page);

  // A mandate on the customer's SEPA tab: a wrong IBAN shows the API's message on its field.
  await page.goto(`${kontor().url}/partners/${customer}?tab=sepa`);
  await expect(page.getByRole('heading', { name: 'SEPA-Lastschriftmandate' })).toBeVisible();
  await expect(page.getByText('Noch kein Mandat.')).toBeVisible();
  const form = page.getByRole('form', { name: 'Neues Mandat' });
  await form.getByRole('textbox', { name: 'Mandatsreferenz' }).fill('M-HANSA-1');
  await form.getByLabel('Unterschrieben am').fill(dayFromToday(-10));
  await form.getByRole('textbox', { name: 'IBAN' }).fill('DE02120300000000202052');
  await form.getByRole('button', { name: 'Mandat anlegen' }).click();
  await expect(form.getByRole('textbox', { name: 'IBAN' })).toHaveAttribute('aria-invalid', 'true');
  expect(
    (
      await api.GET('/v1/partners/{partnerId}/mandates', {
        params: { path: { partnerId: customer } },
      })
    ).data,
  ).toMatchObject({ data: [] });
  await form.getByRole('textbox', { name: 'IBAN' }).fill(IBAN);
  await form.getByRole('button', { name: 'Mandat anlegen' }).click();
  await expect(form.getByRole('status')).toHaveText('Mandat M-HANSA-1 angelegt.');
  const mandates = await api.GET('/v1/partners/{partnerId}/mandates', {
    params: { path: { partnerId: customer } },
  });
  const mandate = typeof mandates.data === 'string' ? undefined : mandates.data?.data[0];
  if (mandate === undefined) throw new Error('no mandate');
  const mandateRow = page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: 'M-HANSA-1' }) });
  await expect(mandateRow).toContainText(mandate.iban);
  await expect(mandateRow).toContainText(day(mandate.signedOn));
  await expect(mandateRow).toContainText('Erstlastschrift');
  await expect(mandateRow).toContainText('Aktiv');

  // The partner's bank account for transfers, answered masked.
  await page.getByRole('textbox', { name: 'IBAN des Lieferanten' }).fill(IBAN);
  await page.getByRole('button', { name: 'Bankkonto speichern' }).click();
  await expect(page.getByText('Bankkonto gespeichert.')).toBeVisible();
  const account = await api.GET('/v1/partners/{partnerId}/bank-account', {
    params: { path: { partnerId: customer } },
  });
  await expect(
    page.getByText(`Hinterlegt: Hansa Handel GmbH, ${account.data?.iban}`),
  ).toBeVisible();
  await expectNoAxeViolations(page);

  // A FINAL invoice of the customer: the dry run proposes it, as the API computes it.
  const invoice = await seedFinalInvoice(api, customer, {
    quantity: 2,
    creationDate: dayFromToday(0),
    dueDate: dayFromToday(14),
  });
  const dry = await api.POST('/v1/sepa/collections', {
    body: { invoiceIds: [invoice.id], dryRun: true },
  });
  const planned = dry.data?.items[0];
  if (planned === undefined) throw new Error(`not collectable: ${JSON.stringify(dry)}`);

  await page.goto(`${kontor().url}/bank`);
  await page.getByRole('link', { name: 'SEPA-Lastschriften und Überweisungen' }).click();
  await expect(
    page.getByRole('heading', { name: 'SEPA-Lastschriften und Überweisungen', level: 1 }),
  ).toBeVisible();
  const proposal = page.getByRole('table', { name: /Einziehbar: 1 Rechnung,/ });
  const row = proposal
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: invoice.documentNumber }) });
  await expect(
    row.getByRole('checkbox', { name: `Rechnung ${invoice.documentNumber} einziehen` }),
  ).toBeChecked();
  await expect(row).toContainText('Hansa Handel GmbH');
  await expect(row).toContainText(money(planned.amount));
  await expect(row).toContainText('M-HANSA-1');
  await expect(row).toContainText('FRST');
  await expect(row).toContainText(day(planned.executionDate));
  await expectNoAxeViolations(page);
  await screenshot(page, 'sepa-collections');

  // The run: created, listed, its pain.008 downloaded under the API's name.
  await page.getByRole('button', { name: 'Lastschriftlauf erstellen (1)' }).click();
  await expect(page.getByText(/Lastschriftlauf erstellt: 1 Rechnung,/)).toBeVisible();
  const runs = await api.GET('/v1/sepa/collections');
  const run = typeof runs.data === 'string' ? undefined : runs.data?.data[0];
  if (run?.id == null) throw new Error('no run');
  const endToEndId = run.items[0]?.endToEndId ?? '';
  const file = await api.GET('/v1/sepa/collections/{runId}/file', {
    params: { path: { runId: run.id } },
    parseAs: 'text',
  });
  const fileName = /filename="([^"]+)"/.exec(
    file.response.headers.get('content-disposition') ?? '',
  )?.[1];
  const runRow = page.getByRole('table', { name: 'Erstellte Lastschriftläufe' }).getByRole('row');
  await expect(runRow.nth(1)).toContainText(money(run.total));
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    runRow
      .nth(1)
      .getByRole('button', { name: /^pain\.008 herunterladen/ })
      .click(),
  ]);
  expect(download.suggestedFilename()).toBe(fileName);
  const xml = await readFile(await download.path(), 'utf8');
  expect(xml).toContain('pain.008.001.08');
  expect(xml).toContain(`<EndToEndId>${endToEndId}</EndToEndId>`);
  // The invoice is in a run now: the proposal refuses it, with the API's reason.
  await expect(page.getByText('Keine offene Rechnung kann eingezogen werden.')).toBeVisible();
  const again = await api.POST('/v1/sepa/collections', {
    body: { invoiceIds: [invoice.id], dryRun: true },
  });
  const refusal = again.data?.refused[0];
  expect(refusal?.reason).toBe('already_in_run');
  await page.getByText('Nicht einziehbar: 1 Rechnung').click();
  await expect(
    page
      .getByRole('table', { name: 'Nicht einziehbare Rechnungen mit Grund' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: invoice.documentNumber }) }),
  ).toContainText(refusal?.message ?? '');
  // Transfers: no supplier invoice is open.
  await expect(page.getByText('Es gibt keine offenen Lieferantenrechnungen.')).toBeVisible();
  await expect(page.getByRole('checkbox', { name: 'Skonto nutzen' })).toBeChecked();
  await expectNoAxeViolations(page);

  // The mandate changed after its collection: a wrong IBAN on its field, what was typed kept.
  await page.goto(`${kontor().url}/partners/${customer}?tab=sepa`);
  await page.getByRole('button', { name: 'Bearbeiten: Mandat M-HANSA-1' }).click();
  const edit = page.getByRole('form', { name: 'Mandat M-HANSA-1 bearbeiten' });
  const holder = edit.getByRole('textbox', { name: 'Kontoinhaber' });
  await holder.fill('Hansa Handel GmbH & Co. KG');
  const newIban = edit.getByRole('textbox', { name: 'Neue IBAN' });
  await newIban.fill('DE02120300000000202099');
  await edit.getByRole('button', { name: 'Änderungen speichern' }).click();
  await expect(newIban).toHaveAttribute('aria-invalid', 'true');
  await expect(holder).toHaveValue('Hansa Handel GmbH & Co. KG');
  expect(
    (
      await api.GET('/v1/sepa/mandates/{mandateId}', {
        params: { path: { mandateId: mandate.id } },
      })
    ).data?.debtorName,
  ).toBe('Hansa Handel GmbH');
  await newIban.fill(NEW_IBAN);
  await edit.getByRole('button', { name: 'Änderungen speichern' }).click();
  await expect(edit.getByRole('status')).toHaveText('Mandat M-HANSA-1 gespeichert.');
  const changed = await api.GET('/v1/sepa/mandates/{mandateId}', {
    params: { path: { mandateId: mandate.id } },
  });
  expect(changed.data).toMatchObject({
    debtorName: 'Hansa Handel GmbH & Co. KG',
    amendmentPending: true,
    scheme: 'CORE',
  });
  await expect(mandateRow).toContainText(changed.data?.iban ?? 'no iban');
  await expect(mandateRow).toContainText('Änderung wird mit der nächsten Lastschrift gemeldet');
  await expectNoAxeViolations(page);
  await edit.getByRole('button', { name: 'Schließen' }).click();

  // The automatic collection, switched on beside the pre-notification period.
  await page.goto(`${kontor().url}/settings/company`);
  const auto = page.getByRole('checkbox', {
    name: 'Lastschriften aus Verträgen automatisch einziehen',
  });
  await expect(auto).not.toBeChecked();
  await auto.check();
  await page.getByRole('button', { name: 'SEPA-Einstellungen speichern' }).click();
  await expect(page.getByText('SEPA-Einstellungen gespeichert.')).toBeVisible();
  expect((await api.GET('/v1/sepa/settings')).data).toMatchObject({
    autoCollect: true,
    preNotificationDays: 5,
  });

  // The mandate revoked, after a confirmation.
  await page.goto(`${kontor().url}/partners/${customer}?tab=sepa`);
  await page.getByRole('button', { name: 'Widerrufen: Mandat M-HANSA-1' }).click();
  await page.getByRole('button', { name: 'Mandat M-HANSA-1 wirklich widerrufen' }).click();
  await expect(mandateRow).toContainText('Widerrufen am');
  const revoked = await api.GET('/v1/sepa/mandates/{mandateId}', {
    params: { path: { mandateId: mandate.id } },
  });
  expect(revoked.data?.active).toBe(false);
  expect(revoked.data?.revokedAt).not.toBeNull();
});

test('the list of runs pages through all of them', async ({ page }) => {
  test.setTimeout(180_000);
  const api = await ownerApi(kontor());
  await seedCompany(api);
  // 26 transfer runs of one uploaded bill each: one more than the list's page.
  const vendor = await api.POST('/v1/partners', {
    body: { name: 'Papier Lieferant KG', type: 'VENDOR' },
  });
  if (vendor.error) throw new Error(JSON.stringify(vendor.error));
  const account = await api.PUT('/v1/partners/{partnerId}/bank-account', {
    params: { path: { partnerId: vendor.data.id } },
    body: { version: 1, holderName: 'Papier Lieferant KG', iban: IBAN },
  });
  if (account.error) throw new Error(JSON.stringify(account.error));
  const fileId = await seedUploadedPdf(api, kontor().url, 'lieferung.pdf');
  for (let i = 1; i <= 26; i++) {
    const bill = await api.POST('/v1/documents', {
      body: {
        documentType: 'INVOICE',
        source: 'UPLOADED',
        fileId,
        name: `Lieferung ${i}`,
        documentNumber: `LF-${i}`,
        partnerId: vendor.data.id,
        creationDate: dayFromToday(-1),
        dueDate: dayFromToday(20),
        status: 'FINAL',
        lineItems: [{ description: 'Papier', quantity: 1, unitPrice: 100 + i }],
      },
    });
    if (bill.error) throw new Error(JSON.stringify(bill.error));
    const run = await api.POST('/v1/sepa/transfers', {
      body: { invoiceIds: [bill.data.id], useSkonto: false },
    });
    if (run.error) throw new Error(JSON.stringify(run.error));
  }
  const all = await api.GET('/v1/sepa/transfers', { params: { query: { limit: 100 } } });
  const runs = typeof all.data === 'string' ? [] : (all.data?.data ?? []);
  expect(runs).toHaveLength(26);
  const [newest] = runs;
  const oldest = runs.at(-1);

  await signInAsOwner(page, kontor(), '/bank/sepa');
  const table = page.getByRole('table', { name: 'Erstellte Überweisungsläufe' });
  const pages = page.getByRole('navigation', { name: 'Seiten der Überweisungsläufe' });
  // Newest first: a page of 25 (and the header row), the oldest run not among them.
  await expect(table.getByRole('row')).toHaveCount(26);
  await expect(table.getByRole('row').nth(1)).toContainText(money(newest?.total ?? 0));
  await expect(table).not.toContainText(money(oldest?.total ?? 0));
  await expect(pages.getByRole('button', { name: 'Zurück' })).toBeDisabled();
  await expectNoAxeViolations(page);
  await pages.getByRole('button', { name: 'Weiter' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText(money(oldest?.total ?? 0));
  await expect(pages.getByRole('button', { name: 'Weiter' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Zurück' }).click();
  await expect(table.getByRole('row')).toHaveCount(26);
  await expect(table.getByRole('row').nth(1)).toContainText(money(newest?.total ?? 0));
  // The collections' list has one run: no pages to turn.
  await expect(page.getByRole('navigation', { name: 'Seiten der Lastschriftläufe' })).toHaveCount(
    0,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
