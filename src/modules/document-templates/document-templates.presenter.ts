import type {
  AccountData,
  DateFormat,
  NumberFormat,
  TemplateField,
} from '../../shared/templating/index.js';
import type { Address, AccountRow } from '../account/index.js';
import type { DocumentTemplate } from './document-templates.schemas.js';
import type { TemplateRow } from './document-templates.repository.js';

/** A stored field with every member present, as the API answers it. */
export function presentField(field: TemplateField): Required<TemplateField> {
  return {
    key: field.key,
    label: field.label,
    type: field.type,
    required: field.required ?? false,
    default: field.default ?? null,
  };
}

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentTemplate(row: TemplateRow): DocumentTemplate {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    documentType: row.document_type as DocumentTemplate['documentType'],
    contentSource: row.content_source,
    fields: (JSON.parse(row.fields) as TemplateField[]).map(presentField),
    headerSource: row.header_source,
    headerVisibility: row.header_visibility as DocumentTemplate['headerVisibility'],
    footerSource: row.footer_source,
    footerVisibility: row.footer_visibility as DocumentTemplate['footerVisibility'],
    showLogo: row.show_logo === 1,
    logoPosition: row.logo_position as DocumentTemplate['logoPosition'],
    status: row.status as DocumentTemplate['status'],
    systemKey: row.system_key as DocumentTemplate['systemKey'],
    compiledHeaderHtml: row.compiled_header_html,
    compiledContentHtml: row.compiled_content_html,
    compiledFooterHtml: row.compiled_footer_html,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** What the audit trail records of a template: the sources and settings, not the derived HTML. */
export function auditedTemplate(row: TemplateRow): Record<string, unknown> {
  const {
    compiledHeaderHtml: _h,
    compiledContentHtml: _c,
    compiledFooterHtml: _f,
    ...rest
  } = presentTemplate(row);
  return rest;
}

/** The account as the template context needs it (name, addresses, currency and formats). */
export function accountRenderData(row: AccountRow): AccountData {
  return {
    name: row.name,
    currency: row.currency,
    dateFormat: row.date_format as DateFormat,
    numberFormat: row.number_format as NumberFormat,
    addresses: JSON.parse(row.addresses) as Address[],
  };
}
