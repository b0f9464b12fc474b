import { parse as parseForm } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { App } from '../../http/types.js';
import { MINUTE } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { giroCodeDataUri, giroCodePayload } from '../../shared/girocode.js';
import { hmac, safeEqual } from '../../shared/secrets.js';
import { attachmentDisposition } from '../files/index.js';
import {
  customerDocument,
  customerDocumentFile,
  customerDocumentXRechnung,
  decideQuote,
  type CustomerDocument,
} from '../documents/index.js';
import { cardPaymentConfigured, createCheckoutSession } from './checkout.js';
import { documentPage, messagePage, PAGE_CSS, type QuoteState } from './customer-page.html.js';
import type { CustomerLinkRow } from './customer-links.repository.js';
import { CustomerLinksService } from './customer-links.service.js';

/** Where a hosted checkout lives: the pay form's redirect goes there (CSP `form-action`). */
const CHECKOUT_ORIGIN = 'https://checkout.stripe.com';

/**
 * The customer page's Content-Security-Policy: nothing but its own stylesheet and images, no
 * script at all, forms only to itself (and the provider's checkout it redirects to), never
 * framed, no `<base>`.
 */
export function pageCsp(card: boolean): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self'${card ? ` ${CHECKOUT_ORIGIN}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The form token of a link's page: bound to the link, keyed by the app secret. */
const formToken = (ctx: AppContext, link: CustomerLinkRow) =>
  hmac(ctx.appSecret, `customer-page-form:${link.id}`);

type Params = { token: string };
type Req = FastifyRequest<{ Params: Params }>;

const html = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/html; charset=utf-8').send(body);

const languageOf = (req: FastifyRequest) => {
  const accept = req.headers['accept-language'];
  return typeof accept === 'string' && accept.toLowerCase().startsWith('en') ? 'en' : 'de';
};

/** The GiroCode payload of an invoice's open amount, or undefined when it has none. */
function giroPayload(doc: CustomerDocument): string | undefined {
  const d = doc.document;
  const bank = doc.seller.bankAccounts[0];
  if (
    !bank ||
    d.documentType !== 'INVOICE' ||
    d.invoiceType === 'CREDIT_NOTE' ||
    d.documentNumber === null ||
    !doc.openMinor
  )
    return undefined;
  try {
    return giroCodePayload({
      ...(bank.bic ? { bic: bank.bic } : {}),
      name: bank.accountHolder ?? doc.seller.legalName,
      iban: bank.iban,
      amountMinor: doc.openMinor,
      currency: d.currency,
      reference: d.documentNumber,
    });
  } catch (err) {
    // Outside the EPC standard (another currency, a name too long): no code, the details stay.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

const isQuote = (doc: CustomerDocument) => doc.document.documentType === 'QUOTE';

/** Where a quote stands for its customer: open to answer, or answered / expired. */
function quoteState(ctx: AppContext, doc: CustomerDocument): QuoteState | undefined {
  if (!isQuote(doc)) return undefined;
  const d = doc.document;
  if (d.quoteStatus === 'ACCEPTED' || d.quoteStatus === 'DECLINED') return d.quoteStatus;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  if (d.quoteStatus === 'EXPIRED' || (d.validUntil !== null && d.validUntil < today))
    return 'EXPIRED';
  return 'OPEN';
}

const canPayByCard = (ctx: AppContext, doc: CustomerDocument) =>
  cardPaymentConfigured(ctx.config) &&
  doc.document.documentType === 'INVOICE' &&
  doc.document.invoiceType !== 'CREDIT_NOTE' &&
  (doc.openMinor ?? 0) > 0;

/**
 * `/c/{token}`: a customer's page of one FINAL invoice or quote (docs/customer-page.md), no
 * sign-in: the token is the credential. Server-rendered HTML under a strict CSP, `noindex`, no
 * referrer, never cached; rate-limited per client IP. An unknown, expired or revoked token all
 * answer the same 404 page. Hidden from the OpenAPI document: it is a page, not the API.
 */
export function customerPageRoutes(app: App, ctx: AppContext): void {
  const links = new CustomerLinksService(ctx);
  void app.register((sub: FastifyInstance, _opts, done) => {
    sub.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, next) => next(null, parseForm(body as string)),
    );
    sub.addHook('onRequest', (req, reply, next) => {
      void reply.headers({
        'content-security-policy': pageCsp(cardPaymentConfigured(ctx.config)),
        'x-robots-tag': 'noindex, nofollow',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
      });
      if (ctx.config.rateLimits === 'off') return next();
      ctx.counters.hit(`cp:ip:${req.ip}`, MINUTE).then((state) => {
        const limit = ctx.config.customerPageRequestsPerMinute;
        if (state.count <= limit) return next();
        const retry = String(Math.max(1, Math.ceil(state.resetMs / 1000)));
        void html(reply.header('retry-after', retry), 429, messagePage(languageOf(req), 'tooMany'));
      }, next);
    });
    sub.setErrorHandler((err, req, reply) => {
      const status = err instanceof AppError ? err.status : 500;
      if (status >= 500) req.log.error({ err }, 'customer page failed');
      const kind = status === 404 ? 'notFound' : status >= 500 ? 'unavailable' : 'refused';
      return html(
        reply,
        status === 404 ? 404 : status >= 500 ? 503 : 400,
        messagePage(languageOf(req), kind),
      );
    });
    pageRoutes(sub, ctx, links);
    fileRoutes(sub, ctx, links);
    formRoutes(sub, ctx, links);
    done();
  });
}

const config = { access: 'public' as const };
const schema = { hide: true };

