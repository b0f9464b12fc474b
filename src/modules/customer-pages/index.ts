/** The customer-pages module's face: a document's page for its customer, and its links. */
import type { AppContext } from '../../context.js';
import type { CustomerLinkIssuer } from '../../shared/customer-links.js';
import { CustomerLinksService } from './customer-links.service.js';

export { customerLinkRoutes } from './customer-links.routes.js';
export { customerPageRoutes } from './customer-page.routes.js';

/** What the documents module asks: the printed link at finalization, a mail's link, views. */
export function customerLinkIssuer(ctx: AppContext): CustomerLinkIssuer {
  const service = new CustomerLinksService(ctx);
  return {
    reserve: (accountId, type) => service.reserve(accountId, type),
    atFinalize: (trx, actor, documentId, type, reserved) =>
      service.atFinalize(trx, actor, documentId, type, reserved),
    printedUrl: (accountId, documentId) => service.printedUrl(accountId, documentId),
    forMail: (actor, documentId) => service.forMail(actor, documentId),
    views: (accountId, documentId) => service.views(accountId, documentId),
  };
}
