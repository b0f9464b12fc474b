import type { FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import type { MailMessage } from '../../shared/mail.js';
import { findUserByEmail, type UserRow } from '../users/index.js';
import { hashPassword } from './passwords.js';
import { FailureThrottle } from './throttle.js';

export interface RequestMeta {
  ip: string;
  requestId: string;
  userAgent: string | null;
}

/** Who asked: the client address, request id and user agent the auth services record. */
export function meta(req: FastifyRequest): RequestMeta {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, requestId: req.id, userAgent: typeof ua === 'string' ? ua : null };
}

export const codeInvalid = () =>
  new AppError('code_invalid', 'The email or code is wrong, or the code has expired.');

/** A user id no user has: code lookups for unknown emails run the same query and find nothing. */
export const NO_USER = 'usr_none';

/**
 * The two steps whose shape keeps known and unknown emails alike: the slow password hash,
 * which runs before any lookup, and the work that happens after the answer. Tests pass
 * their own to see that both paths take the same steps, instead of timing them.
 */
export interface AuthDeps {
  hashPassword: (password: string) => Promise<string>;
  /** Runs `work` after the answer; failures are logged, never answered. */
  defer: (work: () => Promise<void>) => void;
}

/** What the auth services share: mail after the answer, user lookup, actors, code throttling. */
export abstract class AuthServiceBase {
  protected readonly codeThrottle: FailureThrottle;
  protected readonly deps: AuthDeps;

  constructor(
    protected readonly ctx: AppContext,
    deps: Partial<AuthDeps> = {},
  ) {
    this.codeThrottle = new FailureThrottle(ctx.counters, 'code');
    this.deps = {
      hashPassword,
      defer: (work) => {
        work().catch((err: unknown) => ctx.logger.error({ err }, 'deferred auth work failed'));
      },
      ...deps,
    };
  }

  protected deliver(message: MailMessage): void {
    this.ctx.mailer
      .send(message)
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'mail delivery failed'));
  }

  protected findUserByEmail(email: string): Promise<UserRow | undefined> {
    return findUserByEmail(this.ctx.db, email);
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