/** The link and document of a request's token; 404 (one answer for every failure) otherwise. */
async function opened(
  ctx: AppContext,
  links: CustomerLinksService,
  req: Req,
): Promise<{ link: CustomerLinkRow; doc: CustomerDocument }> {
  const link = await links.resolve(req.params.token);
  const doc = link && (await customerDocument(ctx, ctx.db, link.account_id, link.document_id));
  if (!link || !doc) throw new AppError('not_found', 'No such page.');
  return { link, doc };
}

/** A form post's checks: its token (bound to the link) and, when sent, its origin. */
function checkForm(ctx: AppContext, req: Req, link: CustomerLinkRow): Record<string, unknown> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const origin = req.headers.origin;
  const own = new URL(ctx.config.publicUrl).origin;
  if (typeof origin === 'string' && origin !== own)
    throw new AppError('forbidden', 'The form was sent from another site.');
  const csrf = body.csrf;
  if (typeof csrf !== 'string' || !safeEqual(csrf, formToken(ctx, link)))
    throw new AppError('forbidden', 'The form token is missing or wrong.');
  return body;
}

/** The page, its stylesheet and its GiroCode. */
function pageRoutes(app: App, ctx: AppContext, links: CustomerLinksService): void {
  app.get('/c/page.css', { config, schema }, (_req, reply) =>
    reply
      .header('cache-control', 'public, max-age=86400')
      .type('text/css; charset=utf-8')
      .send(PAGE_CSS),
  );

  app.get<{ Params: Params; Querystring: Record<string, string | undefined> }>(
    '/c/:token',
    { config, schema },
    async (req, reply) => {
      const { link, doc } = await opened(ctx, links, req);
      await links.recordView(link, doc);
      const quote = quoteState(ctx, doc);
      const base = `/c/${req.params.token}`;
      const query = req.query;
      return html(
        reply,
        200,
        documentPage(doc, {
          base,
          csrf: formToken(ctx, link),
          giroCode: giroPayload(doc) !== undefined,
          card: canPayByCard(ctx, doc),
          ...(quote ? { quote } : {}),
          ...(query.paid === '1' ? { notice: 'paid' as const } : {}),
          ...(query.decided === '1' ? { notice: 'decided' as const } : {}),
        }),
      );
    },
  );

  app.get<{ Params: Params }>('/c/:token/girocode.png', { config, schema }, async (req, reply) => {
    const { doc } = await opened(ctx, links, req);
    const payload = giroPayload(doc);
    if (!payload) throw new AppError('not_found', 'No GiroCode.');
    const uri = await giroCodeDataUri(payload);
    return reply.type('image/png').send(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
  });
}

/** The document's files: its PDF and its XRechnung. */
function fileRoutes(app: App, ctx: AppContext, links: CustomerLinksService): void {
  app.get<{ Params: Params }>('/c/:token/pdf', { config, schema }, async (req, reply) => {
    const { link, doc } = await opened(ctx, links, req);
    if (!doc.hasPdf) throw new AppError('not_found', 'No PDF.');
    const file = await customerDocumentFile(ctx, link.account_id, link.document_id);
    if (!file) throw new AppError('not_found', 'No PDF.');
    return reply
      .header('content-disposition', attachmentDisposition(file.filename))
      .type(file.contentType)
      .send(file.bytes);
  });

  app.get<{ Params: Params }>('/c/:token/xrechnung', { config, schema }, async (req, reply) => {
    const { link, doc } = await opened(ctx, links, req);
    if (!doc.xrechnung) throw new AppError('not_found', 'No XRechnung.');
    const file = await customerDocumentXRechnung(
      ctx,
      link.account_id,
      link.document_id,
      doc.xrechnung,
    );
    return reply
      .header('content-disposition', attachmentDisposition(file.filename))
      .type(file.contentType)
      .send(file.bytes);
  });
}

/** The page's forms: pay by card, a quote's decision. */
function formRoutes(app: App, ctx: AppContext, links: CustomerLinksService): void {
  app.post<{ Params: Params }>('/c/:token/pay', { config, schema }, async (req, reply) => {
    const { link, doc } = await opened(ctx, links, req);
    checkForm(ctx, req, link);
    if (!canPayByCard(ctx, doc)) throw new AppError('state_conflict', 'Nothing to pay by card.');
    const page = `${ctx.config.publicUrl}/c/${req.params.token}`;
    const d = doc.document;
    const url = await createCheckoutSession(ctx.config, {
      accountId: link.account_id,
      documentId: link.document_id,
      partnerId: d.partnerId,
      partnerName: d.partnerName,
      amountMinor: doc.openMinor!,
      currency: d.currency,
      title: `${d.documentNumber ?? d.name} – ${doc.seller.legalName}`.slice(0, 250),
      successUrl: `${page}?paid=1`,
      cancelUrl: page,
    });
    return reply.code(303).header('location', url).send();
  });

  app.post<{ Params: Params }>('/c/:token/decision', { config, schema }, async (req, reply) => {
    const { link, doc } = await opened(ctx, links, req);
    const body = checkForm(ctx, req, link);
    if (!isQuote(doc)) throw new AppError('not_found', 'No quote.');
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const decision = body.decision;
    if (name === '' || name.length > 200 || (decision !== 'ACCEPTED' && decision !== 'DECLINED'))
      throw new AppError('validation_failed', 'Name and decision are required.');
    try {
      await decideQuote(ctx, link.account_id, link.document_id, {
        decision,
        name,
        via: 'customer',
        source: { customerLinkId: link.id, ip: req.ip },
      });
    } catch (err) {
      // Answered before (here or by the seller), or expired: a page that says so, nothing new.
      if (err instanceof AppError && err.code === 'state_conflict')
        return html(reply, 409, messagePage(doc.language, 'quoteClosed', `/c/${req.params.token}`));
      throw err;
    }
    return reply.code(303).header('location', `/c/${req.params.token}?decided=1`).send();
  });
}
