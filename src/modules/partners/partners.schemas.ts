import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, TagsSchema, VersionField } from '../../http/schemas.js';
import { AddressesSchema } from '../account/account.schemas.js';

export const PARTNER_TYPES = ['CUSTOMER', 'VENDOR'] as const;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Company or person name.' }),
  type: Type.Enum(PARTNER_TYPES, { description: 'CUSTOMER or VENDOR (default CUSTOMER).' }),
  description: Type.String({ maxLength: 10_000, description: 'Free text.' }),
  website: Type.String({
    maxLength: 500,
    pattern: '^https?://[^\\s]+$',
    description: 'http(s) URL.',
  }),
  logoFileId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'Id of an uploaded image file (`fil_…`).',
  }),
};

export const PartnerSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    type: fields.type,
    description: Nullable(Type.String(), 'Free text.'),
    website: Nullable(Type.String(), 'http(s) URL.'),
    logoFileId: Nullable(Type.String(), 'Id of an uploaded image file (`fil_…`).'),
    addresses: AddressesSchema,
    tags: TagsSchema,
  },
  { additionalProperties: false, description: 'A customer or vendor.' },
);
export type Partner = Static<typeof PartnerSchema>;

export const CreatePartnerBody = Type.Object(
  {
    name: fields.name,
    type: Type.Optional(fields.type),
    description: Type.Optional(fields.description),
    website: Type.Optional(fields.website),
    logoFileId: Type.Optional(fields.logoFileId),
    addresses: Type.Optional(AddressesSchema),
    tags: Type.Optional(TagsSchema),
  },
  { additionalProperties: false },
);
export type CreatePartner = Static<typeof CreatePartnerBody>;

/** Partial update: omitted fields stay, `null` clears an optional one (decisions §6). */
export const UpdatePartnerBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    type: Type.Optional(fields.type),
    description: Type.Optional(Nullable(fields.description, 'Free text; null clears it.')),
    website: Type.Optional(Nullable(fields.website, 'http(s) URL; null clears it.')),
    logoFileId: Type.Optional(Nullable(fields.logoFileId, 'Logo file id; null clears it.')),
    addresses: Type.Optional(Nullable(AddressesSchema, 'Addresses; null clears them.')),
    tags: Type.Optional(Nullable(TagsSchema, 'Tags; null clears them.')),
  },
  { additionalProperties: false },
);
export type UpdatePartner = Static<typeof UpdatePartnerBody>;

export const ListPartnersQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.Enum(PARTNER_TYPES, { description: 'Only partners of this type.' })),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only partners with this tag.' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case- and accent-insensitive search in the name.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListPartners = Static<typeof ListPartnersQuery>;
