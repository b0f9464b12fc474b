import type { Address, ElectronicAddress } from '../account/index.js';
import type { Partner } from './partners.schemas.js';
import type { PartnerRow } from './partners.repository.js';

/**
 * Row → response, field by field: nothing reaches the client that is not listed here. Reads
 * answer the text the database keeps in `answer_json`, written by the shape in migration 0023:
 * a change here is a new migration there (partners.test.ts holds the two alike).
 */
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
    vatId: row.vat_id,
    buyerReference: row.buyer_reference,
    electronicAddress:
      row.electronic_address === null
        ? null
        : (JSON.parse(row.electronic_address) as ElectronicAddress),
    // Stored null means the defaults; the answer always names the format and language in force.
    einvoiceFormat: (row.einvoice_format ?? 'ZUGFERD') as Partner['einvoiceFormat'],
    language: (row.language ?? 'de') as Partner['language'],
    dunningBlocked: row.dunning_blocked === 1,
    consumer: row.consumer === null ? null : row.consumer === 1,
    partnerNumber: row.partner_number,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
