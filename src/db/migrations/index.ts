import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_business_records.js';
import * as m0003 from './0003_billing.js';
import * as m0004 from './0004_plans_usage.js';
import * as m0005 from './0005_notes_newsletter_webhooks.js';
import * as m0006 from './0006_budgets.js';
import * as m0007 from './0007_files.js';
import * as m0008 from './0008_document_templates.js';
import * as m0009 from './0009_documents.js';
import * as m0010 from './0010_payments.js';
import * as m0011 from './0011_dashboard.js';
import * as m0012 from './0012_bank_imports.js';
import * as m0013 from './0013_account_logo.js';
import * as m0014 from './0014_invoicing.js';
import * as m0015 from './0015_write_path.js';
import * as m0016 from './0016_recurring_invoices.js';
import * as m0017 from './0017_webhook_endpoints.js';
import * as m0018 from './0018_datev.js';
import * as m0019 from './0019_dunning.js';
import * as m0020 from './0020_invoice_events.js';
import * as m0021 from './0021_partner_answers.js';
import * as m0022 from './0022_webhook_sending.js';
import * as m0023 from './0023_credit_note_titles.js';
import * as m0024 from './0024_partner_numbers.js';
import * as m0025 from './0025_document_delivery.js';
import * as m0026 from './0026_web_sessions.js';
import * as m0027 from './0027_invoice_numbering.js';
import * as m0028 from './0028_quotes.js';
import * as m0029 from './0029_customer_links.js';
import * as m0030 from './0030_sepa.js';
import * as m0031 from './0031_down_payments.js';
import * as m0032 from './0032_printed_customer_links.js';
import * as m0033 from './0033_sepa_returns.js';
import * as m0034 from './0034_system_template_sources.js';
import * as m0035 from './0035_document_deductions.js';
import * as m0036 from './0036_sepa_mandate_amendments.js';
import * as m0037 from './0037_payment_settlement_index.js';
import * as m0038 from './0038_invoice_list_indexes.js';
import * as m0039 from './0039_document_figures.js';
import * as m0040 from './0040_payment_day_flows.js';
import * as m0041 from './0041_open_invoice_totals.js';
import * as m0042 from './0042_partial_preceding_index.js';
import * as m0043 from './0043_audit_list_by_sequence.js';

/** Every migration, in order. Listed statically so the compiled build and tests agree. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_business_records': m0002,
  '0003_billing': m0003,
  '0004_plans_usage': m0004,
  '0005_notes_newsletter_webhooks': m0005,
  '0006_budgets': m0006,
  '0007_files': m0007,
  '0008_document_templates': m0008,
  '0009_documents': m0009,
  '0010_payments': m0010,
  '0011_dashboard': m0011,
  '0012_bank_imports': m0012,
  '0013_account_logo': m0013,
  '0014_invoicing': m0014,
  '0015_write_path': m0015,
  '0016_recurring_invoices': m0016,
  '0017_webhook_endpoints': m0017,
  '0018_datev': m0018,
  '0019_dunning': m0019,
  '0020_invoice_events': m0020,
  '0021_partner_answers': m0021,
  '0022_webhook_sending': m0022,
  '0023_credit_note_titles': m0023,
  '0024_partner_numbers': m0024,
  '0025_document_delivery': m0025,
  '0026_web_sessions': m0026,
  '0027_invoice_numbering': m0027,
  '0028_quotes': m0028,
  '0029_customer_links': m0029,
  '0030_sepa': m0030,
  '0031_down_payments': m0031,
  '0032_printed_customer_links': m0032,
  '0033_sepa_returns': m0033,
  '0034_system_template_sources': m0034,
  '0035_document_deductions': m0035,
  '0036_sepa_mandate_amendments': m0036,
  '0037_payment_settlement_index': m0037,
  '0038_invoice_list_indexes': m0038,
  '0039_document_figures': m0039,
  '0040_payment_day_flows': m0040,
  '0041_open_invoice_totals': m0041,
  '0042_partial_preceding_index': m0042,
  '0043_audit_list_by_sequence': m0043,
};
