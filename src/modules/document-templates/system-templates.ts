/**
 * The system templates every account starts with (decisions §7): a termination letter
 * (Kündigung) and a notice letter (Mitteilung), PUBLISHED, in German business wording with a
 * DIN 5008 style layout: sender line above the recipient's address field, place and date,
 * subject line, salutation, body, closing; and the invoice layout (issue 10) as "Rechnung"
 * and "Rechnungskorrektur / Stornorechnung" (for credit notes: never "Gutschrift", which
 * § 14 (2) Satz 2 UStG keeps for self-billing; migration 0023 renamed the template of
 * accounts seeded before). Accounts may edit them; they cannot delete them or
 * change their `systemKey`. Accounts made before a system template existed get it on first
 * use (`ensureSystemTemplates`), and system templates the account never edited follow the
 * system's newest layout (`system_source_hash`, migration 0034; docs/rendering.md).
 */
import type { Kysely, Transaction } from 'kysely';
import {
  systemSourceHash,
  type SystemSources,
} from '../../db/migrations/0034_system_template_sources.js';
import type { Executor } from '../../db/records.js';
import type { Later } from '../../db/transactions.js';
import type { DB } from '../../db/schema.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import {
  compileTemplate,
  OWN_SOURCES,
  type RenderLimit,
  type TemplateField,
} from '../../shared/templating/index.js';
import { searchText } from '../../http/pagination.js';
import { findAccount, type AccountRow, readCompany } from '../account/index.js';
import { accountRenderData, auditedTemplate } from './document-templates.presenter.js';
import {
  findSystemTemplate,
  findSystemTemplateLater,
  findTemplates,
  insertSystemTemplate,
  insertTemplates,
  systemTemplateStates,
  upgradeSystemTemplate,
  type SystemTemplateState,
  type TemplateRow,
} from './document-templates.repository.js';
import type { DocumentTemplate, SystemKey } from './document-templates.schemas.js';
import {
  INVOICE_CONTENT,
  INVOICE_FOOTER,
  ORDER_CONFIRMATION_CONTENT,
  QUOTE_CONTENT,
} from './invoice-template.js';

const LETTER_STYLE = `<style>
  .letter { font-family: Arial, Helvetica, sans-serif; font-size: 11pt; line-height: 1.45; color: #000; }
  .letter .address-field { width: 85mm; min-height: 45mm; margin-top: 5mm; }
  .letter .sender-line { font-size: 7pt; border-bottom: 0.5pt solid #000; padding-bottom: 0.5mm; margin-bottom: 3mm; }
  .letter .place-date { text-align: right; margin: 8mm 0 0; }
  .letter .subject { font-weight: bold; margin: 8mm 0 8mm; }
  .letter p { margin: 0 0 4mm; }
  .letter .closing { margin-top: 8mm; }
  .letter .signature { margin-top: 14mm; }
</style>`;

const ADDRESS_FIELD = `<div class="address-field">
    <div class="sender-line">{{ account.name }}{% if account.address.street %} · {{ account.address.street }}{% endif %}{% if account.address.city %} · {{ account.address.postalCode }} {{ account.address.city }}{% endif %}</div>
    <p class="recipient">{{ partner.name }}<br />
      {% if partner.address.name %}{{ partner.address.name }}<br />{% endif %}
      {% if partner.address.street %}{{ partner.address.street }}<br />{% endif %}
      {{ partner.address.postalCode }} {{ partner.address.city }}{% if partner.address.country and partner.address.country != "DE" %}<br />
      {{ partner.address.country }}{% endif %}</p>
  </div>
  <p class="place-date">{% if account.address.city %}{{ account.address.city }}, {% endif %}{{ today | date }}</p>`;

const CLOSING = `<p class="closing">Mit freundlichen Grüßen</p>
  <p class="signature">{{ account.name }}</p>`;

