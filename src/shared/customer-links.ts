import type { Actor } from './audit.js';

/**
 * What sending a document asks of the customer's page (docs/customer-page.md): a new link to
 * the FINAL document for the mail, when the account puts links into mails. Declared here, below
 * both modules, so the documents module can ask without importing the one that reads it.
 */
export interface CustomerLinkIssuer {
  /** The URL of a new link to the document, or undefined when the account sends no links. */
  forMail(actor: Actor, documentId: string): Promise<string | undefined>;
}
