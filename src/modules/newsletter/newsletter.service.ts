import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { HOUR } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { sha256 } from '../../shared/secrets.js';
import { normalizeEmail } from '../../shared/email-address.js';
import { LinkSigner, type LinkPurpose } from './newsletter.links.js';
import * as repo from './newsletter.repository.js';
import type {
  LinkResult,
  OwnSubscription,
  SignupAccepted,
  UpdateOwnSubscription,
} from './newsletter.schemas.js';

/** Confirmation mails per address and hour; past that, signups are accepted and ignored. */
const MAILS_PER_ADDRESS = 3;
/** Signups per IP and hour; past that, 429. */
const SIGNUPS_PER_IP = 20;
const SEND_BATCH = 500;

const ACCEPTED: SignupAccepted = {
  status: 'confirmation_sent',
  message:
    'If the address is not yet subscribed, a confirmation link is on its way. The subscription starts when the link is followed.',
};

const linkInvalid = () =>
  new AppError(
    'link_invalid',
    'This link is invalid or has expired. Sign up again, or use the link from a newer mail.',
  );

/** The absolute address of a signed newsletter link. */
export function linkUrl(ctx: AppContext, purpose: LinkPurpose, token: string): string {
  return `${ctx.config.publicUrl}/v1/newsletter/${purpose}?token=${encodeURIComponent(token)}`;
}

/**
 * Newsletter double opt-in (decisions §14). Signup answers the same for every address and does
 * its work after answering, so it reveals nothing about who is subscribed. Signup and the
 * mailed links have no account and no user behind them, hence no audit event (the audit trail
 * is per account, decisions §15); only the signed-in `setOwn` writes one.
 */
export class NewsletterService {
  private readonly links: LinkSigner;

  constructor(private readonly ctx: AppContext) {
    this.links = new LinkSigner(ctx.appSecret);
  }

  /**
   * Refuses with 429 past 20 signups per IP and hour (counted per IP only, whatever the
   * address, so the refusal says nothing about addresses); otherwise answers at once and
   * mails the confirm link afterwards.
   */
  async signup(emailInput: string, ip: string): Promise<SignupAccepted> {
    const byIp = await this.ctx.counters.hit(`newsletter:ip:${ip}`, HOUR);
    if (byIp.count > SIGNUPS_PER_IP) {
      const retryAfter = Math.max(1, Math.ceil(byIp.resetMs / 1000));
      throw new AppError(
        'rate_limited',
        `Too many signups from this address. Try again in ${retryAfter} seconds.`,
        { headers: { 'retry-after': String(retryAfter) } },
      );
    }
    const email = normalizeEmail(emailInput);
    this.sendConfirmation(email).catch((err: unknown) =>
      this.ctx.logger.error({ err }, 'newsletter confirmation mail failed'),
    );
    return ACCEPTED;
  }

  private async sendConfirmation(email: string): Promise<void> {
    const existing = await repo.findByEmail(this.ctx.db, email);
    if (existing?.status === 'SUBSCRIBED') return;
    // At most 3 confirmation mails per address and hour, silently: the answer must not change.
    const sent = await this.ctx.counters.hit(`newsletter:e:${sha256(email)}`, HOUR);
    if (sent.count > MAILS_PER_ADDRESS) return;
    const row = await this.markPending(email, existing);
    if (!row) return;
    const link = linkUrl(
      this.ctx,
      'confirm',
      this.links.issue(row.id, 'confirm', this.ctx.clock.now()),
    );
    await this.ctx.mailer.send({
      to: email,
      subject: 'Confirm your Kontor newsletter subscription',
      text: `Please confirm that you want to receive the Kontor newsletter at this address:\n\n${link}\n\nThe link is valid for 7 days. If you did not sign up, ignore this mail and nothing will be sent to you.`,
    });
  }