const FOOTER = `<div style="font-size: 8pt; color: #444; border-top: 0.5pt solid #999; padding-top: 2mm;">{{ account.name }}{% if account.address.street %} · {{ account.address.street }}{% endif %}{% if account.address.city %} · {{ account.address.postalCode }} {{ account.address.city }}{% endif %}{% if account.address.phone %} · Tel. {{ account.address.phone }}{% endif %}{% if account.address.email %} · {{ account.address.email }}{% endif %}</div>`;

const TERMINATION = `${LETTER_STYLE}
<div class="letter">
  {% assign termEnd = contract.nextRenewalDate | default: contract.endDate %}
  ${ADDRESS_FIELD}
  <p class="subject">Kündigung des Vertrags {{ contract.name }}</p>
  <p>Sehr geehrte Damen und Herren,</p>
  <p>hiermit kündigen wir den mit Ihnen bestehenden Vertrag „{{ contract.name }}“{% if contract.startDate %} vom {{ contract.startDate | date }}{% endif %} ordentlich und fristgerecht {% if termEnd %}zum {{ termEnd | date }}{% else %}zum nächstmöglichen Zeitpunkt{% endif %}.</p>
  {% if contract.cancellationDeadline %}<p>Die vertragliche Kündigungsfrist{% if contract.noticePeriodDays %} beträgt {{ contract.noticePeriodDays }} Tage; sie{% endif %} ist gewahrt, wenn Ihnen diese Kündigung spätestens am {{ contract.cancellationDeadline | date }} zugeht.</p>{% endif %}
  <p>Sollte die Kündigung zu diesem Termin nicht wirksam werden, kündigen wir hilfsweise zum nächstmöglichen Zeitpunkt.{% if contract.autoRenew %} Einer stillschweigenden Verlängerung des Vertrags widersprechen wir hiermit ausdrücklich.{% endif %}</p>
  <p>Bitte bestätigen Sie uns den Eingang dieser Kündigung und den Zeitpunkt der Vertragsbeendigung schriftlich.</p>
  ${CLOSING}
</div>`;

const NOTICE = `${LETTER_STYLE}
<div class="letter">
  {% assign termEnd = contract.nextRenewalDate | default: contract.endDate %}
  ${ADDRESS_FIELD}
  <p class="subject">Mitteilung zum Vertrag {{ contract.name }}</p>
  <p>Sehr geehrte Damen und Herren,</p>
  <p>im Zusammenhang mit dem zwischen Ihnen und uns bestehenden Vertrag „{{ contract.name }}“{% if contract.startDate %} vom {{ contract.startDate | date }}{% endif %} möchten wir Sie über Folgendes informieren:</p>
  <p>{{ fields.mitteilung | newline_to_br }}</p>
  {% if contract.cancellationDeadline %}<p>Zu Ihrer Information: Der Vertrag läuft derzeit bis zum {{ termEnd | date }}{% if contract.autoRenew and contract.renewalMonths %} und verlängert sich ohne Kündigung um jeweils {{ contract.renewalMonths }} Monate{% endif %}. Eine Kündigung zu diesem Termin ist bis zum {{ contract.cancellationDeadline | date }} möglich{% if contract.noticePeriodDays %} (Kündigungsfrist: {{ contract.noticePeriodDays }} Tage){% endif %}.</p>{% endif %}
  <p>Für Rückfragen stehen wir Ihnen gern zur Verfügung.</p>
  ${CLOSING}
</div>`;

/** Dunning letters carry a table: set a little tighter, so the longest one fits one page. */
const DUNNING_STYLE = `<style>
  .letter.dunning { font-size: 10.5pt; line-height: 1.4; }
  .letter.dunning .subject { margin: 6mm 0 5mm; }
  .letter.dunning .closing { margin-top: 6mm; }
  .letter.dunning .signature { margin-top: 9mm; }
</style>`;

