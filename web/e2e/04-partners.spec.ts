/**
 * Flow 4 — customers and vendors. A partner is created through the form: a VAT id the API
 * refuses shows on its field with everything typed kept, the fixed one saves. The search finds
 * "Müller" by "muller" (the API's accent-insensitive `q`). 10 000 partners are seeded through
 * the API (no batch route: concurrent POSTs, a pool of 16; ≈ 30 s on the 2-core machine) and
 * the list pages forward and back through them by the API's cursor. The detail page's tabs
 * show the partner's invoice, payment and note; a concurrent change offers "reload and keep
 * my edits".
 *
 * Rate limits are lifted for this file's Kontor (`RATE_LIMITS=off`, as for benchmarks): the
 * FREE plan allows 120 requests a minute, the seeding makes 10 000.
 */
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations } from './support/axe';
import { kontorPerFile } from './support/kontor';
import { ownerApi, signInAsOwner, type Api } from './support/owner';
import { screenshot } from './support/screenshot';

const previousRateLimits = process.env.RATE_LIMITS;
// Registered before kontorPerFile's hook, so it runs first: the server starts with it.
test.beforeAll(() => {
  process.env.RATE_LIMITS = 'off';
});
test.afterAll(() => {
  if (previousRateLimits === undefined) delete process.env.RATE_LIMITS;
  else process.env.RATE_LIMITS = previousRateLimits;
});
const kontor = kontorPerFile();

const SEEDED = 10_000;
const POOL = 16;

/** Creates `count` customers "Kunde 00001" … through concurrent POSTs; answers the ms taken. */
async function seedPartners(api: Api, count: number): Promise<number> {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = ++next;
      const { error } = await api.POST('/v1/partners', {
        body: {
          name: `Kunde ${String(index).padStart(5, '0')}`,
          tags: index % 2 === 0 ? ['gerade'] : [],
        },
      });
      if (error) throw new Error(`seed ${index}: ${JSON.stringify(error)}`);
    }
  };
  await Promise.all(Array.from({ length: POOL }, worker));
  return Date.now() - started;
}

/** Müller with an invoice, a payment and a note: what the detail tabs must show. */
async function seedMueller(api: Api) {
  const partner = await api.POST('/v1/partners', {
    body: {
      name: 'Müller Bau GmbH',
      tags: ['bau'],
      addresses: [{ type: 'BILLING', city: 'München', postalCode: '80331', country: 'DE' }],
    },
  });
  if (partner.error) throw new Error(JSON.stringify(partner.error));
  const id = partner.data.id;
  const invoice = await api.POST('/v1/documents', {
    body: {
      documentType: 'INVOICE',
      name: 'Rechnung Dachsanierung',
      partnerId: id,
      creationDate: new Date().toISOString().slice(0, 10),
      lineItems: [{ description: 'Dachsanierung', quantity: 1, unitPrice: 2500 }],
    },
  });
  if (invoice.error) throw new Error(JSON.stringify(invoice.error));
  const payment = await api.POST('/v1/payments', {
    body: {
      partnerId: id,
      amount: 750,
      currency: 'EUR',
      paymentDate: new Date().toISOString().slice(0, 10),
    },
  });
  if (payment.error) throw new Error(JSON.stringify(payment.error));
  const note = await api.POST('/v1/notes', {
    body: {
      parentType: 'PARTNER',
      parentId: id,
      title: 'Rückruf wegen Gerüst',
      content: 'Herr Müller bittet um Rückruf.',
    },
  });
  if (note.error) throw new Error(JSON.stringify(note.error));
  return partner.data;
}

/** Timings go into the report's annotations (the list reporter has no place for them). */
function measured(type: string, description: string) {
  test.info().annotations.push({ type, description });
}

const rows = (page: Page) =>
  page.getByRole('table', { name: 'Kunden und Lieferanten' }).locator('tbody tr');

