import type { Generated } from 'kysely';
import type { CustomerLinksTables } from './tables/customer-links.js';
import type { DocumentTemplatesTables } from './tables/document-templates.js';
import type { FilesTables } from './tables/files.js';

/**
 * Table types. Portable column conventions (the same on SQLite and PostgreSQL):
 * timestamps are RFC 3339 UTC text with milliseconds (sortable as text), date-only values
 * are `YYYY-MM-DD` text, booleans are integers 0/1, money is integer minor units, and
 * structured values (addresses, widgets) are JSON text.
 */
export interface AccountsTable {
  id: string;
  name: string;
  plan_id: string;
  currency: string;
  date_format: string;
  number_format: string;
  incoming_payment_term: string;
  budgets_suppressed: number;
  reminder_email: string | null;
  allow_contract_reminder_override: number;
  dashboard_widgets: string;
  addresses: string;
  /** The logo generated documents show (an uploaded image of the account), or null. */
  logo_file_id: string | null;
  /** The seller's master data (`CompanyData` as JSON), null until set (issue 10). */
  company: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: string;
  status: string;
  password_hash: string | null;
  email_confirmed_at: string | null;
  last_login_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface AuthCodesTable {
  id: string;
  account_id: string;
  user_id: string;
  purpose: string;
  code_hash: string;
  /** What spending the code applies, e.g. a repeat registration's password hash (JSON). */
  payload: string | null;
  attempts: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  user_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  /** `api` (tokens held by the caller) or `web` (the web app: refresh token in a cookie). */
  client: Generated<'api' | 'web'>;
}

/** One-time links that create the first account (only the SHA-256 of the token is kept). */
export interface SetupLinksTable {
  id: string;
  token_hash: string;
  created_at: string;
  used_at: string | null;
}

export interface AuthTokensTable {
  id: string;
  account_id: string;
  user_id: string;
  kind: string;
  session_id: string | null;
  name: string | null;
  prefix: string;
  token_hash: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  used_at: string | null;
  revoked_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuditHeadsTable {
  account_id: string;
  seq: number;
  hash: string;
}

export interface AuditEventsTable {
  id: string;
  account_id: string;
  seq: number;
  occurred_at: string;
  actor_type: string;
  actor_id: string | null;
  token_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: string;
  request_id: string | null;
  ip: string | null;
  prev_hash: string;
  hash: string;
}

/** An audit event written in its write's transaction, not yet chained (PostgreSQL). */
export type AuditPendingTable = Omit<AuditEventsTable, 'seq' | 'prev_hash' | 'hash'>;

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: string;
  status_code: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface PartnersTable {
  id: string;
  account_id: string;
  name: string;
  search_name: string;
  type: string;
  description: string | null;
  website: string | null;
  logo_file_id: string | null;
  addresses: string;
  tags: string;
  /** Buyer VAT ID (BT-48). */
  vat_id: string | null;
  /** Default buyer reference (BT-10), e.g. a Leitweg-ID. */
  buyer_reference: string | null;
  /** JSON {scheme, value}: electronic address (BT-49). */
  electronic_address: string | null;
  /** ZUGFERD, XRECHNUNG_CII, XRECHNUNG_UBL or PDF; null means ZUGFERD. */
  einvoice_format: string | null;
  /** de or en; null means de. */
  language: string | null;
  /** 1: blocked from dunning (Mahnsperre). */
  dunning_blocked: Generated<number>;
  /** 1 consumer (§13 BGB), 0 business, null unknown (dunning treats it as a consumer). */
  consumer: number | null;
  /** Customer number (Kundennummer) or vendor number (Lieferantennummer), unique per account. */
  partner_number: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  /** The partner as the API answers it, written by the database's trigger (migration 0023). */
  answer_json: Generated<string>;
}

export interface PartnerTagsTable {
  account_id: string;
  partner_id: string;
  tag: string;
}

export interface TaxRatesTable {
  id: string;
  account_id: string;
  name: string;
  /** Basis points: 19 % is 1900. */
  rate_bp: number;
  is_default: number;
  /** VAT category (UNTDID 5305 subset): S, Z, E, AE, K, G, O. */
  category: string;
  /** Why no VAT is charged (BT-120); required for every category but S and Z. */
  exemption_reason: string | null;
  /** VATEX code (BT-121), e.g. VATEX-EU-AE. */
  exemption_code: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ProductsTable {
  id: string;
  account_id: string;
  name: string;
  search_name: string;
  type: string;
  /** Minor units of `currency`. */
  unit_price: number;
  currency: string;
  unit: string | null;
  description: string | null;
  photo_file_id: string | null;
  tax_rate_id: string | null;
  tags: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ProductTagsTable {
  account_id: string;
  product_id: string;
  tag: string;
}

/** One billed period of a contract's billing plan: the claim that bills it once. */
export interface ContractInvoicesTable {
  contract_id: string;
  period_start: string;
  period_end: string;
  account_id: string;
  invoice_date: string;
  document_id: string;
  created_at: string;
}

export interface ContractsTable {
  id: string;
  account_id: string;
  name: string;
  search_name: string;
  partner_id: string;
  partner_name: string;
  partner_type: string;
  start_date: string;
  end_date: string | null;
  /** Minor units of `currency`. */
  total_value: number;
  currency: string;
  status: string;
  description: string | null;
  tags: string;
  /** ContractAdvanced as JSON. */
  advanced: string | null;
  /** Derived at each write for filtering: last day to give notice (YYYY-MM-DD). */
  cancellation_deadline: string | null;
  /** Derived at each write: the next renewal date (YYYY-MM-DD). */
  next_renewal_date: string | null;
  /** The billing plan as JSON (recurring invoices), or null. */
  billing: string | null;
  /** The next invoice's date while the plan runs; null without a plan, paused or ended. */
  billing_next_date: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ContractTagsTable {
  account_id: string;
  contract_id: string;
  tag: string;
}

export interface AccountBillingTable {
  account_id: string;
  /** NONE, CARD or BANK_ACCOUNT. */
  billing_method: string;
  /** Card reference as JSON: holder, brand, last4, expiry, provider id — never a card number. */
  card: string | null;
  /** The bank account as AES-256-GCM ciphertext (`shared/secrets.seal`). */
  bank_sealed: string | null;
  /** What may be shown: holder, masked IBAN, BIC, mandate reference (JSON). */
  bank_masked: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface LicensesTable {
  account_id: string;
  /** ACTIVE, PAST_DUE or CANCELED. */
  status: string;
  current_period_end: string | null;
  provider_subscription_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface UsageMonthlyTable {
  account_id: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  requests: number;
}

export interface NotesTable {
  id: string;
  account_id: string;
  /** PARTNER or CONTRACT. */
  parent_type: string;
  parent_id: string;
  /** NOTE or REMINDER. */
  type: string;
  title: string;
  content: string;
  due_date: string | null;
  done: number;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ReminderDeliveriesTable {
  /** NOTE, CONTRACT_DEADLINE or BUDGET_OVERRUN. */
  kind: string;
  subject_id: string;
  /** What makes this reminder distinct, e.g. the due date or deadline. */
  due_key: string;
  account_id: string;
  recipient: string | null;
  claimed_at: string;
  sent_at: string | null;
}

export interface NewsletterSubscriptionsTable {
  id: string;
  email: string;
  /** PENDING, SUBSCRIBED or UNSUBSCRIBED. */
  status: string;
  user_id: string | null;
  confirmed_at: string | null;
  unsubscribed_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookEventsTable {
  provider: string;
  event_id: string;
  type: string;
  account_id: string | null;
  received_at: string;
}

/** An outbound webhook endpoint of an account (issue 14, docs/webhooks.md). */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** JSON array of event type names. */
  event_types: string;
  enabled: number;
  /** The signing secret (`whsec_…`), sealed with AES-256-GCM under a key from the app secret. */
  secret_sealed: string;
  /** The secret before the last rotation, still signing alongside until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  /** Why the service disabled the endpoint (null while enabled or when a user disabled it). */
  disabled_reason: string | null;
  /** Failed attempts since the last successful one. */
  failure_count: number;
  /** When the current run of failures began (null after a success). */
  failing_since: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One event for one endpoint: the signed message and the state of its attempts. */
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_type: string;
  /** The exact JSON body sent (`{type, timestamp, data}`). */
  payload: string;
  /** PENDING, SUCCEEDED or FAILED. */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  response_excerpt: string | null;
  /** The lease of the attempt in flight: a job is sending it until then (null: none). */
  sending_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface BudgetCategoriesTable {
  id: string;
  account_id: string;
  name: string;
  search_name: string;
  monthly_limit: number;
  currency: string;
  keywords: string;
  active: number;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface BudgetEntriesTable {
  id: string;
  account_id: string;
  category_id: string;
  amount: number;
  currency: string;
  entry_date: string;
  document_id: string | null;
  vendor_name: string | null;
  source: string;
  import_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Settled money per account, currency and day (migration 0040), kept by triggers on payments. */
export interface PaymentDayFlowsTable {
  account_id: string;
  currency: string;
  day: string;
  /** MARKED INCOMING payments of the day, minor units. */
  income: number;
  /** MARKED OUTGOING payments of the day, minor units. */
  expense: number;
  /** PostgreSQL: one of 16 rows of the day, by the session that wrote it; a day is their sum. */
  slot: Generated<number>;
}

/**
 * What is still owed on the open invoices per account, currency, source and due date ('9999-12-31'
 * for none), migration 0041, kept by triggers on documents: the open amounts above zero and how
 * many invoices have one.
 */
export interface OpenInvoiceTotalsTable {
  account_id: string;
  currency: string;
  source: string;
  due_date: string;
  amount: number;
  count: number;
  /** As in `payment_day_flows`: a group is the sum of its rows. */
  slot: Generated<number>;
}

export interface DocumentsTable {
  id: string;
  account_id: string;
  document_type: string;
  name: string;
  search_name: string;
  document_number: string | null;
  contract_id: string | null;
  contract_name: string | null;
  partner_id: string | null;
  partner_name: string | null;
  creation_date: string;
  due_date: string | null;
  status: string;
  source: string;
  template_id: string | null;
  file_id: string | null;
  file_type: string | null;
  pdf_sha256: string | null;
  currency: string;
  line_items: string;
  tax_breakdown: string;
  net_total: number;
  tax_total: number;
  gross_total: number;
  fields: string;
  processing_status: string | null;
  processing_error: string | null;
  page_count: number | null;
  analysis: string | null;
  finalized_at: string | null;
  sent_at: string | null;
  sent_to: string | null;
  /** Where the last send put the mail: `outbox` or `smtp` (null: never sent, or not recorded). */
  sent_delivery: string | null;
  /** Invoices (issue 10): delivery date (BT-72) or service period (BG-14), YYYY-MM-DD. */
  delivery_date: string | null;
  service_period_from: string | null;
  service_period_to: string | null;
  buyer_reference: string | null;
  order_reference: string | null;
  payment_terms: string | null;
  /** Cash discount in basis points (2 % = 200) within `skonto_days` days. */
  skonto_bp: number | null;
  skonto_days: number | null;
  note: string | null;
  /** INVOICE or CREDIT_NOTE. */
  invoice_type: string;
  /** A credit note's invoice (BT-25). */
  preceding_document_id: string | null;
  /** The credit note that cancelled this invoice in full (Storno). */
  cancelled_by_document_id: string | null;
  /** 1: this credit note cancels its invoice in full (a Stornorechnung, not a Rechnungskorrektur). */
  storno: Generated<number>;
  /** JSON `FrozenParties`: seller and buyer as they were when the invoice became FINAL. */
  einvoice_parties: string | null;
  /** Dunning (issue 14): 0 none, 1 payment reminder, 2-4 the dunning letters sent. */
  dunning_level: Generated<number>;
  /** YYYY-MM-DD: the as-of day of the last dunning letter. */
  last_dunned_at: string | null;
  /** 1: blocked from dunning (Mahnsperre). */
  dunning_blocked: Generated<number>;
  /** When a FINAL invoice's settled payments first covered it (null: not paid). */
  paid_at: string | null;
  /** YYYY-MM-DD: the day `document.overdue` announced the invoice (once). */
  overdue_at: string | null;
  /** Quotes: YYYY-MM-DD, the last day the quote can be accepted (gültig bis). */
  valid_until: string | null;
  /** Quotes once FINAL: OPEN, ACCEPTED, DECLINED or EXPIRED; null on other documents. */
  quote_status: string | null;
  /** When a quote was accepted, declined or expired. */
  quote_decided_at: string | null;
  /** Who accepted or declined a quote (a name; `system` when it expired). */
  quote_decided_by: string | null;
  /** The quote or order confirmation this document was converted from. */
  origin_document_id: string | null;
  /** Invoices converted from a quote: the contract reference (BT-12), the quote's number. */
  contract_reference: string | null;
  /** Invoices: DOWN_PAYMENT (Abschlagsrechnung), FINAL (Schlussrechnung) or null. */
  billing_role: string | null;
  /** A final invoice: JSON `Deduction[]`, the paid down payments it deducts. */
  down_payment_deductions: string | null;
  /**
   * Kept by the database (migration 0039, never written by code): MARKED payments in its
   * currency, incoming minus outgoing; its FINAL credit notes' gross; what it deducts as a
   * final invoice. Minor units.
   */
  settled_net_minor: Generated<number>;
  credit_notes_minor: Generated<number>;
  deducted_minor: Generated<number>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Where new partners' numbers come from: one row per account and partner type. */
export interface PartnerNumberSequencesTable {
  account_id: string;
  /** CUSTOMER or VENDOR. */
  partner_type: string;
  /** Written before the value, e.g. `K-`; may be empty. */
  prefix: string;
  /** The value the next partner of the type gets (numbers taken by hand are skipped). */
  next_value: number;
}

export interface DocumentSequencesTable {
  account_id: string;
  document_type: string;
  year: number;
  last_value: number;
}

/** An account's invoice number formats (docs/invoicing.md §8); no row: the defaults. */
export interface InvoiceNumberingTable {
  account_id: string;
  /** E.g. `RE-{YYYY}-{00000}`: tokens `{YYYY}`, `{YY}`, `{MM}` and one counter `{000}`. */
  invoice_format: string;
  credit_note_format: string;
  /** Null: the default `AN-{YYYY}-{0000}`. */
  quote_format: string | null;
  /** Null: the default `AB-{YYYY}-{0000}`. */
  order_confirmation_format: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface JobsTable {
  id: string;
  account_id: string | null;
  kind: string;
  payload: string;
  status: string;
  attempts: number;
  run_after: string;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentsTable {
  id: string;
  account_id: string;
  direction: string;
  document_id: string | null;
  document_number: string | null;
  contract_id: string | null;
  contract_name: string | null;
  partner_id: string | null;
  partner_name: string | null;
  amount: number;
  currency: string;
  payment_date: string;
  status: string;
  payment_method: string | null;
  provider_payment_intent_id: string | null;
  failure_reason: string | null;
  marked_at: string | null;
  source: string;
  import_id: string | null;
  /** Folded partner, contract and document names for `q` (default ''). */
  search_text: Generated<string>;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface CashAnchorsTable {
  account_id: string;
  opening_balance: number;
  currency: string;
  effective_date: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface BankImportsTable {
  id: string;
  account_id: string;
  file_id: string;
  file_name: string;
  format: string;
  period_from: string;
  period_to: string;
  auto_approve: number;
  status: string;
  statements: string;
  problems: string;
  transaction_count: number;
  undecided_count: number;
  finalized_at: string | null;
  result: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface BankImportTransactionsTable {
  import_id: string;
  idx: number;
  account_id: string;
  statement_index: number;
  booking_date: string;
  value_date: string | null;
  amount: number;
  currency: string;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  counterparty_bic: string | null;
  purpose: string;
  end_to_end_id: string | null;
  mandate_reference: string | null;
  bank_reference: string | null;
  booking_text: string | null;
  reversal: number;
  /** Set on a return (R-transaction): its ISO reason code, '' when the file names none (0033). */
  return_reason: string | null;
  identity: string;
  decision: string | null;
  duplicate_of: string | null;
  suggestions: string;
}

export interface ImportedTransactionsTable {
  account_id: string;
  identity: string;
  import_id: string;
  idx: number;
  payment_id: string | null;
  partner_id: string | null;
  counterparty_iban: string | null;
  created_at: string;
}

/** Dunning settings of an account (issue 14, docs/dunning.md); no row: the defaults. */
export interface DunningSettingsTable {
  account_id: string;
  /** 1: the daily schedule runs the account's dunning. */
  enabled: number;
  /** JSON array of {kind, daysAfter, feeMinor, defaultInterest}, level 1 first. */
  levels: string;
  /** 1: claim the EUR 40 flat fee of §288 (5) BGB from businesses. */
  flat_fee: number;
  /** Days the letter gives to pay. */
  payment_days: number;
  /** YYYY-MM-DD: the last day the schedule ran the account (claimed by one replica). */
  last_run_on: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** One dunning letter for an invoice and level (primary key: invoice, level). */
export interface DunningNoticesTable {
  invoice_id: string;
  level: number;
  account_id: string;
  /** The letter (a FINAL DUNNING document). */
  document_id: string;
  /** PAYMENT_REMINDER or DUNNING. */
  kind: string;
  as_of: string;
  currency: string;
  open_minor: number;
  fee_minor: number;
  interest_minor: number;
  flat_fee_minor: number;
  created_at: string;
}

/** DATEV export settings of an account (issue 14, docs/datev.md). */
export interface DatevSettingsTable {
  account_id: string;
  consultant_number: number;
  client_number: number;
  /** SKR03 or SKR04. */
  chart: string;
  /** 1-12: the month the fiscal year starts (on its first day). */
  fiscal_year_start_month: number;
  /** Digits of a general-ledger account (Sachkontenlänge), 4-8. */
  account_length: number;
  /** Null: the chart's default (collective debtor 1 followed by `account_length` zeros). */
  debtor_account: number | null;
  /** Null: the chart's bank account (SKR03 1200, SKR04 1800, padded to the length). */
  bank_account: number | null;
  /** JSON array of {taxRateId, account, taxKey}: the revenue account per tax rate. */
  account_mapping: string;
  /** 1: each customer is booked on its own debtor account (its partner number) where it fits. */
  partner_accounts: Generated<number>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A partner's SEPA direct-debit mandate (docs/sepa.md); the IBAN sealed and masked. */
export interface SepaMandatesTable {
  id: string;
  account_id: string;
  partner_id: string;
  reference: string;
  signed_on: string;
  iban_sealed: string;
  iban_masked: string;
  bic: string | null;
  debtor_name: string;
  /** FIRST, RECURRING, FINAL, ONE_OFF or COMPLETED. */
  sequence_state: string;
  revoked_at: string | null;
  last_collection_date: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  /** CORE or B2B (migration 0036). */
  scheme: Generated<string>;
}

/** A change of a mandate's reference, IBAN or name (migration 0036); `pending`: to be carried. */
export interface SepaMandateAmendmentsTable {
  id: string;
  account_id: string;
  mandate_id: string;
  original_reference: string;
  original_iban_sealed: string;
  original_iban_masked: string;
  original_bic: string | null;
  original_debtor_name: string;
  reference: string;
  iban_masked: string;
  bic: string | null;
  debtor_name: string;
  pending: number;
  carried_end_to_end_id: string | null;
  created_at: string;
}

/** A partner's bank account for SEPA transfers (one per partner), sealed and masked. */
export interface SepaBankAccountsTable {
  account_id: string;
  partner_id: string;
  holder_name: string;
  iban_sealed: string;
  iban_masked: string;
  bic: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** The account's SEPA settings; no row: the defaults. */
export interface SepaSettingsTable {
  account_id: string;
  pre_notification_days: number;
  /** 1: the daily schedule collects direct-debit contract invoices (migration 0036). */
  auto_collect: Generated<number>;
  auto_collected_on: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A collection (pain.008) or transfer (pain.001) run and its file. */
export interface SepaRunsTable {
  id: string;
  account_id: string;
  /** COLLECTION or TRANSFER. */
  kind: string;
  message_id: string;
  execution_date: string;
  currency: string;
  total_minor: number;
  item_count: number;
  file_xml: string;
  version: number;
  created_at: string;
  updated_at: string;
  /** CORE or B2B: a collection file's local instrument (migration 0036). */
  scheme: Generated<string>;
}

/** One invoice of a run. */
/** A down payment a FINAL final invoice deducts (migration 0035), written by documents. */
export interface DocumentDeductionsTable {
  account_id: string;
  final_document_id: string;
  down_payment_document_id: string;
  /** Its place among the final invoice's deductions (0 first). */
  position: number;
  /** The down payment's gross the final invoice takes off, in minor units. */
  gross_minor: number;
  created_at: string;
}

export interface SepaRunItemsTable {
  id: string;
  account_id: string;
  run_id: string;
  document_id: string;
  document_number: string | null;
  partner_id: string | null;
  mandate_id: string | null;
  mandate_reference: string | null;
  end_to_end_id: string;
  amount_minor: number;
  sequence_type: string | null;
  execution_date: string;
  iban_masked: string;
  payment_id: string | null;
  skonto: Generated<number>;
  created_at: string;
  /** The booking date of the statement line that returned the item (migration 0033). */
  returned_on: string | null;
  /** The ISO return reason code the bank gave (AC04, MD06, …), when it gave one. */
  return_reason: string | null;
}

export interface DB extends FilesTables, DocumentTemplatesTables, CustomerLinksTables {
  accounts: AccountsTable;
  users: UsersTable;
  auth_codes: AuthCodesTable;
  sessions: SessionsTable;
  setup_links: SetupLinksTable;
  auth_tokens: AuthTokensTable;
  api_keys: ApiKeysTable;
  audit_heads: AuditHeadsTable;
  audit_events: AuditEventsTable;
  audit_pending: AuditPendingTable;
  idempotency_keys: IdempotencyKeysTable;
  partners: PartnersTable;
  partner_tags: PartnerTagsTable;
  partner_number_sequences: PartnerNumberSequencesTable;
  tax_rates: TaxRatesTable;
  products: ProductsTable;
  product_tags: ProductTagsTable;
  contracts: ContractsTable;
  contract_invoices: ContractInvoicesTable;
  contract_tags: ContractTagsTable;
  account_billing: AccountBillingTable;
  licenses: LicensesTable;
  usage_monthly: UsageMonthlyTable;
  notes: NotesTable;
  reminder_deliveries: ReminderDeliveriesTable;
  newsletter_subscriptions: NewsletterSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  budget_categories: BudgetCategoriesTable;
  budget_entries: BudgetEntriesTable;
  documents: DocumentsTable;
  document_sequences: DocumentSequencesTable;
  document_deductions: DocumentDeductionsTable;
  payment_day_flows: PaymentDayFlowsTable;
  open_invoice_totals: OpenInvoiceTotalsTable;
  invoice_numbering: InvoiceNumberingTable;
  jobs: JobsTable;
  payments: PaymentsTable;
  cash_anchors: CashAnchorsTable;
  bank_imports: BankImportsTable;
  bank_import_transactions: BankImportTransactionsTable;
  imported_transactions: ImportedTransactionsTable;
  datev_settings: DatevSettingsTable;
  dunning_settings: DunningSettingsTable;
  dunning_notices: DunningNoticesTable;
  sepa_mandates: SepaMandatesTable;
  sepa_mandate_amendments: SepaMandateAmendmentsTable;
  sepa_bank_accounts: SepaBankAccountsTable;
  sepa_settings: SepaSettingsTable;
  sepa_runs: SepaRunsTable;
  sepa_run_items: SepaRunItemsTable;
}