/** The claim of a dunning letter: the invoice, what is open, fees, interest and the total. */
const CLAIM_TABLE = `{% assign cur = fields.currency %}<table style="width: 100%; border-collapse: collapse; margin: 0 0 4mm;">
    <tr><td>Rechnung {{ fields.invoiceNumber }} vom {{ fields.invoiceDate | date }}, fällig am {{ fields.dueDate | date }}</td><td style="text-align: right;">{{ fields.invoiceTotal | money: cur }}</td></tr>
    {% if fields.credited > 0 %}<tr><td>gutgeschrieben</td><td style="text-align: right;">−{{ fields.credited | money: cur }}</td></tr>{% endif %}
    {% if fields.paid > 0 %}<tr><td>bereits gezahlt</td><td style="text-align: right;">−{{ fields.paid | money: cur }}</td></tr>{% endif %}
    {% if fields.priorFees > 0 %}<tr><td>Mahngebühren früherer Schreiben</td><td style="text-align: right;">{{ fields.priorFees | money: cur }}</td></tr>{% endif %}
    {% if fields.fee > 0 %}<tr><td>Mahngebühr</td><td style="text-align: right;">{{ fields.fee | money: cur }}</td></tr>{% endif %}
    {% if fields.interest > 0 %}<tr><td>Verzugszinsen ({{ fields.interestRate | number }} % p. a., § 288 BGB) vom {{ fields.interestFrom | date }} bis {{ fields.asOf | date }}</td><td style="text-align: right;">{{ fields.interest | money: cur }}</td></tr>{% endif %}
    {% if fields.flatFee > 0 %}<tr><td>Verzugspauschale (§ 288 Abs. 5 BGB)</td><td style="text-align: right;">{{ fields.flatFee | money: cur }}</td></tr>{% endif %}
    <tr style="font-weight: bold;"><td style="border-top: 0.5pt solid #000;">Zu zahlender Betrag</td><td style="text-align: right; border-top: 0.5pt solid #000;">{{ fields.total | money: cur }}</td></tr>
  </table>`;

const PAY_BY = `{% assign bank = company.bankAccounts.first %}<p>Bitte überweisen Sie den Betrag von {{ fields.total | money: fields.currency }} bis zum {{ fields.payBy | date }}{% if bank %} auf unser Konto IBAN {{ bank.ibanGrouped }}{% if bank.bic %} (BIC {{ bank.bic }}){% endif %}{% endif %} unter Angabe der Rechnungsnummer {{ fields.invoiceNumber }}.</p>`;

const PAYMENT_REMINDER = `${LETTER_STYLE}${DUNNING_STYLE}
<div class="letter dunning">
  ${ADDRESS_FIELD}
  <p class="subject">Zahlungserinnerung zur Rechnung {{ fields.invoiceNumber }}</p>
  <p>Sehr geehrte Damen und Herren,</p>
  <p>sicher ist es Ihrer Aufmerksamkeit entgangen: Unsere Rechnung {{ fields.invoiceNumber }} vom {{ fields.invoiceDate | date }} war am {{ fields.dueDate | date }} zur Zahlung fällig, und bis heute haben wir {% if fields.paid > 0 %}nur einen Teil des Betrags{% else %}keinen Zahlungseingang{% endif %} feststellen können.</p>
  ${CLAIM_TABLE}
  ${PAY_BY}
  <p>Sollten Sie die Zahlung inzwischen veranlasst haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.</p>
  ${CLOSING}
</div>`;

