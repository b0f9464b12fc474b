import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { Actor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { AppError, notFound } from '../../shared/errors.js';
import { minorDigits, toMinor } from '../../shared/money.js';
import { findPartner } from '../partners/index.js';
import { deductionsOf, type StoredDeduction } from './documents.deductions.js';
import { isPaid } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { Origin } from './documents.rows.js';
import type { CreateDocument, CreateDownPayment, DocumentView } from './documents.schemas.js';
import { invalid } from './invoice-rules.js';
import { divRoundHalfUp } from './totals.js';

/**
 * Down payments (Abschlags-/Anzahlungsrechnungen) and final invoices (Schlussrechnungen),
 * docs/invoicing.md "Down payments and final invoices": a down payment bills a share of a FINAL
 * quote or order confirmation per VAT rate; the final invoice bills the whole job and deducts
 * each down payment that was received (PAID), with its VAT per rate (§ 14 (5) UStG), as the
 * prepaid amount (BT-113) and the references BG-3 of its e-invoice.
 */

/** One VAT group of the order and the net a down payment bills of it. */
export interface DownPaymentShare {
  taxRateId: string;
  rateBp: number;
  netMinor: number;
}

/**
 * The net per VAT rate of a down payment on an order whose VAT breakdown is `taxes`:
 * - `percentBp` (percent in basis points): each rate's net × percent, rounded half-up;
 * - `grossMinor`: the amount split across the rates in proportion to their gross amounts
 *   (half-up; the last rate takes the remainder), each share's net = share / (1 + rate),
 *   rounded half-up. Its VAT, computed per rate like every invoice's, can move the total by a
 *   cent against the amount asked.
 * Rates whose share is 0 are left out.
 */
export function downPaymentShares(
  taxes: repo.StoredTaxLine[],
  ask: { percentBp: number } | { grossMinor: number },
): DownPaymentShare[] {
  const groups = taxes.filter((t) => t.netMinor > 0);
  let shares: DownPaymentShare[];
  if ('percentBp' in ask) {
    shares = groups.map((t) => ({
      taxRateId: t.taxRateId,
      rateBp: t.rateBp,
      netMinor: Number(divRoundHalfUp(BigInt(t.netMinor) * BigInt(ask.percentBp), 10_000n)),
    }));
  } else {
    const total = groups.reduce((s, t) => s + t.netMinor + t.taxMinor, 0);
    let left = ask.grossMinor;
    shares = groups.map((t, i) => {
      const gross =
        i === groups.length - 1
          ? left
          : Number(
              divRoundHalfUp(
                BigInt(ask.grossMinor) * BigInt(t.netMinor + t.taxMinor),
                BigInt(total),
              ),
            );
      left -= gross;
      return {
        taxRateId: t.taxRateId,
        rateBp: t.rateBp,
        netMinor: Number(divRoundHalfUp(BigInt(gross) * 10_000n, BigInt(10_000 + t.rateBp))),
      };
    });
  }
  return shares.filter((s) => s.netMinor > 0);
}

/** The line text of a down payment's share at one rate, in the partner's language. */
function lineText(
  language: string,
  ordinal: number,
  source: repo.DocumentRow,
  rateBp: number,
  percent: string | undefined,
): string {
  const number = source.document_number ?? source.id;
  const rate = `${(rateBp / 100).toLocaleString(language === 'en' ? 'en' : 'de')} %`;
  if (language === 'en') {
    const what = source.document_type === 'QUOTE' ? 'quote' : 'order';
    return `Down payment ${ordinal} on ${what} ${number}${percent ? `, ${percent} %` : ''} of the items at ${rate} VAT`;
  }
  const what = source.document_type === 'QUOTE' ? 'Angebot' : 'Auftrag';
  return `Abschlagsrechnung ${ordinal} zu ${what} ${number}${percent ? `, ${percent} %` : ''} der Leistungen zu ${rate} USt.`;
}

/** What creating a down payment needs from the documents service: create as POST does. */
export type CreateAs = (
  actor: Actor,
  input: CreateDocument,
  origin: Origin,
) => Promise<DocumentView>;

/** QUOTE or ORDER_CONFIRMATION. */
const isOrder = (documentType: string) =>
  documentType === 'QUOTE' || documentType === 'ORDER_CONFIRMATION';

/** The FINAL quote or order confirmation a down payment is billed on (409 otherwise). */
async function billableOrder(
  ctx: AppContext,
  accountId: string,
  id: string,
  today: string,
): Promise<repo.DocumentRow> {
  const source = await repo.findDocument(ctx.db, accountId, id, today);
  if (!source) throw notFound('Document');
  if (!isOrder(source.document_type))
    throw new AppError(
      'state_conflict',
      `Document ${id} is a ${source.document_type}; down payments are made on quotes and order confirmations.`,
    );
  if (source.status !== 'FINAL')
    throw new AppError(
      'state_conflict',
      `Document ${id} is a DRAFT: finalize it before billing a down payment on it.`,
    );
  const expired =
    source.quote_status === 'EXPIRED' ||
    (source.quote_status === 'OPEN' && source.valid_until !== null && source.valid_until < today);
  if (source.quote_status === 'DECLINED' || expired)
    throw new AppError(
      'state_conflict',
      `Quote ${id} is ${expired ? 'EXPIRED' : 'DECLINED'}; no down payment can be billed on it.`,
      { members: { quoteStatus: expired ? 'EXPIRED' : 'DECLINED' } },
    );
  return source;
}

/**
 * `POST /v1/documents/{id}/down-payments`: a DRAFT down-payment invoice (invoiceType
 * DOWN_PAYMENT, type code 386) on a FINAL quote or order confirmation, one line per VAT rate of
 * the order scaled by `percent` or split from `amount` (`downPaymentShares`), partner,
 * references, delivery date or service period and payment terms copied, `originDocumentId`
 * the order. Numbered in the invoice range when it becomes FINAL, checked as every invoice.
 */
export async function createDownPayment(
  ctx: AppContext,
  create: CreateAs,
  /** The contract reference (BT-12) an invoice from `source` cites (`quoteNumberOf`). */
  citeOf: (source: repo.DocumentRow) => Promise<string | null>,
  actor: Actor,
  id: string,
  input: CreateDownPayment,
): Promise<DocumentView> {
  const { accountId } = actor;
  const today = isoDate(ctx.clock.now());
  if ((input.percent === undefined) === (input.amount === undefined))
    throw invalid(input.percent === undefined ? 'percent' : 'amount', 'give percent or amount');
  const source = await billableOrder(ctx, accountId, id, today);
  const taxes = JSON.parse(source.tax_breakdown) as repo.StoredTaxLine[];
  let shares: DownPaymentShare[];
  let percent: string | undefined;
  if (input.percent !== undefined) {
    shares = downPaymentShares(taxes, { percentBp: Math.round(input.percent * 100) });
    percent = input.percent.toLocaleString('de', { maximumFractionDigits: 2 });
  } else {
    const grossMinor = toMinor(input.amount!, source.currency);
    if (grossMinor === undefined)
      throw invalid('amount', `has more decimals than ${source.currency} allows`);
    if (grossMinor > Number(source.gross_total))
      throw invalid('amount', 'is more than the gross total of the order');
    shares = downPaymentShares(taxes, { grossMinor });
  }
  if (shares.length === 0)
    throw invalid(input.percent !== undefined ? 'percent' : 'amount', 'bills nothing');
  const partner = source.partner_id
    ? await findPartner(ctx.db, accountId, source.partner_id)
    : undefined;
  const language = partner?.language ?? 'de';
  const ordinal = (await repo.downPaymentsOf(ctx.db, accountId, [source.id])).length + 1;
  if (language === 'en' && percent) percent = input.percent!.toLocaleString('en');
  const digits = minorDigits(source.currency);
  return create(
    actor,
    {
      documentType: 'INVOICE',
      name: `${language === 'en' ? 'Down payment' : 'Abschlagsrechnung'} ${ordinal} – ${source.name}`,
      creationDate: input.creationDate ?? today,
      ...(source.partner_id ? { partnerId: source.partner_id } : {}),
      ...(!source.partner_id && source.partner_name ? { partnerName: source.partner_name } : {}),
      ...(source.contract_id ? { contractId: source.contract_id } : {}),
      currency: source.currency,
      lineItems: shares.map((s) => ({
        description: lineText(language, ordinal, source, s.rateBp, percent),
        quantity: 1,
        unitPrice: s.netMinor / 10 ** digits,
        taxRateId: s.taxRateId,
        unitCode: 'C62',
      })),
      ...(source.buyer_reference ? { buyerReference: source.buyer_reference } : {}),
      ...(source.order_reference ? { orderReference: source.order_reference } : {}),
      ...(source.payment_terms ? { paymentTerms: source.payment_terms } : {}),
      ...(source.delivery_date ? { deliveryDate: source.delivery_date } : {}),
      ...(source.service_period_from && source.service_period_to
        ? { servicePeriod: { from: source.service_period_from, to: source.service_period_to } }
        : {}),
    },
    {
      documentId: source.id,
      contractReference: await citeOf(source),
      billingRole: 'DOWN_PAYMENT',
    },
  );
}

/** The documents whose down payments a final invoice from `source` deducts: it and its quote. */
export function jobIds(source: Pick<repo.DocumentRow, 'id' | 'origin_document_id'>): string[] {
  return source.origin_document_id ? [source.id, source.origin_document_id] : [source.id];
}

/** Whether a quote or order confirmation has a FINAL, not cancelled down payment. */
export async function hasDownPayments(
  db: Executor,
  accountId: string,
  source: repo.DocumentRow,
): Promise<boolean> {
  const all = await repo.downPaymentsOf(db, accountId, jobIds(source));
  return all.some((d) => d.status === 'FINAL' && d.cancelled_by_document_id === null);
}

/**
 * The deductions of a final invoice converted from `originId`, as JSON: every down payment of
 * the job that is FINAL, not cancelled and PAID (its MARKED payments cover its gross total),
 * oldest first, with its net, VAT per rate and gross. A down payment not (fully) received is
 * not deducted: the final invoice bills its share.
 */
export async function deductionsFor(
  db: Executor,
  accountId: string,
  originId: string,
  today: string,
): Promise<string> {
  const origin = await repo.findDocument(db, accountId, originId);
  if (!origin) return '[]';
  const all = await repo.downPaymentsOf(db, accountId, jobIds(origin), today);
  const deductions: StoredDeduction[] = all
    .filter((d) => d.status === 'FINAL' && d.cancelled_by_document_id === null && isPaid(d))
    .map((d) => ({
      documentId: d.id,
      documentNumber: d.document_number ?? d.id,
      creationDate: d.creation_date,
      netMinor: Number(d.net_total),
      taxMinor: Number(d.tax_total),
      grossMinor: Number(d.gross_total),
      taxes: (JSON.parse(d.tax_breakdown) as repo.StoredTaxLine[]).map((t) => ({
        rateBp: t.rateBp,
        category: t.category ?? 'S',
        netMinor: t.netMinor,
        taxMinor: t.taxMinor,
      })),
    }));
  return JSON.stringify(deductions);
}

/**
 * A final invoice becoming FINAL deducts what was received by then: its deductions computed
 * again in the finalizing transaction. Other documents: nothing.
 */
export async function finalInvoiceValues(
  db: Executor,
  row: repo.DocumentRow,
  today: string,
): Promise<Partial<repo.DocumentRow>> {
  if (row.billing_role !== 'FINAL' || row.origin_document_id === null) return {};
  return {
    down_payment_deductions: await deductionsFor(db, row.account_id, row.origin_document_id, today),
  };
}

/** Whether a row is a final invoice still in DRAFT (its deductions are computed when read). */
const isDraftFinal = (row: repo.DocumentRow) =>
  row.billing_role === 'FINAL' &&
  row.invoice_type !== 'CREDIT_NOTE' &&
  row.status === 'DRAFT' &&
  row.origin_document_id !== null;

/**
 * Rows as reads answer them: a DRAFT final invoice deducts what it would deduct if it became
 * FINAL now (every down payment of the job FINAL, not cancelled and PAID today), so a down
 * payment paid or cancelled after the draft was made shows at once; what it stored at its
 * conversion is not read. Other rows are answered as they are.
 */
export async function withCurrentDeductions<R extends repo.DocumentRow>(
  db: Executor,
  rows: R[],
  today: string,
): Promise<R[]> {
  return Promise.all(
    rows.map(async (r) =>
      isDraftFinal(r)
        ? {
            ...r,
            down_payment_deductions: await deductionsFor(
              db,
              r.account_id,
              r.origin_document_id!,
              today,
            ),
          }
        : r,
    ),
  );
}

/** `withCurrentDeductions` of one row. */
export async function withCurrentDeduction<R extends repo.DocumentRow>(
  db: Executor,
  row: R,
  today: string,
): Promise<R> {
  return (await withCurrentDeductions(db, [row], today))[0]!;
}

/**
 * Writes the rows of what a final invoice that has just become FINAL deducts
 * (`document_deductions`, in its transaction), from the deductions it was frozen with.
 */
export async function recordDeductions(
  trx: Executor,
  row: repo.DocumentRow,
  now: Date,
): Promise<void> {
  // A credit note of a final invoice copies its columns, but deducts nothing.
  if (row.billing_role !== 'FINAL' || row.invoice_type === 'CREDIT_NOTE') return;
  await repo.insertDeductions(trx, row.account_id, row.id, deductionsOf(row), now.toISOString());
}

/**
 * A down payment that a FINAL final invoice deducts (and no Storno cancelled since) cannot be
 * cancelled or credited: 409 `state_conflict` naming the final invoice (number and id), found
 * through `document_deductions`. Other invoices pass.
 */
export async function assertNotDeducted(db: Executor, invoice: repo.DocumentRow): Promise<void> {
  if (invoice.billing_role !== 'DOWN_PAYMENT') return;
  const [final] = await repo.finalInvoicesDeducting(db, invoice.account_id, invoice.id);
  if (!final) return;
  const number = final.document_number ?? final.id;
  throw new AppError(
    'state_conflict',
    `Down payment ${invoice.document_number ?? invoice.id} is deducted by the final invoice ${number} (${final.id}); cancel that final invoice first.`,
    { members: { finalInvoiceId: final.id, finalInvoiceNumber: final.document_number } },
  );
}
