/** Tables of the document-templates module (issue 4). */
export interface DocumentTemplatesTable {
  id: string;
  account_id: string;
  name: string;
  search_name: string;
  /** LETTER or OFFER. */
  document_type: string;
  content_source: string;
  /** TemplateField[] as JSON. */
  fields: string;
  header_source: string | null;
  /** ALL_PAGES or FIRST_PAGE_ONLY. */
  header_visibility: string;
  footer_source: string | null;
  footer_visibility: string;
  show_logo: number;
  /** TOP_LEFT or TOP_RIGHT. */
  logo_position: string;
  /** DRAFT or PUBLISHED. */
  status: string;
  /** TERMINATION or NOTICE on the seeded system templates; unique per account. */
  system_key: string | null;
  /** The sources rendered with sample data and sanitised, at the last write. */
  compiled_header_html: string | null;
  compiled_content_html: string;
  compiled_footer_html: string | null;
  /**
   * On a system template, the SHA-256 of the sources it was seeded or last upgraded from
   * (migration 0034): while its sources still hash to it, the account has not edited it and
   * a newer system layout replaces it. Null on the account's own templates and on system
   * templates that count as edited.
   */
  system_source_hash: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface DocumentTemplatesTables {
  document_templates: DocumentTemplatesTable;
}