const DUNNING = `${LETTER_STYLE}${DUNNING_STYLE}
<div class="letter dunning">
  ${ADDRESS_FIELD}
  <p class="subject">{% if fields.finalNotice %}Letzte Mahnung{% else %}{{ fields.dunningNumber }}. Mahnung{% endif %} zur Rechnung {{ fields.invoiceNumber }}</p>
  <p>Sehr geehrte Damen und Herren,</p>
  <p>{% if fields.level > 1 %}trotz unserer {% if fields.dunningNumber > 1 %}bisherigen Schreiben{% else %}Zahlungserinnerung{% endif %} ist unsere Rechnung{% else %}unsere Rechnung{% endif %} {{ fields.invoiceNumber }} vom {{ fields.invoiceDate | date }}, fällig am {{ fields.dueDate | date }}, {% if fields.level > 1 %}noch nicht vollständig beglichen{% else %}ist noch nicht vollständig beglichen{% endif %}. {% if fields.level > 1 %}Sie befinden sich mit der Zahlung in Verzug.{% else %}Mit diesem Schreiben mahnen wir die Zahlung an.{% endif %}</p>
  ${CLAIM_TABLE}
  ${PAY_BY}
  {% if fields.finalNotice %}<p>Dies ist unsere letzte Mahnung. Geht der Betrag nicht bis zum genannten Datum bei uns ein, werden wir die Forderung ohne weitere Ankündigung gerichtlich geltend machen oder an ein Inkassounternehmen übergeben; die dadurch entstehenden Kosten gehen zu Ihren Lasten.</p>{% endif %}
  <p>Sollten Sie die Zahlung inzwischen veranlasst haben, betrachten Sie dieses Schreiben bitte als gegenstandslos.</p>
  ${CLOSING}
</div>`;

/** The values a dunning run supplies to the PAYMENT_REMINDER and DUNNING letters. */
const DUNNING_FIELDS: TemplateField[] = [
  { key: 'invoiceNumber', label: 'Rechnungsnummer', type: 'text', required: true, default: null },
  { key: 'invoiceDate', label: 'Rechnungsdatum', type: 'date', required: true, default: null },
  { key: 'dueDate', label: 'Fälligkeitsdatum', type: 'date', required: true, default: null },
  { key: 'currency', label: 'Währung', type: 'text', required: true, default: null },
  { key: 'invoiceTotal', label: 'Rechnungsbetrag', type: 'money', required: true, default: null },
  { key: 'paid', label: 'Bereits gezahlt', type: 'money', required: false, default: 0 },
  { key: 'credited', label: 'Gutgeschrieben', type: 'money', required: false, default: 0 },
  { key: 'asOf', label: 'Stichtag', type: 'date', required: true, default: null },
  { key: 'openAmount', label: 'Offener Betrag', type: 'money', required: true, default: null },
  { key: 'priorFees', label: 'Frühere Mahngebühren', type: 'money', required: false, default: 0 },
  { key: 'fee', label: 'Mahngebühr', type: 'money', required: false, default: 0 },
  { key: 'interest', label: 'Verzugszinsen', type: 'money', required: false, default: 0 },
  { key: 'interestRate', label: 'Zinssatz (% p. a.)', type: 'number', required: false, default: 0 },
  { key: 'interestFrom', label: 'Zinsen ab', type: 'date', required: false, default: null },
  { key: 'flatFee', label: 'Verzugspauschale', type: 'money', required: false, default: 0 },
  { key: 'total', label: 'Zu zahlender Betrag', type: 'money', required: true, default: null },
  { key: 'payBy', label: 'Zahlungsziel', type: 'date', required: true, default: null },
  { key: 'level', label: 'Mahnstufe (1: erstes Schreiben)', type: 'number', default: 1 },
  {
    key: 'dunningNumber',
    label: 'Nummer der Mahnung',
    type: 'number',
    required: false,
    default: 1,
  },
  {
    key: 'finalNotice',
    label: 'Letzte Mahnung (1 = ja)',
    type: 'number',
    required: false,
    default: 0,
  },
];

interface SystemTemplate {
  systemKey: SystemKey;
  documentType: DocumentTemplate['documentType'];
  name: string;
  contentSource: string;
  footerSource: string;
  fields: TemplateField[];
}

/**
 * The system templates, seeded in this order (listed newest first: DUNNING, PAYMENT_REMINDER,
 * CREDIT_NOTE, INVOICE, NOTICE, TERMINATION). Invoices and credit notes share one layout: it reads the document's
 * `invoiceType`, so either template prints either kind correctly.
 */
