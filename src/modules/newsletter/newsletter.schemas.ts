import { Type, type Static } from 'typebox';
import { EmailField } from '../users/index.js';

export const SUBSCRIPTION_STATUSES = ['PENDING', 'SUBSCRIBED', 'UNSUBSCRIBED'] as const;

export const SignupBody = Type.Object(
  { email: { ...EmailField, description: 'The address to subscribe.' } },
  { additionalProperties: false },
);
export type Signup = Static<typeof SignupBody>;

export const SignupAcceptedSchema = Type.Object(
  {
    status: Type.String({ description: 'Always `confirmation_sent`.' }),
    message: Type.String({
      description: 'The same text for new, pending and subscribed addresses.',
    }),
  },
  { additionalProperties: false },
);
export type SignupAccepted = Static<typeof SignupAcceptedSchema>;

/**
 * The token of a mailed link. Optional in the schema so that a link mangled by a mail client
 * answers the same friendly page as a tampered one (400 `link_invalid`), not a bare schema
 * error. Extra parameters (tracking tags added by mail clients) are ignored for the same reason.
 */
export const LinkQuery = Type.Object(
  {
    token: Type.Optional(
      Type.String({ maxLength: 1000, description: 'The signed token from the mailed link.' }),
    ),
  },
  { additionalProperties: true },
);
export type Link = Static<typeof LinkQuery>;

export const LinkResultSchema = Type.Object(
  {
    status: Type.Enum(['subscribed', 'unsubscribed'], {
      description: 'The subscription state after following the link.',
    }),
  },
  { additionalProperties: false },
);
export type LinkResult = Static<typeof LinkResultSchema>;

export const UpdateOwnSubscriptionBody = Type.Object(
  {
    subscribed: Type.Boolean({
      description:
        'true subscribes the caller’s own (verified) email at once; false unsubscribes it.',
    }),
  },
  { additionalProperties: false },
);
export type UpdateOwnSubscription = Static<typeof UpdateOwnSubscriptionBody>;

export const OwnSubscriptionSchema = Type.Object(
  {
    email: Type.String({ description: 'The caller’s email, to which the newsletter goes.' }),
    subscribed: Type.Boolean({ description: 'Whether the newsletter is mailed to it.' }),
    status: Type.Enum(SUBSCRIPTION_STATUSES, {
      description: 'PENDING (awaiting confirmation), SUBSCRIBED or UNSUBSCRIBED.',
    }),
  },
  { additionalProperties: false, description: 'The caller’s own newsletter subscription.' },
);
export type OwnSubscription = Static<typeof OwnSubscriptionSchema>;
