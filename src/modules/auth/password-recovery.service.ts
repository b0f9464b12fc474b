import type { AppContext } from '../../context.js';
import { appendAudit } from '../../shared/audit.js';
import { HOUR } from '../../shared/clock.js';
import type { Reset } from './auth.schemas.js';
import {
  AuthServiceBase,
  NO_USER,
  codeInvalid,
  type AuthDeps,
  type RequestMeta,
} from './auth.support.js';
import { normalizeEmail } from '../../shared/email-address.js';
import { consumeCode, issueCode, revokeSessions, setPassword } from '../users/index.js';
import { checkPassword } from './passwords.js';
import { deleteUserApiTokens } from '../api-tokens/index.js';
import { MailThrottle } from './throttle.js';

const ACCEPTED = {
  status: 'reset_code_sent',
  message:
    'If the address is registered, a 6-digit reset code is on its way. Set a new password with POST /v1/auth/reset-password.',
};

/**
 * Forgot and reset password, also how invitees set their first password (decisions §3). The
 * answer never tells whether an email is registered.
 */
export class PasswordRecoveryService extends AuthServiceBase {
  private readonly mailThrottle: MailThrottle;

  constructor(ctx: AppContext, deps: Partial<AuthDeps> = {}) {
    super(ctx, deps);
    this.mailThrottle = new MailThrottle(ctx.counters, 'reset');
  }

  /**
   * Answers after the mail cap alone (429 alike for any address); the lookup and the mail
   * happen after the answer, so known and unknown emails look alike.
   */
  async forgotPassword(emailInput: string, meta: RequestMeta): Promise<typeof ACCEPTED> {
    const email = normalizeEmail(emailInput);
    await this.mailThrottle.take(email, meta.ip);
    this.deps.defer(() => this.sendResetCode(email, meta));
    return ACCEPTED;
  }

  private async sendResetCode(email: string, meta: RequestMeta): Promise<void> {
    const user = await this.findUserByEmail(email);
    if (!user) return;
    const now = this.ctx.clock.now();
    const code = await this.ctx.db.transaction().execute(async (trx) => {
      const issued = await issueCode(trx, this.ctx.appSecret, user, 'reset', now, HOUR);
      await this.auditAnonymous(trx, user, meta, 'user.password_reset_requested', now);
      return issued;
    });
    await this.ctx.mailer.send({
      to: email,
      subject: `Your Kontor password reset code: ${code}`,
      text: `Your password reset code is ${code}. It is valid for one hour and works once.\nSet a new password with POST /v1/auth/reset-password {"email", "code", "newPassword"}.\n\nIf you did not ask for it, ignore this mail; your password stays as it is.`,
    });
  }

  async resetPassword(input: Reset, meta: RequestMeta): Promise<{ status: string }> {
    const email = normalizeEmail(input.email);
    checkPassword(input.newPassword, this.ctx.config.passwordMinLength, 'newPassword');
    await this.codeThrottle.check(email, meta.ip);
    const passwordHash = await this.deps.hashPassword(input.newPassword);
    const user = await this.findUserByEmail(email);
    const now = this.ctx.clock.now();
    // The code lookup runs for unknown emails too, so the time tells nothing either.
    const ok = await this.ctx.db.transaction().execute(async (trx) => {
      const spent = await consumeCode(
        trx,
        this.ctx.appSecret,
        user?.id ?? NO_USER,
        ['reset', 'invite'],
        input.code,
        now,
      );
      if (!spent || !user) return false;
      const purpose = spent.purpose;
      await setPassword(trx, user, passwordHash, now.toISOString());
      await revokeSessions(trx, { userId: user.id }, 'password_reset', now);
      if (input.revokeApiTokens ?? true)
        await deleteUserApiTokens(
          trx,
          this.actor(user, meta),
          { accountId: user.account_id, userId: user.id },
          'password_reset',
          now,
        );
      const action = purpose === 'invite' ? 'user.invitation_accepted' : 'user.password_reset';
      await appendAudit(
        trx,
        this.actor(user, meta),
        {
          action,
          resourceType: 'user',
          resourceId: user.id,
          changes: { status: { from: user.status, to: 'ACTIVE' } },
        },
        now,
      );
      return true;
    });
    if (!ok || !user) {
      await this.codeThrottle.fail(email, meta.ip);
      throw codeInvalid();
    }
    await this.codeThrottle.succeed(email, meta.ip);
    await this.ctx.credentials.invalidate({ type: 'user', id: user.id });
    return { status: 'password_reset' };
  }
}
