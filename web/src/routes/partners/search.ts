/**
 * The partner screens' search parameters, typed so a filtered page or a tab can be shared as
 * a link. In the entry chunk (the router needs them): plain functions, no React.
 */
export type PartnerTypeFilter = 'customer' | 'vendor';

export interface PartnerListSearch {
  /** The API's `q`: name (case- and accent-insensitive) or the start of the number. */
  q?: string;
  type?: PartnerTypeFilter;
  tag?: string;
  /** The API's opaque keyset cursor of the page shown (none: the first page). */
  cursor?: string;
  /**
   * The cursors of the pages before it, oldest first ('' is the first page), so "previous"
   * works from a shared link too. Kept to the last MAX_TRAIL pages.
   */
  trail?: string[];
}

export const MAX_TRAIL = 50;

export const partnerTabs = ['data', 'invoices', 'payments', 'contracts', 'notes', 'sepa'] as const;
export type PartnerTab = (typeof partnerTabs)[number];

function text(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function partnerListSearch(search: Record<string, unknown>): PartnerListSearch {
  const result: PartnerListSearch = {};
  const q = text(search.q);
  if (q !== undefined) result.q = q;
  if (search.type === 'customer' || search.type === 'vendor') result.type = search.type;
  const tag = text(search.tag);
  if (tag !== undefined) result.tag = tag;
  const cursor = text(search.cursor);
  if (cursor !== undefined) result.cursor = cursor;
  if (Array.isArray(search.trail)) {
    const trail = search.trail.filter((entry): entry is string => typeof entry === 'string');
    if (trail.length > 0) result.trail = trail.slice(-MAX_TRAIL);
  }
  return result;
}

export function partnerTabSearch(search: Record<string, unknown>): { tab?: PartnerTab } {
  const tab = partnerTabs.find((value) => value === search.tab);
  return tab === undefined || tab === 'data' ? {} : { tab };
}
