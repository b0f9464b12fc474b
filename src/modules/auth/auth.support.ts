import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import type { MailMessage } from '../../shared/mail.js';
import type { UserRow } from '../users/users.presenter.js';
import { FailureThrottle } from './throttle.js';

export interface RequestMeta {
  ip: string;
  requestId: string;
  userAgent: string | null;
}

export const codeInvalid = () =>
  new AppError('code_invalid', 'The email or code is wrong, or the code has expired.');

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What the auth services share: mail after the answer, user lookup, actors, code throttling. */
export abstract class AuthServiceBase {
  protected readonly codeThrottle: FailureThrottle;

  constructor(protected readonly ctx: AppContext) {
    this.codeThrottle = new FailureThrottle(ctx.counters, 'code');
  }

  protected deliver(message: MailMessage): void {
    this.ctx.mailer
      .send(message)
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'mail delivery failed'));
  }

  protected findUserByEmail(email: string): Promise<UserRow | undefined> {
    return this.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
  }

  protected actor(
    user: { id: string; account_id: string },
    meta: RequestMeta,
    tokenId: string | null = null,
  ): Actor {
    return {
      accountId: user.account_id,
      userId: user.id,
      tokenId,
      type: 'user',
      requestId: meta.requestId,
      ip: meta.ip,
    };
  }

  /** An event for a request nobody is signed in for (a code was issued to the user's mailbox). */
  protected auditAnonymous(
    trx: Transaction<DB>,
    user: UserRow,
    meta: RequestMeta,
    action: string,
    now: Date,
  ) {
    return appendAudit(
      trx,
      {
        accountId: user.account_id,
        userId: null,
        tokenId: null,
        type: 'system',
        requestId: meta.requestId,
        ip: meta.ip,
      },
      { action, resourceType: 'user', resourceId: user.id, changes: {} },
      now,
    );
  }
}
