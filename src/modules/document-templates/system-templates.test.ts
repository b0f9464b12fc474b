import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  auditCount,
  buildTestApp,
  createUser,
  email,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import {
  CREDIT_NOTE_TEMPLATE,
  OLD_CREDIT_NOTE_TEMPLATE,
  renameCreditNoteTemplates,
} from '../../db/migrations/0023_credit_note_titles.js';
import {
  ensureSystemTemplate,
  ensureSystemTemplates,
  renderLimitOf,
  rendersEveryDocument,
  SYSTEM_TEMPLATES,
} from './system-templates.js';
import { systemSourceHash } from '../../db/migrations/0034_system_template_sources.js';
import { OWN_SOURCES } from '../../shared/templating/index.js';
import { settleAudit } from '../../shared/audit.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
});
afterAll(() => t.close());

const URL = '/v1/document-templates';
type Template = Record<string, unknown> & {
  id: string;
  name: string;
  systemKey: string | null;
  contentSource: string;
  compiledContentHtml: string;
};

type Key = 'TERMINATION' | 'NOTICE' | 'INVOICE' | 'CREDIT_NOTE';
const systemTemplate = async (key: Key, who = user) => {
  const res = await t.request({ method: 'GET', url: `${URL}?systemKey=${key}`, token: who.token });
  return (res.json<{ data: Template[] }>().data[0] ?? null) as Template;
};
const put = (id: string, payload: Record<string, unknown>, who = user) =>
  t.request({ method: 'PUT', url: `${URL}/${id}`, token: who.token, payload });
const compile = (payload: Record<string, unknown>, who = user) =>
  t.request({ method: 'POST', url: `${URL}/compile`, token: who.token, payload });
/** The writable body of a stored template, as a client would send it back. */
const bodyOf = (tpl: Template) => ({
  name: tpl.name,
  contentSource: tpl.contentSource,
  footerSource: tpl.footerSource,
  fields: tpl.fields,
  systemKey: tpl.systemKey,
});
/** The words of a letter: style block and tags removed, entities and spaces normalised. */
const text = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

const realData = {
  today: '2026-11-21',
  partner: {
    name: 'Stadtwerke Beispielstadt GmbH',
    addresses: [
      { type: 'OFFICE', street: 'Falsche Straße 1', postalCode: '99999', city: 'Nirgendwo' },
      {
        type: 'BILLING',
        name: 'Kundenservice',
        street: 'Am Markt 5',
        postalCode: '20095',
        city: 'Hamburg',
        country: 'DE',
      },
    ],
  },
  contract: {
    name: 'Stromliefervertrag Büro',
    startDate: '2024-02-01',
    endDate: '2027-01-31',
    totalValue: 2400,
    currency: 'EUR',
    cancellationDeadline: '2026-12-31',
    nextRenewalDate: '2027-01-31',
    advanced: { autoRenew: true, renewalMonths: 12, noticePeriodDays: 31 },
  },
};

