import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { DAY } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { findAccount, lockAccount } from '../account/index.js';
import { normalizeEmail } from '../../shared/email-address.js';
import { issueCode } from './codes.js';
import { revokeSessions } from './sessions.js';
import { presentUser, type UserRow } from './users.presenter.js';
import * as repo from './users.repository.js';
import type { InviteUser, ListUsers, User } from './users.schemas.js';

const INVITE_TTL_MS = 7 * DAY;

/**
 * Users of the account (decisions §3–4): invitations with a mailed code, a side-effect-free
 * preview, role changes and removal. "At least one admin" and the plan's seats are checked
 * under the account row's lock, so concurrent requests cannot break them together.
 */
export class UsersService {
  constructor(private readonly ctx: AppContext) {}

  async list(
    accountId: string,
    q: ListUsers,
  ): Promise<{ data: User[]; nextCursor: string | null }> {
    const limit = q.limit ?? 25;
    const rows = await repo.listUsers(this.ctx.db, accountId, {
      after: decodeCursor(q.cursor),
      role: q.role,
      status: q.status,
      limit: limit + 1,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentUser), nextCursor: page.nextCursor };
  }

  async get(accountId: string, userId: string): Promise<User> {
    const row = await repo.findUser(this.ctx.db, accountId, userId);
    if (!row) throw notFound('User');
    return presentUser(row);
  }

  /**
   * What an invitation would do; creates nothing. Whether the email is taken is answered for
   * this account's users only: a side-effect-free question about any address would tell every
   * admin of every account which emails are registered anywhere.
   */
  async preview(accountId: string, input: InviteUser) {
    const email = normalizeEmail(input.email);
    const [account, taken, used] = await Promise.all([
      findAccount(this.ctx.db, accountId),
      repo.emailTakenInAccount(this.ctx.db, accountId, email),
      repo.countUsers(this.ctx.db, accountId),
    ]);
    const plan = this.ctx.plans.get(account?.plan_id ?? 'FREE');
    const problems: { code: string; message: string }[] = [];
    if (taken) problems.push({ code: 'duplicate', message: 'A user with this email exists.' });
    if (used >= plan.seats)
      problems.push({
        code: 'seat_limit_reached',
        message: `The ${plan.name} plan includes ${plan.seats} seats, all in use.`,
      });
    return {
      valid: problems.length === 0,
      action: `Invite ${email} as ${input.role ?? 'user'}; an invitation code is mailed to them.`,
      emailAvailable: !taken,
      seats: { used, included: plan.seats, afterInvite: used + 1 },
      priceEffect: { currency: plan.currency, monthlyDelta: 0 },
      problems,
    };
  }

  async invite(actor: Actor, input: InviteUser): Promise<User> {
    const email = normalizeEmail(input.email);
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    const row: UserRow = {
      id: newId('user'),
      account_id: actor.accountId,
      email,
      name: input.name,
      role: input.role ?? 'user',
      status: 'INVITED',
      password_hash: null,
      email_confirmed_at: null,
      last_login_at: null,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    let code: string;
    try {
      code = await this.ctx.db.transaction().execute(async (trx) => {
        await lockAccount(trx, actor.accountId);
        const account = await findAccount(trx, actor.accountId);
        const plan = this.ctx.plans.get(account?.plan_id ?? 'FREE');
        if ((await repo.countUsers(trx, actor.accountId)) >= plan.seats)
          throw new AppError(
            'seat_limit_reached',
            `The ${plan.name} plan includes ${plan.seats} seats, all in use.`,
          );
        await repo.insertUser(trx, row);
        const issued = await issueCode(trx, this.ctx.appSecret, row, 'invite', now, INVITE_TTL_MS);
        await appendAudit(
          trx,
          actor,
          {
            action: 'user.invited',
            resourceType: 'user',
            resourceId: row.id,
            changes: presentUser(row),
          },
          now,
        );
        return issued;
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('duplicate', 'A user with this email exists.', {
          errors: [{ path: '/body/email', message: 'is already registered', code: 'duplicate' }],
        });
      throw err;
    }
    const account = await findAccount(this.ctx.db, actor.accountId);
    this.ctx.mailer
      .send({
        to: email,
        subject: `You are invited to ${account?.name ?? 'a Kontor account'} on Kontor`,
        text: `Hello ${input.name},\n\nyou have been invited to ${account?.name ?? 'a Kontor account'} on Kontor.\nYour invitation code is ${code}; it is valid for 7 days.\nSet your password with POST /v1/auth/reset-password {"email": "${email}", "code": "${code}", "newPassword"} and sign in.`,
      })
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'invitation mail failed'));
    return presentUser(row);
  }

  async changeRole(
    actor: Actor,
    userId: string,
    role: 'admin' | 'user',
    ifMatch: number | '*' | undefined,
  ): Promise<User> {
    const now = this.ctx.clock.now();
    const user = await this.ctx.db.transaction().execute(async (trx) => {
      await lockAccount(trx, actor.accountId);
      const before = await repo.findUser(trx, actor.accountId, userId);
      if (!before) throw notFound('User');
      if (typeof ifMatch === 'number' && ifMatch !== before.version)
        throw new AppError(
          'precondition_failed',
          `If-Match does not match the current version ${before.version}.`,
          {
            members: { currentVersion: before.version },
          },
        );
      if (before.role === role) return before;
      if (before.role === 'admin') await this.assertAnotherAdmin(trx, actor.accountId, userId);
      const after = await repo.setUserRole(trx, actor.accountId, userId, role, now.toISOString());
      await appendAudit(
        trx,
        actor,
        {
          action: 'user.role_changed',
          resourceType: 'user',
          resourceId: userId,
          changes: { role: { from: before.role, to: role } },
        },
        now,
      );
      return after;
    });
    await this.ctx.credentials.invalidate({ type: 'user', id: userId });
    return presentUser(user);
  }

  /** Removes the user with their sessions, tokens and codes; effective immediately. */
  async remove(actor: Actor, userId: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      await lockAccount(trx, actor.accountId);
      const user = await repo.findUser(trx, actor.accountId, userId);
      if (!user) throw notFound('User');
      if (user.role === 'admin') await this.assertAnotherAdmin(trx, actor.accountId, userId);
      await revokeSessions(trx, { userId }, 'user_deleted', now);
      await repo.deleteUser(trx, actor.accountId, userId);
      await appendAudit(
        trx,
        actor,
        {
          action: 'user.deleted',
          resourceType: 'user',
          resourceId: userId,
          changes: presentUser(user),
        },
        now,
      );
    });
    await this.ctx.credentials.invalidate({ type: 'user', id: userId });
  }

  private async assertAnotherAdmin(
    trx: Transaction<DB>,
    accountId: string,
    exceptUserId: string,
  ): Promise<void> {
    if (!(await repo.hasAnotherActiveAdmin(trx, accountId, exceptUserId)))
      throw new AppError(
        'last_admin',
        'The account needs at least one active admin. Make another user admin first.',
      );
  }
}