export const SYSTEM_TEMPLATES: readonly SystemTemplate[] = [
  {
    systemKey: 'TERMINATION',
    documentType: 'LETTER',
    name: 'Kündigung',
    contentSource: TERMINATION,
    footerSource: FOOTER,
    fields: [],
  },
  {
    systemKey: 'NOTICE',
    documentType: 'LETTER',
    name: 'Mitteilung',
    contentSource: NOTICE,
    footerSource: FOOTER,
    fields: [
      {
        key: 'mitteilung',
        label: 'Text der Mitteilung',
        type: 'text',
        required: true,
        default: null,
      },
    ],
  },
  {
    systemKey: 'INVOICE',
    documentType: 'INVOICE',
    name: 'Rechnung',
    contentSource: INVOICE_CONTENT,
    footerSource: INVOICE_FOOTER,
    fields: [],
  },
  {
    systemKey: 'CREDIT_NOTE',
    documentType: 'INVOICE',
    name: 'Rechnungskorrektur / Stornorechnung',
    contentSource: INVOICE_CONTENT,
    footerSource: INVOICE_FOOTER,
    fields: [],
  },
  {
    systemKey: 'QUOTE',
    documentType: 'OFFER',
    name: 'Angebot',
    contentSource: QUOTE_CONTENT,
    footerSource: INVOICE_FOOTER,
    fields: [],
  },
  {
    systemKey: 'ORDER_CONFIRMATION',
    documentType: 'OFFER',
    name: 'Auftragsbestätigung',
    contentSource: ORDER_CONFIRMATION_CONTENT,
    footerSource: INVOICE_FOOTER,
    fields: [],
  },
  {
    systemKey: 'PAYMENT_REMINDER',
    documentType: 'LETTER',
    name: 'Zahlungserinnerung',
    contentSource: PAYMENT_REMINDER,
    footerSource: FOOTER,
    fields: DUNNING_FIELDS,
  },
  {
    systemKey: 'DUNNING',
    documentType: 'LETTER',
    name: 'Mahnung',
    contentSource: DUNNING,
    footerSource: FOOTER,
    fields: DUNNING_FIELDS,
  },
];

/** The sources a system template seeds (and upgrades) a row with. */
function systemSources(t: SystemTemplate) {
  return {
    name: t.name,
    search_name: searchText(t.name),
    document_type: t.documentType,
    content_source: t.contentSource,
    fields: JSON.stringify(t.fields),
    header_source: null,
    header_visibility: 'ALL_PAGES',
    footer_source: t.footerSource,
    footer_visibility: 'ALL_PAGES',
    show_logo: 0,
    logo_position: 'TOP_RIGHT',
    status: 'PUBLISHED',
  };
}

type RenderedTemplateRow = Pick<
  TemplateRow,
  'id' | 'version' | 'system_key' | 'system_source_hash'
> &
  SystemSources;

/**
 * The limit of one render of `template`. A system template whose sources are still Kontor's
 * own (its stored hash matches them: as seeded or last upgraded) renders without a time
 * budget, so a busy machine cannot refuse a valid invoice in Kontor's layout; one that
 * declares no fields also without the caps (`OWN_SOURCES`), so they cannot refuse a large one
 * either. Every template an account wrote or edited renders within `configuredMs` and the
 * caps.
 */
export function renderLimitOf(template: RenderedTemplateRow, configuredMs: number): RenderLimit {
  return isOwn(template) ? ownLimit(template.fields) : configuredMs;
}

/** The limit of Kontor's own sources by their fields (as stored, JSON text). */
function ownLimit(fields: string): RenderLimit {
  return fields === '[]' ? OWN_SOURCES : Infinity;
}

/**
 * Whether every document renders in `template`, so that a draft needs no trial render: it
 * renders as `OWN_SOURCES` (no budget, no caps, no fields that could be missing) and its
 * sources are the system's current ones. The documents module's tests render the largest
 * draft the API accepts and drafts of random content in each such layout.
 */
