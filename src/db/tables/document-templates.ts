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
  version: number;
  created_at: string;
  updated_at: string;
}

export interface DocumentTemplatesTables {
  document_templates: DocumentTemplatesTable;
}
