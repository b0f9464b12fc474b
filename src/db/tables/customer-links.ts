/** One signed link to one FINAL document, for its customer (docs/customer-page.md). */
export interface CustomerLinksTable {
  id: string;
  account_id: string;
  document_id: string;
  /** Hex SHA-256 of the link's token; the token itself is never stored. */
  token_hash: string;
  expires_at: string;
  revoked_at: string | null;
  /** The user who created the link; null when a send created it for the system. */
  created_by: string | null;
  first_viewed_at: string | null;
  last_viewed_at: string | null;
  view_count: number;
  created_at: string;
  /** The URL of the link printed on the document's PDF, sealed; null on every other link. */
  url_sealed: string | null;
}

/** Per account: whether sent documents carry a link, and how long such links live. */
export interface CustomerLinkSettingsTable {
  account_id: string;
  /** 0/1. */
  enabled: number;
  valid_days: number;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Tables of the customer-pages module. */
export interface CustomerLinksTables {
  customer_links: CustomerLinksTable;
  customer_link_settings: CustomerLinkSettingsTable;
}