  /** Creates the PENDING row, or moves an existing one (back) to PENDING; undefined if it became SUBSCRIBED meanwhile. */
  private async markPending(
    email: string,
    existing: repo.SubscriptionRow | undefined,
  ): Promise<repo.SubscriptionRow | undefined> {
    let current = existing;
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.ctx.clock.now().toISOString();
      if (!current) {
        const row: repo.SubscriptionRow = {
          id: newId('newsletterSubscription'),
          email,
          status: 'PENDING',
          user_id: null,
          confirmed_at: null,
          unsubscribed_at: null,
          version: 1,
          created_at: now,
          updated_at: now,
        };
        if (await repo.insertIfAbsent(this.ctx.db, row)) return row;
      } else {
        if (current.status === 'SUBSCRIBED') return undefined;
        const updated = await repo.updateSubscription(this.ctx.db, current.id, current.version, {
          status: 'PENDING',
          updated_at: now,
        });
        if (updated) return updated;
      }
      current = await repo.findByEmail(this.ctx.db, email); // lost a race: look again
    }
    return undefined;
  }

  /** PENDING → SUBSCRIBED; a second click on the same link answers the same. */
  async confirm(token: string | undefined): Promise<LinkResult> {
    const now = this.ctx.clock.now();
    const id = this.links.verify(token, 'confirm', now);
    if (id === undefined) throw linkInvalid();
    const confirmed = await repo.transition(this.ctx.db, id, ['PENDING'], {
      status: 'SUBSCRIBED',
      confirmed_at: now.toISOString(),
      unsubscribed_at: null,
      updated_at: now.toISOString(),
    });
    if (confirmed) return { status: 'subscribed' };
    const row = await repo.findById(this.ctx.db, id);
    if (row?.status === 'SUBSCRIBED') return { status: 'subscribed' };
    // Unknown, or unsubscribed since the link was mailed: an old confirm link must not undo
    // a later unsubscription; a new signup mails a new link.
    throw linkInvalid();
  }

  /** Any state → UNSUBSCRIBED; idempotent, so a repeated click or one-click POST answers the same. */
  async unsubscribe(token: string | undefined): Promise<LinkResult> {
    const now = this.ctx.clock.now();
    const id = this.links.verify(token, 'unsubscribe', now);
    if (id === undefined) throw linkInvalid();
    const done = await repo.transition(this.ctx.db, id, ['PENDING', 'SUBSCRIBED'], {
      status: 'UNSUBSCRIBED',
      unsubscribed_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    if (done) return { status: 'unsubscribed' };
    const row = await repo.findById(this.ctx.db, id);
    if (row?.status === 'UNSUBSCRIBED') return { status: 'unsubscribed' };
    throw linkInvalid();
  }

  /**
   * The caller's own address: subscribed at once without a confirmation mail (the address was
   * verified at registration or invitation), or unsubscribed. Audited in the caller's account.
   */
  async setOwn(actor: Actor, input: UpdateOwnSubscription): Promise<OwnSubscription> {
    if (actor.userId === null) throw new Error('setOwn needs a user');
    const userId = actor.userId;
    const stored = await repo.findUserEmail(this.ctx.db, actor.accountId, userId);
    if (stored === undefined) throw notFound('User');
    const email = normalizeEmail(stored);
    const target = input.subscribed ? 'SUBSCRIBED' : 'UNSUBSCRIBED';

    return this.ctx.db.transaction().execute(async (trx) => {
      const now = this.ctx.clock.now();
      const at = now.toISOString();
      for (let attempt = 0; attempt < 5; attempt++) {
        const before = await repo.findByEmail(trx, email);
        const values: Partial<repo.SubscriptionRow> = {
          status: target,
          user_id: userId,
          updated_at: at,
        };
        if (target === 'SUBSCRIBED' && before?.status !== 'SUBSCRIBED') {
          values.confirmed_at = at;
          values.unsubscribed_at = null;
        }
        if (target === 'UNSUBSCRIBED' && before?.status !== 'UNSUBSCRIBED')
          values.unsubscribed_at = at;

        let after: repo.SubscriptionRow | undefined;
        if (before) {
          after = await repo.updateSubscription(trx, before.id, before.version, values);
        } else {
          const row: repo.SubscriptionRow = {
            id: newId('newsletterSubscription'),
            email,
            status: target,
            user_id: userId,
            confirmed_at: values.confirmed_at ?? null,
            unsubscribed_at: values.unsubscribed_at ?? null,
            version: 1,
            created_at: at,
            updated_at: at,
          };
          if (await repo.insertIfAbsent(trx, row)) after = row;
        }
        if (!after) continue; // a concurrent signup or link click came first: re-read
        await appendAudit(
          trx,
          actor,
          {
            action: input.subscribed ? 'newsletter.subscribed' : 'newsletter.unsubscribed',
            resourceType: 'newsletter_subscription',
            resourceId: after.id,
            changes: { status: { from: before?.status ?? null, to: after.status } },
          },
          now,
        );
        return { email, subscribed: after.status === 'SUBSCRIBED', status: target };
      }
      throw new AppError('state_conflict', 'The subscription is changing; try again.');
    });
  }
}

/**
 * Mails the newsletter to every SUBSCRIBED address, each with its own unsubscribe link in the
 * text and as RFC 8058 one-click `List-Unsubscribe` headers. A failed delivery is logged and
 * skipped so one bad address does not stop the rest; answers how many were handed over.
 */
export async function sendNewsletter(
  ctx: AppContext,
  input: { subject: string; text: string },
): Promise<{ sent: number }> {
  const links = new LinkSigner(ctx.appSecret);
  let sent = 0;
  let afterId: string | undefined;
  for (;;) {
    const rows = await repo.subscribedPage(ctx.db, afterId, SEND_BATCH);
    for (const row of rows) {
      const url = linkUrl(ctx, 'unsubscribe', links.issue(row.id, 'unsubscribe', ctx.clock.now()));
      try {
        await ctx.mailer.send({
          to: row.email,
          subject: input.subject,
          text: `${input.text}\n\n--\nYou receive this because you subscribed to the Kontor newsletter. Unsubscribe: ${url}`,
          headers: {
            'List-Unsubscribe': `<${url}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
        });
        sent++;
      } catch (err) {
        ctx.logger.error({ err, subscriptionId: row.id }, 'newsletter delivery failed');
      }
    }
    if (rows.length < SEND_BATCH) return { sent };
    afterId = rows[rows.length - 1]!.id;
  }
}