export function rendersEveryDocument(template: RenderedTemplateRow): boolean {
  if (!isOwn(template) || ownLimit(template.fields) !== OWN_SOURCES) return false;
  const system = SYSTEM_TEMPLATES.find((t) => t.systemKey === template.system_key);
  return system !== undefined && currentSystemSourceHash(system) === template.system_source_hash;
}

/** Whether a template's sources hash to its stored system hash (unedited), once per version. */
function isOwn(template: RenderedTemplateRow): boolean {
  if (template.system_key === null || template.system_source_hash === null) return false;
  // A template's sources change only with its version: hashed once per version and process.
  const key = `${template.id} ${template.version} ${template.system_source_hash}`;
  let own = ownVersions.get(key);
  if (own === undefined) {
    own = systemSourceHash(template) === template.system_source_hash;
    if (ownVersions.size >= OWN_VERSIONS_KEPT) ownVersions.clear();
    ownVersions.set(key, own);
  }
  return own;
}

/** Whether a template version's sources are the system's (`isOwn`), by id and version. */
const ownVersions = new Map<string, boolean>();
const OWN_VERSIONS_KEPT = 10_000;

const currentHashes = new Map<SystemKey, string>();

/** The hash of the system's current sources of `t` (computed once per process). */
export function currentSystemSourceHash(t: SystemTemplate): string {
  let hash = currentHashes.get(t.systemKey);
  if (hash === undefined) {
    hash = systemSourceHash(systemSources(t));
    currentHashes.set(t.systemKey, hash);
  }
  return hash;
}

/** A system template's sources and their compilation against the account's settings. */
function systemTemplateValues(t: SystemTemplate, account: AccountRow, now: string) {
  const sources = systemSources(t);
  const compiled = compileTemplate(
    { contentSource: t.contentSource, footerSource: t.footerSource, fields: t.fields },
    {
      account: accountRenderData(account),
      company: readCompany(account),
      today: now.slice(0, 10),
      // Kontor's own sources (`renderLimitOf`): a busy machine must not fail an account's
      // creation.
      renderLimit: ownLimit(sources.fields),
    },
  );
  if (compiled.problems.length > 0)
    throw new Error(
      `System template ${t.systemKey} does not compile: ${compiled.problems[0]!.message}`,
    );
  return {
    ...sources,
    system_key: t.systemKey,
    compiled_header_html: compiled.compiledHeaderHtml,
    compiled_content_html: compiled.compiledContentHtml,
    compiled_footer_html: compiled.compiledFooterHtml,
    system_source_hash: currentSystemSourceHash(t),
    updated_at: now,
  };
}

/** The row of one system template for an account, compiled against its settings. */
function systemTemplateRow(t: SystemTemplate, account: AccountRow, now: string): TemplateRow {
  return {
    id: newId('documentTemplate'),
    account_id: account.id,
    ...systemTemplateValues(t, account, now),
    version: 1,
    created_at: now,
  };
}

/**
 * Inserts the system templates of a new account, compiled against its settings (no audit
 * events: `seedSystemTemplates` adds them). Test factories call this directly, like
 * `seedTaxRates`.
 */
export async function seedSystemTemplateRows(
  db: Executor,
  accountId: string,
  now: string,
): Promise<TemplateRow[]> {
  const account = await findAccount(db, accountId);
  if (!account) throw new Error(`Account ${accountId} not found while seeding templates`);
  const rows = SYSTEM_TEMPLATES.map((t) => systemTemplateRow(t, account, now));
  await insertTemplates(db, rows);
  return rows;
}

/**
 * Seeds a new account's system templates (TERMINATION, NOTICE, INVOICE, CREDIT_NOTE,
 * PAYMENT_REMINDER, DUNNING) and
 * audits each one, inside the transaction that creates the account.
 */
