import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, Timestamp } from '../../http/schemas.js';

export const ApiTokenSchema = Type.Object(
  {
    id: Type.String({ description: 'Token id (`tok_…`); not the secret.' }),
    name: Type.String({ description: 'What the token is for.' }),
    prefix: Type.String({ description: 'First characters of the secret, to recognise it.' }),
    userId: Type.String({ description: 'The user the token acts as, with that user’s role.' }),
    createdAt: Timestamp('When the token was created.'),
    lastUsedAt: Nullable(
      Timestamp('Last use'),
      'Last use (updated at most once a minute), if any.',
    ),
    expiresAt: Nullable(Timestamp('Expiry'), 'When the token stops working; null: never.'),
  },
  {
    additionalProperties: false,
    description: 'A personal API token (the secret is never shown again).',
  },
);
export type ApiToken = Static<typeof ApiTokenSchema>;

export const CreatedApiTokenSchema = Type.Object(
  {
    ...ApiTokenSchema.properties,
    token: Type.String({
      description: 'The secret (`kpat_…`). Shown only in this response; store it now.',
    }),
  },
  { additionalProperties: false },
);

export const CreateApiTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'What the token is for.' }),
    expiresAt: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          'RFC 3339 timestamp, or a date `YYYY-MM-DD` meaning the end of that day (UTC). Must be in the future. Omit for a token that does not expire.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiToken = Static<typeof CreateApiTokenBody>;

export const ListApiTokensQuery = Type.Object(
  {
    ...PageQuery,
    userId: Type.Optional(
      Type.String({ maxLength: 64, description: 'Admins: only this user’s tokens.' }),
    ),
  },
  { additionalProperties: false },
);
export type ListApiTokens = Static<typeof ListApiTokensQuery>;
