import type { Address } from '../account/account.schemas.js';
import type { Partner } from './partners.schemas.js';
import type { PartnerRow } from './partners.repository.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentPartner(row: PartnerRow): Partner {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    type: row.type as Partner['type'],
    description: row.description,
    website: row.website,
    logoFileId: row.logo_file_id,
    addresses: JSON.parse(row.addresses) as Address[],
    tags: JSON.parse(row.tags) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
