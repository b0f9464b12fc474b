import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Actor } from './audit.js';

/** How often a document's customer page was opened, over all its links. */
export interface CustomerViews {
  firstViewedAt: string | null;
  lastViewedAt: string | null;
  viewCount: number;
}

/**
 * A printed link's token and URL drawn before a finalize renders its PDF, so that one render
 * prints the URL; nothing is stored until the finalizing transaction writes the link
 * (`atFinalize`). Held in memory only: a finalize that fails leaves no trace of it.
 */
export interface ReservedLink {
  token: string;
  url: string;
}

/**
 * What the documents module asks of the customer's page (docs/customer-page.md): the link made
 * when a document becomes FINAL (printed on its PDF), a link for the mail, and the views.
 * Declared here, below both modules, so the documents module can ask without importing the one
 * that reads it.
 */
export interface CustomerLinkIssuer {
  /**
   * Before a finalize renders: when the account enables links and the document type has a
   * page, a fresh token and its URL for the PDF to print (nothing stored); else undefined.
   */
  reserve(accountId: string, documentType: string): Promise<ReservedLink | undefined>;
  /**
   * In the finalizing transaction: when the account enables links and the document type has a
   * page, creates the document's printed link (its URL kept sealed so the PDF and the mail can
   * show it again) with the `reserved` token when given, and answers its URL; else undefined.
   */
  atFinalize(
    trx: Transaction<DB>,
    actor: Actor,
    documentId: string,
    documentType: string,
    reserved?: ReservedLink,
  ): Promise<string | undefined>;
  /** The URL of the link made at finalization (whatever its state since), for the PDF. */
  printedUrl(accountId: string, documentId: string): Promise<string | undefined>;
  /**
   * The URL for a mail when the account puts links into mails: the printed link while it is
   * active, else a new link; undefined when the account sends no links.
   */
  forMail(actor: Actor, documentId: string): Promise<string | undefined>;
  /** The views over the document's links; undefined when it has no link. */
  views(accountId: string, documentId: string): Promise<CustomerViews | undefined>;
}
