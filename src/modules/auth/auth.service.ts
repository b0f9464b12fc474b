import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { AppError } from '../../shared/errors.js';
import type { Principal } from '../../http/types.js';
import { appendAudit } from '../../shared/audit.js';
import { DAY } from '../../shared/clock.js';
import { sha256 } from '../../shared/secrets.js';
import { findAccount } from '../account/index.js';
import { normalizeEmail } from '../../shared/email-address.js';
import {
  confirmUser,
  consumeCode,
  findUserById,
  issueCode,
  recordLogin,
  presentUser,
  revokeSessions,
  rotateRefresh,
  startSession,
  type IssuedTokens,
  type SessionClient,
  type UserRow,
} from '../users/index.js';
import { insertAccountWithOwner } from './new-account.js';
import type { Confirm, Login, Register, Tokens } from './auth.schemas.js';
import { burnVerify, checkPassword, verifyPassword } from './passwords.js';
import {
  AuthServiceBase,
  NO_USER,
  codeInvalid,
  type AuthDeps,
  type RequestMeta,
} from './auth.support.js';
import { FailureThrottle, MailThrottle } from './throttle.js';

const ACCEPTED = {
  register: {
    status: 'confirmation_sent',
    message:
      'If the address can be registered, a 6-digit confirmation code is on its way. Confirm with POST /v1/auth/confirm.',
  },
};

const invalidCredentials = () =>
  new AppError('invalid_credentials', 'The email or password is wrong.');
const tokenInvalid = () =>
  new AppError('token_invalid', 'The refresh token is unknown, expired or revoked.', {
    headers: { 'www-authenticate': 'Bearer realm="kontor"' },
  });

/**
 * Registration, confirmation and sign-in (decisions §3); password recovery is in
 * password-recovery.service.ts. No answer tells whether an email is registered: the same
 * status and body for both, the same slow hash on both paths, and mail sent after the answer.
 */
export class AuthService extends AuthServiceBase {
  private readonly loginThrottle: FailureThrottle;
  private readonly mailThrottle: MailThrottle;

  constructor(ctx: AppContext, deps: Partial<AuthDeps> = {}) {
    super(ctx, deps);
    this.loginThrottle = new FailureThrottle(ctx.counters, 'login');
    this.mailThrottle = new MailThrottle(ctx.counters, 'register');
  }

  /**
   * Answers after the password checks and hash, before any lookup: the account creation of a
   * new email takes far longer than the notice to a known one, so doing either before the
   * answer would tell them apart by time.
   */
  async register(input: Register, meta: RequestMeta): Promise<typeof ACCEPTED.register> {
    const email = normalizeEmail(input.email);
    checkPassword(input.password, this.ctx.config.passwordMinLength, 'password');
    await this.mailThrottle.take(email, meta.ip);
    const passwordHash = await this.deps.hashPassword(input.password);
    this.deps.defer(() => this.completeRegistration(email, passwordHash, input, meta));
    return ACCEPTED.register;
  }

  private async completeRegistration(
    email: string,
    passwordHash: string,
    input: Register,
    meta: RequestMeta,
  ): Promise<void> {
    const existing = await this.findUserByEmail(email);
    if (existing) return this.remindExisting(existing, meta);
    const now = this.ctx.clock.now();
    let code: string;
    try {
      code = await this.ctx.db.transaction().execute(async (trx) => {
        const { user } = await insertAccountWithOwner(
          trx,
          { email, passwordHash, name: input.name, companyName: input.companyName },
          'UNCONFIRMED',
          meta,
          now,
        );
        return issueCode(trx, this.ctx.appSecret, user, 'confirm', now, DAY);
      });
    } catch (err) {
      // Two registrations of one email raced: the first one stands.
      if (isUniqueViolation(err)) return;
      throw err;
    }
    this.deliver({
      to: email,
      subject: `Your Kontor confirmation code: ${code}`,
      text: `Welcome to Kontor, ${input.name}.\n\nYour confirmation code is ${code}. It is valid for 24 hours.\nConfirm with POST /v1/auth/confirm {"email", "code"}.\n\nIf you did not register, ignore this mail.`,
    });
  }

  /**
   * A second registration of a known email changes nothing about the user or the account: the
   * pending password, name and company stay those of the first registration. Were a repeat
   * allowed to replace them, whoever registered second would own the account the mailbox
   * holder then confirms. Unconfirmed: a fresh code for the first registration (the earlier
   * one stops working), and the way to take the address over if someone else started it: a
   * password reset, which also proves the mailbox. Confirmed: a notice.
   */
  private async remindExisting(user: UserRow, meta: RequestMeta): Promise<void> {
    if (user.status === 'UNCONFIRMED') {
      const now = this.ctx.clock.now();
      const code = await this.ctx.db.transaction().execute(async (trx) => {
        const issued = await issueCode(trx, this.ctx.appSecret, user, 'confirm', now, DAY);
        await this.auditAnonymous(trx, user, meta, 'user.confirmation_code_issued', now);
        return issued;
      });
      this.deliver({
        to: user.email,
        subject: `Your Kontor confirmation code: ${code}`,
        text: `Your confirmation code is ${code}. It is valid for 24 hours.\n\nThis address was registered before and is not confirmed yet. Confirming keeps the password, name and company of that first registration; registering again changes none of them.\nIf you did not start that registration, or do not know its password, set your own password with POST /v1/auth/forgot-password and then POST /v1/auth/reset-password: that confirms the address for you and ends every other way in.`,
      });
      return;
    }
    this.deliver({
      to: user.email,
      subject: 'Someone tried to register with your email',
      text: 'Someone tried to create a Kontor account with this email, which already has one. If it was you, sign in or reset your password with POST /v1/auth/forgot-password. Otherwise ignore this mail.',
    });
  }

