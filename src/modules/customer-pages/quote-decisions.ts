/**
 * The customer's answer to a quote, behind one small adapter: the page calls `decideQuote`,
 * which hands the decision to the documents module (it records the name and time in the audit
 * trail, mails the seller and emits the webhook event). Until the documents module offers that
 * decision, the adapter says so and the page answers "not available".
 */
import type { AppContext } from '../../context.js';

export interface QuoteDecision {
  decision: 'ACCEPTED' | 'DECLINED';
  /** The name the customer typed. */
  name: string;
  /** Where the decision came from, for the audit trail. */
  via: { customerLinkId: string; ip: string };
}

/** Thrown while the documents module has no quote decisions. */
export class QuoteDecisionsUnavailable extends Error {
  constructor() {
    super('Quote decisions are not available: the documents module does not offer decideQuote.');
    this.name = 'QuoteDecisionsUnavailable';
  }
}

/** Records the customer's decision on a FINAL quote of the account. */
export function decideQuote(
  _ctx: AppContext,
  _accountId: string,
  _documentId: string,
  _input: QuoteDecision,
): Promise<void> {
  return Promise.reject(new QuoteDecisionsUnavailable());
}
