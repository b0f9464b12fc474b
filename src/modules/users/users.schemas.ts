import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, Timestamp } from '../../http/schemas.js';

export const ROLES = ['admin', 'user'] as const;
export const USER_STATUSES = ['INVITED', 'UNCONFIRMED', 'ACTIVE'] as const;

export const EmailField = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'Email address.',
});
const Role = Type.Enum(ROLES, {
  description: '`admin`: everything; `user`: business records and own tokens.',
});

export const UserSchema = Type.Object(
  {
    ...RecordMeta,
    name: Type.String({ description: 'Display name.' }),
    email: Type.String({ description: 'Sign-in email, lower-cased.' }),
    role: Role,
    status: Type.Enum(USER_STATUSES, {
      description:
        'INVITED until the invitee sets a password; UNCONFIRMED until a registrant confirms the email.',
    }),
    lastLoginAt: Nullable(Timestamp('Last successful login.'), 'Last successful login, if any.'),
  },
  { additionalProperties: false, description: 'A user of the account.' },
);
export type User = Static<typeof UserSchema>;

export const InviteUserBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Display name.' }),
    email: EmailField,
    role: Type.Optional(Role),
  },
  { additionalProperties: false },
);
export type InviteUser = Static<typeof InviteUserBody>;

export const InvitePreviewSchema = Type.Object(
  {
    valid: Type.Boolean({ description: 'Whether `POST /v1/users` with this body would succeed.' }),
    action: Type.String({ description: 'What the invitation would do.' }),
    emailAvailable: Type.Boolean({
      description:
        'Whether no user of this account has the email. Users of other accounts are not disclosed.',
    }),
    seats: Type.Object({
      used: Type.Integer({ description: 'Users of the account now (any status).' }),
      included: Type.Integer({ description: 'Seats the plan includes.' }),
      afterInvite: Type.Integer({ description: 'Users after the invitation.' }),
    }),
    priceEffect: Type.Object({
      currency: Type.String({ description: 'Currency of the plan price.' }),
      monthlyDelta: Type.Number({ description: 'Change of the monthly price, in major units.' }),
    }),
    problems: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }), {
      description: 'Why the invitation would be refused.',
    }),
  },
  {
    additionalProperties: false,
    description: 'What inviting this user would do; nothing is created.',
  },
);

export const ChangeRoleBody = Type.Object({ role: Role }, { additionalProperties: false });

export const ListUsersQuery = Type.Object(
  {
    ...PageQuery,
    role: Type.Optional(Role),
    status: Type.Optional(Type.Enum(USER_STATUSES, { description: 'Only users in this status.' })),
  },
  { additionalProperties: false },
);
export type ListUsers = Static<typeof ListUsersQuery>;
