import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { appendAudit } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { randomBase62, sha256 } from '../../shared/secrets.js';
import { normalizeEmail } from '../../shared/email-address.js';
import { anyUserExists, revokeSessions, sessionOfRefreshToken } from '../users/index.js';
import type { Login, Tokens } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import type { RequestMeta } from './auth.support.js';
import { insertAccountWithOwner } from './new-account.js';
import { checkPassword, hashPassword } from './passwords.js';
import { insertSetupLink, isOpenSetupLink, spendSetupLinks } from './setup-links.repository.js';

export interface SetupInput {
  token: string;
  email: string;
  password: string;
  name: string;
  companyName: string;
}

const setupLinkInvalid = () =>
  new AppError(
    'setup_link_invalid',
    'This setup link was used already or is unknown. Sign in, or ask the operator for a new link (npx kontor setup-link).',
  );

/**
 * The web app's sign-in (docs/web.md): the same sessions as `/v1/auth/login`, held by the web
 * client: the refresh token goes into an HttpOnly cookie (set by the routes), the access token
 * into the page's memory. And the one-time setup link that creates the first account.
 */
export class WebSessionService {
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
  ) {}

  signIn(input: Login, meta: RequestMeta): Promise<Tokens> {
    return this.auth.login(input, meta, 'web');
  }

  refresh(refreshToken: string, meta: RequestMeta): Promise<Tokens> {
    return this.auth.refresh(refreshToken, meta, 'web');
  }

  /** Ends the session the cookie's refresh token belongs to; nothing when there is none. */
  async signOut(refreshToken: string, meta: RequestMeta): Promise<void> {
    const now = this.ctx.clock.now();
    const ended = await this.ctx.db.transaction().execute(async (trx) => {
      const session = await sessionOfRefreshToken(trx, sha256(refreshToken), 'web');
      if (session === undefined) return undefined;
      await revokeSessions(trx, { sessionId: session.sessionId }, 'logout', now);
      await appendAudit(
        trx,
        {
          accountId: session.accountId,
          userId: session.userId,
          tokenId: null,
          type: 'user',
          requestId: meta.requestId,
          ip: meta.ip,
        },
        {
          action: 'session.revoked',
          resourceType: 'session',
          resourceId: session.sessionId,
          changes: { reason: 'logout' },
        },
        now,
      );
      return session.sessionId;
    });
    if (ended !== undefined) await this.ctx.credentials.invalidate({ type: 'session', id: ended });
  }

  async checkSetupLink(token: string): Promise<{ status: 'open' }> {
    if (!(await isOpenSetupLink(this.ctx.db, sha256(token))) || (await anyUserExists(this.ctx.db)))
      throw setupLinkInvalid();
    return { status: 'open' };
  }

  /** The owner's account from a setup link: confirmed at once (the link proved the operator). */
  async setup(input: SetupInput, meta: RequestMeta): Promise<Tokens> {
    const email = normalizeEmail(input.email);
    checkPassword(input.password, this.ctx.config.passwordMinLength, 'password');
    // A link that does not open the door costs no password hash.
    await this.checkSetupLink(input.token);
    const passwordHash = await hashPassword(input.password);
    const now = this.ctx.clock.now();
    const opened = await this.ctx.db.transaction().execute(async (trx) => {
      if (!(await spendSetupLinks(trx, sha256(input.token), now.toISOString())))
        throw setupLinkInvalid();
      if (await anyUserExists(trx)) throw setupLinkInvalid();
      const { user } = await insertAccountWithOwner(
        trx,
        { email, passwordHash, name: input.name, companyName: input.companyName },
        'ACTIVE',
        meta,
        now,
      );
      return { user, tokens: await this.auth.openSession(trx, user, meta, now, 'web') };
    });
    return this.auth.tokensResponse(opened.tokens, opened.user.id);
  }
}

/**
 * A new one-time setup link when the installation has no user yet (the first start, every
 * start until the owner used one, and the CLI's `setup-link`); undefined once anyone exists.
 * Links stay valid until one of them is used.
 */
export async function createSetupLink(
  ctx: Pick<AppContext, 'db' | 'clock'>,
): Promise<string | undefined> {
  if (await anyUserExists(ctx.db)) return undefined;
  const token = `kst_${randomBase62(40)}`;
  await insertSetupLink(ctx.db, {
    id: newId('setupLink'),
    token_hash: sha256(token),
    created_at: ctx.clock.now().toISOString(),
  });
  return token;
}