test('create with a refused VAT id, search with umlauts, page through 10 000, detail tabs, conflict', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const api = await ownerApi(kontor());
  const mueller = await seedMueller(api);
  const ms = await seedPartners(api, SEEDED);
  measured('seed', `${SEEDED} partners in ${ms} ms (${POOL} concurrent POSTs)`);

  // Create: the API refuses the VAT id; the error is on its field and nothing typed is lost.
  await signInAsOwner(page, kontor(), '/partners/new');
  await expect(page.getByRole('heading', { name: 'Neuer Kunde oder Lieferant' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('Schmidt & Söhne KG');
  await page.getByLabel('Ort', { exact: true }).fill('Köln');
  await page.getByLabel('USt-IdNr.').fill('DE12345');
  await page.getByRole('button', { name: 'Anlegen' }).click();
  const vat = page.getByLabel('USt-IdNr.');
  await expect(vat).toHaveAttribute('aria-invalid', 'true');
  await expect(vat).toBeFocused();
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Schmidt & Söhne KG');
  await expect(page.getByLabel('Ort', { exact: true })).toHaveValue('Köln');
  await expectNoAxeViolations(page);
  await vat.fill('DE123456788');
  await page.getByRole('button', { name: 'Anlegen' }).click();
  await expect(page.getByRole('heading', { name: 'Schmidt & Söhne KG' })).toBeVisible();
  const created = await api.GET('/v1/partners', { params: { query: { q: 'schmidt' } } });
  const schmidt = (
    created.data as { data: { vatId: string | null; addresses: { city?: string }[] }[] }
  ).data[0];
  expect(schmidt?.vatId).toBe('DE123456788');
  expect(schmidt?.addresses[0]?.city).toBe('Köln');

  // Search: "muller" finds Müller (the API's accent-insensitive q); the filter is in the URL.
  await page.getByRole('link', { name: 'Kunden & Lieferanten' }).first().click();
  await expect(rows(page)).toHaveCount(25);
  await page.getByLabel('Suche').fill('muller');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Müller Bau GmbH');
  expect(new URL(page.url()).searchParams.get('q')).toBe('muller');

  // Tag filter and type filter through the API's `tag` and `type`.
  await page.getByLabel('Suche').fill('');
  await page.getByLabel('Schlagwort').fill('bau');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await expect(rows(page)).toHaveCount(1);
  await page.getByLabel('Schlagwort').fill('');
  await page.getByLabel('Art', { exact: true }).selectOption('vendor');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await expect(page.getByText('Keine Kunden oder Lieferanten gefunden.')).toBeVisible();
  await page.getByLabel('Art', { exact: true }).selectOption('');
  await page.getByRole('button', { name: 'Filtern' }).click();

  // Paging through 10 000 by cursor: forward twice, back once, each page quick.
  await expect(rows(page)).toHaveCount(25);
  const first = (await rows(page).first().textContent()) ?? '';
  const pager = page.getByRole('navigation', { name: 'Seiten' });
  let started = Date.now();
  await pager.getByRole('link', { name: 'Nächste Seite' }).click();
  await expect(rows(page).first()).not.toHaveText(first);
  await expect(pager.getByText('Seite 2')).toBeVisible();
  const secondPage = (await rows(page).first().textContent()) ?? '';
  measured('page 2', `${Date.now() - started} ms`);
  started = Date.now();
  await pager.getByRole('link', { name: 'Nächste Seite' }).click();
  await expect(pager.getByText('Seite 3')).toBeVisible();
  await expect(rows(page).first()).not.toHaveText(secondPage);
  measured('page 3', `${Date.now() - started} ms`);
  // A page is a link: reloading it shows the same page.
  const third = (await rows(page).first().textContent()) ?? '';
  await page.reload();
  await expect(rows(page).first()).toHaveText(third);
  await pager.getByRole('link', { name: 'Vorherige Seite' }).click();
  await expect(rows(page).first()).toHaveText(secondPage);
  await pager.getByRole('link', { name: 'Vorherige Seite' }).click();
  await expect(rows(page).first()).toHaveText(first);
  await expectNoAxeViolations(page);
  await screenshot(page, 'partners');

  // Detail tabs, each from the API.
  await page.getByLabel('Suche').fill('müller');
  await page.getByRole('button', { name: 'Filtern' }).click();
  await page.getByRole('link', { name: 'Müller Bau GmbH' }).click();
  await expect(page.getByRole('heading', { name: 'Müller Bau GmbH' })).toBeVisible();
  const tabs = page.getByRole('navigation', { name: 'Bereiche des Kontakts' });
  await tabs.getByRole('link', { name: 'Rechnungen' }).click();
  await expect(page.getByRole('row', { name: /Rechnung Dachsanierung/ })).toContainText(
    '2.975,00 €',
  );
  await expectNoAxeViolations(page);
  await screenshot(page, 'partner-detail');
  await tabs.getByRole('link', { name: 'Zahlungen' }).click();
  await expect(page.getByRole('table', { name: 'Zahlungen' })).toContainText('750,00 €');
  await tabs.getByRole('link', { name: 'Verträge' }).click();
  await expect(page.getByText('Keine Verträge.')).toBeVisible();
  await tabs.getByRole('link', { name: 'Notizen & Erinnerungen' }).click();
  await expect(page.getByRole('row', { name: /Rückruf wegen Gerüst/ })).toBeVisible();
  // A reminder without its due day: the API's refusal shows on the field, the title stays.
  const noteForm = page.getByRole('form', { name: 'Neue Notiz oder Erinnerung' });
  await noteForm.getByLabel('Titel').fill('Angebot nachfassen');
  await noteForm.getByLabel('Art').selectOption('REMINDER');
  await noteForm.getByRole('button', { name: 'Hinzufügen' }).click();
  await expect(noteForm.getByLabel('Fällig')).toHaveAttribute('aria-invalid', 'true');
  await expect(noteForm.getByLabel('Titel')).toHaveValue('Angebot nachfassen');
  await expectNoAxeViolations(page);
  await noteForm
    .getByLabel('Fällig')
    .fill(new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
  await noteForm.getByRole('button', { name: 'Hinzufügen' }).click();
  await expect(page.getByRole('row', { name: /Angebot nachfassen/ })).toContainText('Erinnerung');
  const notes = await api.GET('/v1/notes', {
    params: { query: { parentType: 'PARTNER', parentId: mueller.id, type: 'REMINDER' } },
  });
  expect((notes.data as { data: { title: string }[] }).data.map((n) => n.title)).toEqual([
    'Angebot nachfassen',
  ]);

  // Edit while someone else changes the partner: 409 → reload and keep my edits → saved.
  await tabs.getByRole('link', { name: 'Daten' }).click();
  await page.getByLabel('Website').fill('https://mueller-bau.example.com');
  const current = await api.GET('/v1/partners/{partnerId}', {
    params: { path: { partnerId: mueller.id } },
  });
  const other = await api.PUT('/v1/partners/{partnerId}', {
    params: { path: { partnerId: mueller.id } },
    body: { version: current.data!.version, description: 'Von jemand anderem geändert' },
  });
  expect(other.error).toBeUndefined();
  await page.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByRole('alert')).toContainText('inzwischen geändert');
  await page.getByRole('button', { name: 'Neu laden und meine Eingaben behalten' }).click();
  await expect(page.getByLabel('Website')).toHaveValue('https://mueller-bau.example.com');
  await page.getByRole('button', { name: 'Speichern' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Gespeichert.' })).toBeVisible();
  const saved = await api.GET('/v1/partners/{partnerId}', {
    params: { path: { partnerId: mueller.id } },
  });
  expect(saved.data?.website).toBe('https://mueller-bau.example.com');
  // The other writer's change to a field this user did not touch stays.
  expect(saved.data?.description).toBe('Von jemand anderem geändert');
  await expect(page.getByLabel('Beschreibung')).toHaveValue('Von jemand anderem geändert');
  await expectNoAxeViolations(page);
});