  async confirm(input: Confirm, meta: RequestMeta): Promise<{ status: string }> {
    const email = normalizeEmail(input.email);
    await this.codeThrottle.check(email, meta.ip);
    const user = await this.findUserByEmail(email);
    const now = this.ctx.clock.now();
    // The code lookup runs for unknown emails too, so the time tells nothing either.
    const ok = await this.ctx.db.transaction().execute(async (trx) => {
      const spent = await consumeCode(
        trx,
        this.ctx.appSecret,
        user?.id ?? NO_USER,
        ['confirm'],
        input.code,
        now,
      );
      // A confirmation only confirms: it never carries credentials, whoever asked for it.
      if (!spent || user?.status !== 'UNCONFIRMED') return false;
      await confirmUser(trx, user.id, now.toISOString());
      await appendAudit(
        trx,
        this.actor(user, meta),
        {
          action: 'user.confirmed',
          resourceType: 'user',
          resourceId: user.id,
          changes: { status: { from: 'UNCONFIRMED', to: 'ACTIVE' } },
        },
        now,
      );
      return true;
    });
    if (!ok) {
      await this.codeThrottle.fail(email, meta.ip);
      throw codeInvalid();
    }
    await this.codeThrottle.succeed(email, meta.ip);
    return { status: 'confirmed' };
  }

  async login(input: Login, meta: RequestMeta, client: SessionClient = 'api'): Promise<Tokens> {
    const email = normalizeEmail(input.email);
    await this.loginThrottle.check(email, meta.ip);
    const user = await this.findUserByEmail(email);
    const ok =
      user?.password_hash != null
        ? await verifyPassword(user.password_hash, input.password)
        : await burnVerify(input.password);
    if (!user || !ok) {
      await this.loginThrottle.fail(email, meta.ip);
      throw invalidCredentials();
    }
    await this.loginThrottle.succeed(email, meta.ip);
    if (user.status !== 'ACTIVE')
      throw new AppError(
        'email_not_confirmed',
        'Confirm your email with the code we sent before signing in.',
      );
    const now = this.ctx.clock.now();
    const tokens = await this.ctx.db
      .transaction()
      .execute((trx) => this.openSession(trx, user, meta, now, client));
    return this.tokensResponse(tokens, user.id);
  }

  /** A new session for a user who proved who they are, recorded and audited. */
  async openSession(
    trx: Transaction<DB>,
    user: UserRow,
    meta: RequestMeta,
    now: Date,
    client: SessionClient,
  ): Promise<IssuedTokens> {
    const issued = await startSession(
      trx,
      user,
      now,
      { ip: meta.ip, userAgent: meta.userAgent },
      client,
    );
    await recordLogin(trx, user.id, now.toISOString());
    await appendAudit(
      trx,
      this.actor(user, meta),
      {
        action: 'session.created',
        resourceType: 'session',
        resourceId: issued.sessionId,
        changes: client === 'web' ? { ip: meta.ip, client } : { ip: meta.ip },
      },
      now,
    );
    return issued;
  }

  async refresh(
    refreshToken: string,
    meta: RequestMeta,
    client: SessionClient = 'api',
  ): Promise<Tokens> {
    const now = this.ctx.clock.now();
    const outcome = await this.ctx.db.transaction().execute(async (trx) => {
      const result = await rotateRefresh(trx, sha256(refreshToken), now, client);
      if (result.kind === 'reused') {
        await revokeSessions(trx, { sessionId: result.sessionId }, 'refresh_token_reuse', now);
        await appendAudit(
          trx,
          {
            accountId: result.accountId,
            userId: result.userId,
            tokenId: null,
            type: 'system',
            requestId: meta.requestId,
            ip: meta.ip,
          },
          {
            action: 'session.revoked',
            resourceType: 'session',
            resourceId: result.sessionId,
            changes: { reason: 'refresh_token_reuse' },
          },
          now,
        );
      }
      return result;
    });
    if (outcome.kind === 'reused')
      await this.ctx.credentials.invalidate({ type: 'session', id: outcome.sessionId });
    if (outcome.kind !== 'rotated') throw tokenInvalid();
    return this.tokensResponse(outcome.tokens, outcome.userId);
  }

  async logout(principal: Principal, meta: RequestMeta): Promise<void> {
    if (principal.tokenKind !== 'access' || principal.sessionId === null)
      throw new AppError(
        'not_a_session',
        'Logout ends a session; sign out with a session access token. Delete personal API tokens with DELETE /v1/api-tokens/{tokenId}.',
      );
    const sessionId = principal.sessionId;
    const now = this.ctx.clock.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      await revokeSessions(trx, { sessionId }, 'logout', now);
      await appendAudit(
        trx,
        {
          accountId: principal.accountId,
          userId: principal.userId,
          tokenId: principal.tokenId,
          type: 'user',
          requestId: meta.requestId,
          ip: meta.ip,
        },
        {
          action: 'session.revoked',
          resourceType: 'session',
          resourceId: sessionId,
          changes: { reason: 'logout' },
        },
        now,
      );
    });
    await this.ctx.credentials.invalidate({ type: 'session', id: sessionId });
  }

  async tokensResponse(tokens: IssuedTokens, userId: string): Promise<Tokens> {
    const user = await findUserById(this.ctx.db, userId);
    if (!user) throw new Error(`user ${userId} vanished while signing in`);
    const account = await findAccount(this.ctx.db, user.account_id);
    return {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      tokenType: 'Bearer',
      expiresIn: tokens.expiresIn,
      refreshExpiresAt: tokens.refreshExpiresAt,
      user: presentUser(user),
      account: { id: user.account_id, name: account?.name ?? '' },
    };
  }
}
