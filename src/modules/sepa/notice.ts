import type { AppContext } from '../../context.js';
import type { DirectDebitNotice } from '../../shared/templating/index.js';
import { findAccount, readCompany } from '../account/index.js';
import { billingOf, findContract } from '../contracts/index.js';
import {
  prepaidMinor,
  useDirectDebitNotices,
  type DirectDebitNoticeSource,
} from '../documents/index.js';
import { nextSequenceType } from './mandates.service.js';
import { earliestCollectionDate } from './sepa-dates.js';
import { readSepaSettings } from './sepa-settings.service.js';
import * as repo from './sepa.repository.js';

/**
 * The pre-notification of an invoice paid by direct debit (docs/sepa.md, "Pre-notification"):
 * an invoice in EUR of a contract whose billing plan says DIRECT_DEBIT, whose partner has an
 * active mandate, in an account with a creditor identifier. It names the amount asked (the
 * gross total, less the down payments a final invoice deducts), the mandate reference, the
 * creditor id and the collection date: the earliest one the collection
 * rule allows, counted from the day the invoice becomes FINAL (which is when the debtor is
 * notified) — the same date a collection of contract invoices later uses.
 */
export function directDebitNoticeSource(): DirectDebitNoticeSource {
  return async (db, invoice, notifiedOn): Promise<DirectDebitNotice | null> => {
    if (invoice.currency !== 'EUR' || !invoice.contract_id || !invoice.partner_id) return null;
    const contract = await findContract(db, invoice.account_id, invoice.contract_id);
    if (!contract || billingOf(contract)?.paymentMethod !== 'DIRECT_DEBIT') return null;
    const account = await findAccount(db, invoice.account_id);
    const creditorId = account ? readCompany(account).creditorId : null;
    if (creditorId === null) return null;
    const mandate = (await repo.activeMandates(db, invoice.account_id, [invoice.partner_id])).find(
      (m) => nextSequenceType(m) !== null,
    );
    if (!mandate) return null;
    const settings = await readSepaSettings(db, invoice.account_id);
    return {
      // A final invoice collects its gross total less the down payments it deducts.
      amount: Number(invoice.gross_total) - prepaidMinor(invoice),
      mandateReference: mandate.reference,
      creditorId,
      collectionDate: earliestCollectionDate({
        today: notifiedOn,
        dueDate: invoice.due_date,
        invoiceDate: invoice.creation_date,
        notifiedOn,
        preNotificationDays: settings.preNotificationDays,
        scheme: mandate.scheme as 'CORE' | 'B2B',
      }),
    };
  };
}

/** Makes the documents module print the pre-notification on direct-debit invoices. */
export function registerDirectDebitNotices(ctx: AppContext): void {
  useDirectDebitNotices(ctx, directDebitNoticeSource());
}