export async function seedSystemTemplates(
  trx: Transaction<DB>,
  actor: Actor,
  now: Date,
): Promise<void> {
  const rows = await seedSystemTemplateRows(trx, actor.accountId, now.toISOString());
  for (const row of rows)
    await appendAudit(
      trx,
      actor,
      {
        action: 'document_template.created',
        resourceType: 'document_template',
        resourceId: row.id,
        changes: auditedTemplate(row),
      },
      now,
    );
}

/** The system as the actor of a lazy seed: no user asked for it. */
const SYSTEM = (accountId: string): Actor => ({
  accountId,
  userId: null,
  tokenId: null,
  type: 'system',
  requestId: null,
  ip: null,
});

/**
 * Rows known to be edited by their account (id, version and stored hash), so that a stale
 * hash on an edited row costs its full read once per process, not on every render.
 */
const knownEdited = new Set<string>();
const KNOWN_EDITED_MAX = 10_000;
const editedKey = (s: SystemTemplateState) => `${s.id}:${s.version}:${s.system_source_hash}`;

/** True while the row's sources are the ones it was seeded or last upgraded from. */
const unedited = (row: TemplateRow) =>
  row.system_source_hash !== null && systemSourceHash(row) === row.system_source_hash;

/**
 * The account's system templates to upgrade: unedited, with a hash other than the current
 * layout's. Reads nothing when every stored hash is current (or null, or known edited).
 *
 * Both conditions are judged on the full row, the one whose version and hash the upgrade's
 * compare-and-set expects: the index read before it may predate another process's upgrade,
 * and that upgraded row is unedited too (it hashes to its new hash). Judged on the index
 * read, it would be upgraded a second time, to the layout it already has.
 */
async function upgradesDue(
  db: Kysely<DB>,
  accountId: string,
  byKey: Map<string, SystemTemplateState>,
): Promise<{ t: SystemTemplate; before: TemplateRow }[]> {
  const stale = SYSTEM_TEMPLATES.flatMap((t) => {
    const s = byKey.get(t.systemKey);
    return s !== undefined &&
      s.system_source_hash !== null &&
      s.system_source_hash !== currentSystemSourceHash(t) &&
      !knownEdited.has(editedKey(s))
      ? [{ t, s }]
      : [];
  });
  if (stale.length === 0) return [];
  const rows = await findTemplates(
    db,
    accountId,
    stale.map(({ s }) => s.id),
  );
  return stale.flatMap(({ t, s }) => {
    const row = rows.find((r) => r.id === s.id);
    // Gone, or upgraded meanwhile by another process.
    if (row === undefined || row.system_source_hash === currentSystemSourceHash(t)) return [];
    if (unedited(row)) return [{ t, before: row }];
    if (row.version === s.version) {
      if (knownEdited.size >= KNOWN_EDITED_MAX) knownEdited.clear();
      knownEdited.add(editedKey(s));
    }
    return [];
  });
}

/**
 * Brings the account's system templates up to the system's current ones, as the system:
 *
 * - inserts those it lacks (added after it was made), audited `document_template.created`;
 * - replaces those it never edited (its sources still hash to `system_source_hash`) whose
 *   hash differs from the current layout's: sources and compiled HTML as seeding writes them,
 *   `version` + 1, the new hash, audited `document_template.updated`. A row the account edited
 *   (or whose edit state is unknown: no hash) stays as it is.
 *
 * One transaction for all writes. Cheap when nothing is to do: one indexed read, the stored
 * hashes compared with the current ones held in memory. Safe under concurrency: the unique
 * (account, systemKey) index lets only one insert win, and an upgrade is a compare-and-set on
 * the version and hash of the row as read in full, never applied to a row that already has
 * the new hash; the loser writes and audits nothing. Answers the rows it wrote.
 *
 * Documents already FINAL keep their stored PDF (GoBD); only documents rendered afterwards
 * use the upgraded layout.
 */
