import { Type, type Static } from 'typebox';
import { EmailField, UserSchema } from '../users/index.js';

const Password = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, description });
const Code = Type.String({ pattern: '^\\d{6}$', description: 'The 6-digit code from the email.' });

export const RegisterBody = Type.Object(
  {
    email: EmailField,
    password: Password(
      'At least 12 characters (configurable), at most 256; common passwords are refused.',
    ),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Your name.' }),
    companyName: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The business the account is for.',
    }),
  },
  { additionalProperties: false },
);
export type Register = Static<typeof RegisterBody>;

export const ConfirmBody = Type.Object(
  { email: EmailField, code: Code },
  { additionalProperties: false },
);
export type Confirm = Static<typeof ConfirmBody>;

export const LoginBody = Type.Object(
  { email: EmailField, password: Password('Your password.') },
  { additionalProperties: false },
);
export type Login = Static<typeof LoginBody>;

export const RefreshBody = Type.Object(
  {
    refreshToken: Type.String({
      minLength: 10,
      maxLength: 200,
      description: 'The refresh token from login or the last refresh.',
    }),
  },
  { additionalProperties: false },
);

export const ForgotBody = Type.Object({ email: EmailField }, { additionalProperties: false });

export const ResetBody = Type.Object(
  {
    email: EmailField,
    code: Code,
    newPassword: Password('The new password; same rules as at registration.'),
    revokeApiTokens: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Also delete the personal API tokens of the user (default true). A reset is how an owner takes back an account whose password leaked, and a token made with it would otherwise outlive the reset. Sessions end either way.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Reset = Static<typeof ResetBody>;

export const AcceptedSchema = Type.Object(
  {
    status: Type.String({ description: 'What happens next.' }),
    message: Type.String({ description: 'The same text whether or not the email is registered.' }),
  },
  { additionalProperties: false },
);

export const StatusSchema = Type.Object(
  { status: Type.String({ description: 'Outcome.' }) },
  { additionalProperties: false },
);

export const TokensSchema = Type.Object(
  {
    accessToken: Type.String({
      description: 'Bearer for API calls; valid for `expiresIn` seconds.',
    }),
    refreshToken: Type.String({
      description: 'Single-use; exchange at /v1/auth/refresh for a new pair.',
    }),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'Seconds until the access token expires (900).' }),
    refreshExpiresAt: Type.String({
      format: 'date-time',
      description: 'When the refresh token expires.',
    }),
    user: UserSchema,
    account: Type.Object(
      { id: Type.String(), name: Type.String() },
      { additionalProperties: false, description: 'The account the user belongs to.' },
    ),
  },
  { additionalProperties: false },
);
export type Tokens = Static<typeof TokensSchema>;
