/**
 * Flow 3 — the cockpit. Seeded through the API: the company's data (so invoices can become
 * FINAL), a customer, issued invoices (one overdue, one part-paid), a supplier's bill
 * (payables), an expense, a cash anchor and a budget. The cockpit must show exactly the
 * API's figures (`GET /v1/dashboard/stats`, `…/timeseries`) in the account's money format,
 * and each figure must lead to the list behind it.
 */
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { seedUploadedPdf } from './support/billing-seed';
import { ownerApi, signInAsOwner, type Api } from './support/owner';
import { screenshot } from './support/screenshot';

const kontor = kontorPerFile();

/** YYYY-MM-DD of today (UTC, as the API counts) plus `days`. */
function day(days = 0): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

// The account's default number format is "1.234,56" with EUR.
const money = (amount: number) =>
  new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(amount);

async function setCompany(api: Api) {
  const settings = await api.GET('/v1/account/addresses');
  if (settings.error) throw new Error(JSON.stringify(settings.error));
  const put = await api.PUT('/v1/account/company', {
    body: {
      version: settings.data.version,
      legalName: 'Muster Werkstatt GmbH',
      address: { street: 'Hauptstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
      vatId: 'DE123456788',
      taxNumber: null,
      registerCourt: null,
      registerNumber: null,
      managingDirectors: [],
      email: 'buero@example.com',
      phone: null,
      website: null,
      electronicAddress: null,
      bankAccounts: [
        { iban: 'DE89370400440532013000', bic: null, accountHolder: null, bankName: null },
      ],
      smallBusiness: false,
      defaultPaymentTermDays: 14,
    },
  });
  if (put.error) throw new Error(`company: ${JSON.stringify(put.error)}`);
}

async function finalInvoice(
  api: Api,
  partnerId: string,
  name: string,
  unitPrice: number,
  created: string,
  due: string,
) {
  const { data, error } = await api.POST('/v1/documents', {
    body: {
      documentType: 'INVOICE',
      name,
      partnerId,
      creationDate: created,
      deliveryDate: created,
      dueDate: due,
      status: 'FINAL',
      lineItems: [{ description: name, quantity: 1, unitPrice }],
    },
  });
  if (error) throw new Error(`invoice: ${JSON.stringify(error)}`);
  return data;
}

/** A supplier's bill: an uploaded PDF, FINAL, due `due` (a payable). */
async function receivedBill(api: Api, partnerId: string, unitPrice: number, due: string) {
  const fileId = await seedUploadedPdf(api, kontor().url, 'lieferant.pdf');
  const { data, error } = await api.POST('/v1/documents', {
    body: {
      documentType: 'INVOICE',
      source: 'UPLOADED',
      fileId,
      name: 'Rechnung Bürobedarf',
      documentNumber: 'L-4711',
      partnerId,
      creationDate: day(-40),
      dueDate: due,
      status: 'FINAL',
      lineItems: [{ description: 'Papier', quantity: 1, unitPrice }],
    },
  });
  if (error) throw new Error(`bill: ${JSON.stringify(error)}`);
  return data;
}

async function seed(api: Api) {
  await setCompany(api);
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
  const vendor = await api.POST('/v1/partners', {
    body: { name: 'Papier & Co. KG', type: 'VENDOR' },
  });
  if (vendor.error) throw new Error(JSON.stringify(vendor.error));

  // Open and overdue receivables; one part-paid (a settled payment reduces what is open).
  await finalInvoice(api, customer.data.id, 'Reparatur Ofen', 1000, day(-45), day(-15));
  const partPaid = await finalInvoice(api, customer.data.id, 'Wartung', 500, day(-5), day(25));
  const paid = await api.POST('/v1/payments', {
    body: { documentId: partPaid.id, amount: 200, currency: 'EUR', paymentDate: day(-1) },
  });
  if (paid.error) throw new Error(JSON.stringify(paid.error));
  // A payable, overdue.
  await receivedBill(api, vendor.data.id, 300, day(-10));
  // An expense without invoice, and a pending payment (must not count as receivable).
  await api.POST('/v1/payments', {
    body: {
      direction: 'OUTGOING',
      partnerId: vendor.data.id,
      amount: 120.5,
      currency: 'EUR',
      paymentDate: day(-2),
    },
  });
  await api.POST('/v1/payments', {
    body: { amount: 99, currency: 'EUR', paymentDate: day(), status: 'PENDING' },
  });
  const anchor = await api.PUT('/v1/dashboard/cash-anchor', {
    body: { openingBalance: 5000, effectiveDate: day(-60) },
  });
  if (anchor.error) throw new Error(JSON.stringify(anchor.error));
  const reminder = await api.POST('/v1/notes', {
    body: {
      parentType: 'PARTNER',
      parentId: customer.data.id,
      type: 'REMINDER',
      title: 'Wartungsvertrag anbieten',
      content: '',
      dueDate: day(3),
    },
  });
  if (reminder.error) throw new Error(JSON.stringify(reminder.error));
  const budget = await api.POST('/v1/budget-categories', {
    body: { name: 'Material', monthlyLimit: 800, currency: 'EUR', keywords: [], active: true },
  });
  if (budget.error) throw new Error(JSON.stringify(budget.error));
}

test('the cockpit shows the API figures and each leads to its list', async ({ page }) => {
  test.setTimeout(120_000);
  const api = await ownerApi(kontor());
  await seed(api);
  const stats = await api.GET('/v1/dashboard/stats');
  if (stats.error) throw new Error(JSON.stringify(stats.error));
  const s = stats.data;
  // The seed really produced figures: the test compares something.
  expect(s.receivables.count).toBe(2);
  expect(s.overdueReceivables.count).toBe(1);
  expect(s.payables.count).toBe(1);
  expect(s.balance).not.toBeNull();

  await signInAsOwner(page, kontor(), '/');
  await expect(page.getByRole('heading', { name: 'Cockpit' })).toBeVisible();

  const figure = (name: string) => page.getByRole('link', { name: new RegExp(`^${name}`) });
  await expect(figure('Kontostand')).toContainText(money(s.balance ?? 0));
  await expect(figure('Offene Forderungen')).toContainText(money(s.receivables.amount));
  await expect(figure('Offene Forderungen')).toContainText('Rechnungen: 2');
  await expect(figure('Überfällige Forderungen')).toContainText(money(s.overdueReceivables.amount));
  await expect(figure('Offene Verbindlichkeiten')).toContainText(money(s.payables.amount));
  await expect(figure('Überfällige Verbindlichkeiten')).toContainText(
    money(s.overduePayables.amount),
  );

  // The chart: one image with a summary, its figures in a table for screen readers.
  const series = await api.GET('/v1/dashboard/timeseries', {
    params: { query: { interval: 'month' } },
  });
  if (series.error) throw new Error(JSON.stringify(series.error));
  const buckets = series.data.buckets;
  expect(buckets).toHaveLength(12);
  await expect(page.getByRole('img', { name: /Balkendiagramm/ })).toBeVisible();
  const table = page.getByRole('table', { name: 'Einnahmen und Ausgaben je Monat' });
  await expect(table.getByRole('row')).toHaveCount(13);
  const current = buckets.at(-1)!;
  await expect(table.getByRole('row').last()).toContainText(money(current.income));
  await expect(table.getByRole('row').last()).toContainText(money(current.expense));

  // Budgets from the stats.
  await expect(page.getByRole('row', { name: /Material/ })).toContainText(money(800));

  await expectNoAxeViolations(page);
  // The pointer off the figures: the picture shows them at rest.
  await page.mouse.move(0, 0);
  await screenshot(page, 'cockpit');

  // Each figure leads to its list.
  await figure('Überfällige Forderungen').click();
  await expect(page.getByRole('heading', { name: 'Rechnungen' })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('status')).toBe('overdue');
  await page.goBack();
  await figure('Offene Verbindlichkeiten').click();
  await expect(page.getByRole('heading', { name: 'Rechnungen' })).toBeVisible();
  const payables = new URL(page.url()).searchParams;
  expect([payables.get('status'), payables.get('source')]).toEqual(['open', 'UPLOADED']);
  await page.goBack();
  await figure('Kontostand').click();
  await expect(page.getByRole('heading', { name: 'Bank' })).toBeVisible();
  await page.goBack();
  // A reminder leads to the notes of its partner.
  expect(s.reminders.count).toBe(1);
  await page.getByRole('link', { name: /Wartungsvertrag anbieten/ }).click();
  await expect(page.getByRole('heading', { name: 'Bäckerei Sonnenschein' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Wartungsvertrag anbieten/ })).toBeVisible();
});
