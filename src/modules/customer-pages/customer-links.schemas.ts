import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';

/** Days a link lives when neither the request nor the account's settings say otherwise. */
export const DEFAULT_VALID_DAYS = 90;
/** The longest a link may live. */
export const MAX_VALID_DAYS = 730;

export const CustomerLinkSchema = Type.Object(
  {
    id: Type.String({ description: 'Link id (`cul_…`); not the token.' }),
    documentId: Type.String({ description: 'The one document the link shows.' }),
    expiresAt: Timestamp('When the link stops working.'),
    revokedAt: Nullable(Timestamp('Revocation'), 'When the link was revoked; null: it was not.'),
    status: Type.Enum(['ACTIVE', 'EXPIRED', 'REVOKED'], {
      description: 'Whether the link works now: ACTIVE, or EXPIRED / REVOKED (answers 404).',
    }),
    createdAt: Timestamp('When the link was created.'),
    createdBy: Nullable(
      Type.String({ description: 'User id' }),
      'The user who created the link; null when sending the document created it.',
    ),
    firstViewedAt: Nullable(Timestamp('First view'), 'When the customer first opened the page.'),
    lastViewedAt: Nullable(Timestamp('Last view'), 'When the customer last opened the page.'),
    viewCount: Type.Integer({ minimum: 0, description: 'How often the page was opened.' }),
  },
  {
    additionalProperties: false,
    description:
      'A signed link to one FINAL document for its customer (the URL is never shown again).',
  },
);
export type CustomerLink = Static<typeof CustomerLinkSchema>;

export const CreatedCustomerLinkSchema = Type.Object(
  {
    ...CustomerLinkSchema.properties,
    url: Type.String({
      description:
        'The page’s address (`PUBLIC_URL/c/{token}`). Shown only in this response: only a hash of the token is stored.',
    }),
  },
  { additionalProperties: false, description: 'A link just created, with its URL.' },
);
export type CreatedCustomerLink = Static<typeof CreatedCustomerLinkSchema>;

export const CreateCustomerLinkBody = Type.Object(
  {
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 40,
        description: `When the link stops working, in the future and at most ${MAX_VALID_DAYS} days ahead. Default: the account's \`validDays\` (${DEFAULT_VALID_DAYS} days unless set).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCustomerLink = Static<typeof CreateCustomerLinkBody>;

export const CustomerLinkListSchema = Type.Object(
  {
    data: Type.Array(CustomerLinkSchema, { description: 'The links, newest first.' }),
    firstViewedAt: Nullable(Timestamp('First view'), 'The first view over all links.'),
    lastViewedAt: Nullable(Timestamp('Last view'), 'The last view over all links.'),
    viewCount: Type.Integer({ minimum: 0, description: 'Views over all links.' }),
  },
  { additionalProperties: false, description: 'A document’s customer links and its views.' },
);

export const LinkParams = Type.Object({
  documentId: Type.String({ minLength: 1, maxLength: 64, description: 'Document id (`doc_…`).' }),
  linkId: Type.String({ minLength: 1, maxLength: 64, description: 'Link id (`cul_…`).' }),
});

export const CustomerLinkSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        'Whether sending a FINAL invoice or quote creates a link and puts it into the mail.',
    }),
    validDays: Type.Integer({
      minimum: 1,
      maximum: MAX_VALID_DAYS,
      description: 'How many days a new link lives unless its request names `expiresAt`.',
    }),
    version: Type.Integer({
      minimum: 0,
      description: 'Optimistic-locking version; 0 until saved.',
    }),
    updatedAt: Nullable(Timestamp('Last change'), 'When the settings were last saved.'),
  },
  { additionalProperties: false, description: 'The account’s settings of customer links.' },
);
export type CustomerLinkSettings = Static<typeof CustomerLinkSettingsSchema>;

export const PutCustomerLinkSettingsBody = Type.Object(
  {
    enabled: CustomerLinkSettingsSchema.properties.enabled,
    validDays: Type.Optional(CustomerLinkSettingsSchema.properties.validDays),
    version: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The version read (0 while nothing is saved); a stale one is 409.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutCustomerLinkSettings = Static<typeof PutCustomerLinkSettingsBody>;