export async function ensureSystemTemplates(
  db: Kysely<DB>,
  accountId: string,
  now: Date = new Date(),
): Promise<TemplateRow[]> {
  const states = await systemTemplateStates(db, accountId);
  const byKey = new Map(states.map((s) => [s.system_key, s]));
  const missing = SYSTEM_TEMPLATES.filter((t) => !byKey.has(t.systemKey));
  const upgrades = await upgradesDue(db, accountId, byKey);
  if (missing.length === 0 && upgrades.length === 0) return [];
  const account = await findAccount(db, accountId);
  if (!account) return [];
  // Compiling is CPU work: done before the transaction.
  const at = now.toISOString();
  const inserts = missing.map((t) => systemTemplateRow(t, account, at));
  const updates = upgrades.map(({ t, before }) => ({
    before,
    values: systemTemplateValues(t, account, at),
  }));
  return db.transaction().execute(async (trx) => {
    const written: TemplateRow[] = [];
    for (const row of inserts) {
      if (!(await insertSystemTemplate(trx, row))) continue;
      written.push(row);
      await appendAudit(
        trx,
        SYSTEM(accountId),
        {
          action: 'document_template.created',
          resourceType: 'document_template',
          resourceId: row.id,
          changes: auditedTemplate(row),
        },
        now,
      );
    }
    for (const { before, values } of updates) {
      const after = await upgradeSystemTemplate(
        trx,
        accountId,
        before.id,
        { version: before.version, systemSourceHash: before.system_source_hash! },
        values,
      );
      if (after === undefined) continue;
      written.push(after);
      await appendAudit(
        trx,
        SYSTEM(accountId),
        {
          action: 'document_template.updated',
          resourceType: 'document_template',
          resourceId: after.id,
          changes: diff(auditedTemplate(before), auditedTemplate(after)),
        },
        now,
      );
    }
    return written;
  });
}

/** Seeded or upgraded from the current layout, edited since or not: nothing to bring up. */
function isCurrentSystemTemplate(
  key: SystemKey,
  found: TemplateRow | undefined,
): found is TemplateRow {
  const t = SYSTEM_TEMPLATES.find((s) => s.systemKey === key);
  return t !== undefined && found?.system_source_hash === currentSystemSourceHash(t);
}

/**
 * `ensureSystemTemplate`'s read started now (`deferFirst`: read ahead with the other reads of a
 * write, in one round trip on PostgreSQL), answered later: the row when it stems from the
 * current layout, else undefined (then the caller's `ensureSystemTemplate` seeds or upgrades it).
 */
export async function currentSystemTemplateLater(
  db: Executor,
  accountId: string,
  key: SystemKey,
): Promise<Later<TemplateRow | undefined>> {
  const found = await findSystemTemplateLater(db, accountId, key);
  return async () => {
    const row = await found();
    return isCurrentSystemTemplate(key, row) ? row : undefined;
  };
}

/**
 * The account's system template with `key`, seeded or upgraded first when it is missing or
 * stems from another layout than the system's current one (see `ensureSystemTemplates`, which
 * then brings all of the account's system templates up). The documents module calls it to find
 * the invoice layout: one read when the row stems from the current layout, two when the
 * account edited it before the layout changed (it is kept as it is).
 */
export async function ensureSystemTemplate(
  db: Kysely<DB>,
  accountId: string,
  key: SystemKey,
  now: Date = new Date(),
): Promise<TemplateRow> {
  const found = await findSystemTemplate(db, accountId, key);
  if (isCurrentSystemTemplate(key, found)) return found;
  const written = await ensureSystemTemplates(db, accountId, now);
  // What was just seeded or upgraded, else the row as found (an edited one stays as it is), else
  // the one another process seeded meanwhile.
  const row =
    written.find((w) => w.system_key === key) ??
    found ??
    (await findSystemTemplate(db, accountId, key));
  if (!row) throw new Error(`System template ${key} of account ${accountId} is missing`);
  return row;
}