describe('system templates', () => {
  it('are seeded for a new account registered over HTTP, audited in the same transaction', async () => {
    const address = email('tpl');
    const res = await t.request({
      method: 'POST',
      url: '/v1/auth/register',
      // A client of its own: per-IP mail caps live in Redis across runs.
      remoteAddress: `10.9.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`,
      payload: {
        email: address,
        password: PASSWORD,
        name: 'Erika Muster',
        companyName: 'Muster Handwerk GmbH',
      },
    });
    expect(res.statusCode).toBe(202);
    await mailsTo(t, address); // the account exists once its code is mailed
    const { account_id: accountId } = await t.app.ctx.db
      .selectFrom('users')
      .select('account_id')
      .where('email', '=', address)
      .executeTakeFirstOrThrow();
    const rows = await t.app.ctx.db
      .selectFrom('document_templates')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('system_key')
      .execute();
    expect(rows.map((r) => [r.system_key, r.name, r.status, r.document_type])).toEqual([
      ['CREDIT_NOTE', 'Rechnungskorrektur / Stornorechnung', 'PUBLISHED', 'INVOICE'],
      ['DUNNING', 'Mahnung', 'PUBLISHED', 'LETTER'],
      ['INVOICE', 'Rechnung', 'PUBLISHED', 'INVOICE'],
      ['NOTICE', 'Mitteilung', 'PUBLISHED', 'LETTER'],
      ['ORDER_CONFIRMATION', 'Auftragsbestätigung', 'PUBLISHED', 'OFFER'],
      ['PAYMENT_REMINDER', 'Zahlungserinnerung', 'PUBLISHED', 'LETTER'],
      ['QUOTE', 'Angebot', 'PUBLISHED', 'OFFER'],
      ['TERMINATION', 'Kündigung', 'PUBLISHED', 'LETTER'],
    ]);
    expect(rows[7]!.compiled_content_html).toContain('Muster Handwerk GmbH');
    expect(rows[2]!.compiled_content_html).toContain('Muster Handwerk GmbH');
    expect(rows[5]!.compiled_content_html).toContain('Zahlungserinnerung zur Rechnung');
    expect(rows[1]!.compiled_content_html).toContain('Mahnung zur Rechnung');
    // The account is made after the answer; PostgreSQL chains its events just after that.
    await settleAudit(t.app.ctx.db);
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'resource_id', 'actor_type'])
      .where('account_id', '=', accountId)
      .where('action', '=', 'document_template.created')
      .execute();
    expect(events.map((e) => e.resource_id).sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it('are seeded for factory users too, PUBLISHED, in German', async () => {
    const termination = await systemTemplate('TERMINATION');
    const notice = await systemTemplate('NOTICE');
    expect(termination).toMatchObject({
      name: 'Kündigung',
      status: 'PUBLISHED',
      documentType: 'LETTER',
      systemKey: 'TERMINATION',
    });
    expect(notice).toMatchObject({ name: 'Mitteilung', status: 'PUBLISHED', systemKey: 'NOTICE' });
    expect(termination.contentSource).toContain('Kündigung des Vertrags {{ contract.name }}');
    expect(notice.fields).toEqual([
      {
        key: 'mitteilung',
        label: 'Text der Mitteilung',
        type: 'text',
        required: true,
        default: null,
      },
    ]);
    // The stored preview: sample records, German wording, account formats.
    const preview = text(termination.compiledContentHtml);
    expect(preview).toContain('Test GmbH'); // sender line and signature
    expect(preview).toContain(
      'Muster & Partner GmbH z. Hd. Frau Erika Mustermann Beispielweg 12 50667 Köln',
    );
    expect(preview).toContain('Kündigung des Vertrags Wartungsvertrag Heizungsanlage');
    expect(preview).toContain('Sehr geehrte Damen und Herren,');
    expect(preview).toMatch(/vom 01\.01\.\d{4} ordentlich und fristgerecht zum 31\.12\.\d{4}\./);
    expect(preview).toMatch(
      /beträgt 90 Tage; sie ist gewahrt, wenn Ihnen diese Kündigung spätestens am 02\.10\.\d{4} zugeht/,
    );
    expect(preview).toContain(
      'Einer stillschweigenden Verlängerung des Vertrags widersprechen wir hiermit ausdrücklich.',
    );
    expect(preview).toContain('Mit freundlichen Grüßen');
    expect(termination.compiledFooterHtml).toContain('Test GmbH');
  });

  it('render a termination letter from real records, DIN 5008 style', async () => {
    const termination = await systemTemplate('TERMINATION');
    const res = await compile({ ...bodyOf(termination), systemKey: undefined, data: realData });
    expect(res.statusCode).toBe(200);
    const result = res.json();
    expect(result.problems).toEqual([]);
    const letter = text(result.compiledContentHtml);
    // Recipient block from the partner's billing address, not the office one.
    expect(letter).toContain(
      'Stadtwerke Beispielstadt GmbH Kundenservice Am Markt 5 20095 Hamburg',
    );
    expect(letter).not.toContain('Nirgendwo');
    expect(letter).toContain('Hamburg 21.11.2026 Kündigung'); // place and date line
    expect(letter).toContain('Kündigung des Vertrags Stromliefervertrag Büro');
    expect(letter).toContain(
      'hiermit kündigen wir den mit Ihnen bestehenden Vertrag „Stromliefervertrag Büro“ vom 01.02.2024 ordentlich und fristgerecht zum 31.01.2027.',
    );
    expect(letter).toContain(
      'Die vertragliche Kündigungsfrist beträgt 31 Tage; sie ist gewahrt, wenn Ihnen diese Kündigung spätestens am 31.12.2026 zugeht.',
    );
    expect(letter.indexOf('Sehr geehrte')).toBeLessThan(letter.indexOf('Mit freundlichen Grüßen'));
  });

  it('render a notice letter only with its required text', async () => {
    const notice = await systemTemplate('NOTICE');
    const without = (await compile({ ...bodyOf(notice), data: realData })).json();
    expect(without.problems).toEqual([
      expect.objectContaining({ code: 'missing_required_field', placeholder: 'fields.mitteilung' }),
    ]);
    const withText = (
      await compile({
        ...bodyOf(notice),
        data: {
          ...realData,
          fields: {
            mitteilung:
              'Ab 1. Januar ändert sich unsere Bankverbindung.\nBitte beachten Sie <das>.',
          },
        },
      })
    ).json();
    expect(withText.problems).toEqual([]);
    expect(withText.compiledContentHtml).toContain(
      'Ab 1. Januar ändert sich unsere Bankverbindung.<br />\nBitte beachten Sie &lt;das&gt;.',
    );
    const letter = text(withText.compiledContentHtml);
    expect(letter).toContain('Mitteilung zum Vertrag Stromliefervertrag Büro');
    expect(letter).toContain(
      'Der Vertrag läuft derzeit bis zum 31.01.2027 und verlängert sich ohne Kündigung um jeweils 12 Monate. Eine Kündigung zu diesem Termin ist bis zum 31.12.2026 möglich (Kündigungsfrist: 31 Tage).',
    );
  });

  it.each(['TERMINATION', 'INVOICE'] as const)('cannot be deleted (%s)', async (key) => {
    const template = await systemTemplate(key);
    const before = await auditCount(t, user.accountId);
    const res = await t.request({
      method: 'DELETE',
      url: `${URL}/${template.id}`,
      token: user.token,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'state_conflict',
      detail: 'System templates cannot be deleted.',
    });
    expect(await systemTemplate(key)).toMatchObject({ id: template.id });
    expect(await auditCount(t, user.accountId)).toBe(before);
  });

  it('keep their systemKey: changing or removing it is 409, repeating it is fine', async () => {
    const owner = await createUser(t);
    const notice = await systemTemplate('NOTICE', owner);
    for (const systemKey of ['TERMINATION', null]) {
      const res = await put(notice.id, { version: 1, systemKey }, owner);
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('state_conflict');
    }
    const same = await put(
      notice.id,
      { version: 1, systemKey: 'NOTICE', name: 'Mitteilung (eigene)' },
      owner,
    );
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({
      systemKey: 'NOTICE',
      name: 'Mitteilung (eigene)',
      version: 2,
    });
    // A user template cannot take a system key either.
    const own = (
      await t.request({
        method: 'POST',
        url: URL,
        token: owner.token,
        payload: { name: 'Eigene', contentSource: 'x' },
      })
    ).json();
    const steal = await put(own.id, { version: 1, systemKey: 'TERMINATION' }, owner);
    expect(steal.statusCode).toBe(409);
    expect((await systemTemplate('TERMINATION', owner)).name).toBe('Kündigung');
  });

  it('can be edited; a PUBLISHED edit must stay free of problems', async () => {
    const owner = await createUser(t);
    const termination = await systemTemplate('TERMINATION', owner);
    const broken = await put(
      termination.id,
      { version: 1, contentSource: '<p>{{ contract.nme }}</p>' },
      owner,
    );
    expect(broken.statusCode).toBe(422);
    const edited = await put(
      termination.id,
      {
        version: 1,
        contentSource: `${termination.contentSource}<p>PS: Bitte senden Sie uns die Schlussrechnung.</p>`,
      },
      owner,
    );
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({
      status: 'PUBLISHED',
      systemKey: 'TERMINATION',
      version: 2,
    });
    expect(edited.json().compiledContentHtml).toContain('Schlussrechnung');
  });

  it('include the invoice layout, PUBLISHED, previewed with the account’s company', async () => {
    const invoice = await systemTemplate('INVOICE');
    const credit = await systemTemplate('CREDIT_NOTE');
    expect(invoice).toMatchObject({
      name: 'Rechnung',
      documentType: 'INVOICE',
      status: 'PUBLISHED',
      systemKey: 'INVOICE',
      fields: [],
    });
    expect(credit).toMatchObject({
      name: 'Rechnungskorrektur / Stornorechnung',
      documentType: 'INVOICE',
      status: 'PUBLISHED',
      systemKey: 'CREDIT_NOTE',
    });
    // The sample invoice with the factory account's real company data.
    const preview = text(invoice.compiledContentHtml);
    expect(preview).toContain('Test GmbH · Musterstraße 1 · 10115 Berlin');
    expect(preview).toMatch(/Rechnungsnummer \d{4}-0001/);
    expect(preview).toContain('Bestellnummer B-4711');
    expect(preview).toContain(
      '1 Wartung Heizungsanlage (Jahrespauschale) 1 pauschal 850,00 € 19 %',
    );
    expect(preview).toContain('USt. 19 % auf 941,00 € 178,79 €');
    expect(preview).toContain('Gesamtbetrag 1.151,78 €');
    expect(preview).toMatch(/Bei Zahlung bis zum [\d.]+: 2 % Skonto \(23,04 €\)/);
    expect(text(invoice.compiledFooterHtml as string)).toContain(
      'IBAN DE02 1203 0000 0000 2020 51',
    );
  });

  it('write the invoice layout in English for an English partner, a credit note as such', async () => {
    const invoice = await systemTemplate('INVOICE');
    const res = await compile({
      ...bodyOf(invoice),
      data: {
        today: '2026-05-04',
        partner: {
          name: 'Acme Ltd',
          language: 'en',
          addresses: [{ type: 'BILLING', country: 'GB' }],
        },
        document: { documentNumber: 'GS-2026-0001', invoiceType: 'CREDIT_NOTE' },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().problems).toEqual([]);
    const letter = text(res.json().compiledContentHtml);
    expect(letter).toContain('Acme Ltd');
    expect(letter).toContain('UNITED KINGDOM');
    expect(letter).toContain('Credit note GS-2026-0001');
    expect(letter).toContain('Credit note number GS-2026-0001');
    expect(letter).not.toContain('Payment terms');
  });

  it('are added to an account that predates them, once, on first use', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    // An account made before the invoice layout existed.
    await db
      .deleteFrom('document_templates')
      .where('account_id', '=', owner.accountId)
      .where('system_key', 'in', ['INVOICE', 'CREDIT_NOTE'])
      .execute();
    const before = await auditCount(t, owner.accountId);
    // Two first uses at once: the unique (account, systemKey) index lets one seed win.
    const [a, b] = await Promise.all([
      ensureSystemTemplates(db, owner.accountId),
      ensureSystemTemplates(db, owner.accountId),
    ]);
    expect([...a, ...b].map((r) => r.system_key).sort()).toEqual(['CREDIT_NOTE', 'INVOICE']);
    await settleAudit(db);
    expect(await auditCount(t, owner.accountId)).toBe(before + 2);
    const events = await db
      .selectFrom('audit_events')
      .select(['actor_type', 'resource_id'])
      .where('account_id', '=', owner.accountId)
      .where('action', '=', 'document_template.created')
      .execute();
    expect(events.filter((e) => e.actor_type === 'system')).toHaveLength(2);

    const listed = await systemTemplate('INVOICE', owner);
    expect(listed).toMatchObject({ name: 'Rechnung', status: 'PUBLISHED' });
    expect((await ensureSystemTemplate(db, owner.accountId, 'INVOICE')).id).toBe(listed.id);
    expect(await auditCount(t, owner.accountId)).toBe(before + 2);

    // Listing seeds too: where clients look for the layout.
    await db
      .deleteFrom('document_templates')
      .where('account_id', '=', owner.accountId)
      .where('system_key', '=', 'CREDIT_NOTE')
      .execute();
    expect(await systemTemplate('CREDIT_NOTE', owner)).toMatchObject({
      name: 'Rechnungskorrektur / Stornorechnung',
    });
  });

  it('never title a credit note "Gutschrift" (§ 14 (2) Satz 2 UStG: self-billing)', () => {
    for (const tpl of SYSTEM_TEMPLATES)
      expect(`${tpl.name} ${tpl.contentSource} ${tpl.footerSource}`).not.toMatch(/gutschrift/i);
  });

  it('are renamed on installations seeded with "Gutschrift", unless the account named it', async () => {
    const seeded = await createUser(t);
    const named = await createUser(t);
    const db = t.app.ctx.db;
    const rename = (who: TestUser, name: string) =>
      db
        .updateTable('document_templates')
        .set({ name, search_name: name.toLowerCase() })
        .where('account_id', '=', who.accountId)
        .where('system_key', '=', 'CREDIT_NOTE')
        .execute();
    await rename(seeded, OLD_CREDIT_NOTE_TEMPLATE);
    await rename(named, 'Meine Korrekturen');
    const before = await systemTemplate('CREDIT_NOTE', seeded);
    await renameCreditNoteTemplates(db as never, new Date('2026-11-28T09:00:00Z'));
    const after = await systemTemplate('CREDIT_NOTE', seeded);
    expect(after).toMatchObject({
      id: before.id,
      name: CREDIT_NOTE_TEMPLATE,
      version: (before.version as number) + 1,
      updatedAt: '2026-11-28T09:00:00.000Z',
    });
    expect(CREDIT_NOTE_TEMPLATE).toBe('Rechnungskorrektur / Stornorechnung');
    const found = await t.request({
      method: 'GET',
      url: `${URL}?q=stornorechnung`,
      token: seeded.token,
    });
    expect(found.json<{ data: Template[] }>().data.map((d) => d.id)).toEqual([before.id]);
    expect(await systemTemplate('CREDIT_NOTE', named)).toMatchObject({ name: 'Meine Korrekturen' });
  });
});

describe('the render budget of a template', () => {
  const stored = async (key: Key, who = user) => {
    const tpl = await systemTemplate(key, who);
    return t.app.ctx.db
      .selectFrom('document_templates')
      .selectAll()
      .where('id', '=', tpl.id)
      .executeTakeFirstOrThrow();
  };
  /** The account's INVOICE template edited through the API. */
  const editInvoice = async (owner: TestUser) => {
    const tpl = await systemTemplate('INVOICE', owner);
    const edited = await put(
      tpl.id,
      { version: tpl.version, contentSource: `${tpl.contentSource}\n<p>Danke!</p>` },
      owner,
    );
    expect(edited.statusCode).toBe(200);
  };

  it('none for Kontor’s own sources (nor caps without fields), the configured one once an account edits them', async () => {
    const owner = await createUser(t);
    const own = await stored('INVOICE', owner);
    expect(renderLimitOf(own, 500)).toBe(OWN_SOURCES);
    // A field's value is not bounded by the API: the caps stay.
    expect(renderLimitOf(await stored('NOTICE', owner), 500)).toBe(Infinity);
    await editInvoice(owner);
    expect(renderLimitOf(await stored('INVOICE', owner), 500)).toBe(500);
    // An account's own template, and a system row whose edit state is unknown, keep the budget.
    expect(renderLimitOf({ ...own, system_key: null }, 500)).toBe(500);
    expect(renderLimitOf({ ...own, system_source_hash: null }, 500)).toBe(500);
  });

  it('a draft is not tried in Kontor’s current sources without fields, in every other template it is', async () => {
    const owner = await createUser(t);
    for (const key of ['INVOICE', 'CREDIT_NOTE', 'TERMINATION'] as const)
      expect(rendersEveryDocument(await stored(key, owner)), key).toBe(true);
    // A required field can go missing.
    expect(rendersEveryDocument(await stored('NOTICE', owner))).toBe(false);
    const own = await stored('INVOICE', owner);
    // Kontor's sources of an earlier layout, not yet upgraded: their own, but not the ones tested.
    const earlier = { ...own, content_source: `${own.content_source}<p>alt</p>` };
    const hashed = {
      ...earlier,
      version: own.version + 1,
      system_source_hash: systemSourceHash(earlier),
    };
    expect(renderLimitOf(hashed, 500)).toBe(OWN_SOURCES);
    expect(rendersEveryDocument(hashed)).toBe(false);
    expect(rendersEveryDocument({ ...own, system_key: null })).toBe(false);
    expect(rendersEveryDocument({ ...own, system_source_hash: null })).toBe(false);
    await editInvoice(owner);
    expect(rendersEveryDocument(await stored('INVOICE', owner))).toBe(false);
  });
});
