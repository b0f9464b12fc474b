/** The customer-pages module's face: a document's page for its customer, and its links. */
import type { AppContext } from '../../context.js';
import type { CustomerLinkIssuer } from '../../shared/customer-links.js';
import { CustomerLinksService } from './customer-links.service.js';

export { customerLinkRoutes } from './customer-links.routes.js';
export { customerPageRoutes } from './customer-page.routes.js';

/** What `send` asks for the mail: a new link when the account puts links into mails. */
export function customerLinkIssuer(ctx: AppContext): CustomerLinkIssuer {
  const service = new CustomerLinksService(ctx);
  return { forMail: (actor, documentId) => service.forMail(actor, documentId) };
}
