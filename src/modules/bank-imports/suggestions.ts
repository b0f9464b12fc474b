import type { Executor } from '../../db/records.js';
import { foldForMatch, matchCategories, type KeywordCategory } from '../budgets/index.js';
import {
  findRunItemsByEndToEndId,
  findSepaBatches,
  type SepaBatchMatch,
  type SepaRunMatch,
} from '../sepa/index.js';
import { matchingCandidates } from './bank-imports.repository.js';
import type { Suggestion } from './bank-imports.schemas.js';
import type { BatchInfo, ParsedEntry } from './parsers/types.js';

/**
 * Explainable suggestions for a statement line (decisions §11): the partner (by IBAN learned
 * from earlier imports, or by name), an open payment or invoice (by amount, invoice number in
 * the purpose, partner and date window), and a budget category (by keyword, debits only). Each
 * has a score 0–100 and the reasons behind it; finalize uses those scoring `USE_SCORE` or more.
 *
 * The account's candidates are read once per import and matched in memory, so staging stays
 * linear in the number of lines.
 */

export const USE_SCORE = 70;

interface OpenPayment {
  id: string;
  direction: string;
  amount: number;
  currency: string;
  partner_id: string | null;
  partner_name: string | null;
  document_number: string | null;
  payment_date: string;
  /** PENDING, or MARKED when recorded by hand as settled and not yet seen on a statement. */
  status: string;
}

interface OpenInvoice {
  id: string;
  document_number: string;
  currency: string;
  partner_id: string | null;
  partner_name: string | null;
  open: number;
}

interface Category extends KeywordCategory {
  currency: string;
}

/** Legal forms and filler words that say nothing about who a counterparty is. */
const NOISE =
  /\b(gmbh|mbh|ag|kg|ohg|ug|e\s?k|e\s?v|co|kgaa|se|ltd|limited|inc|llc|plc|haftungsbeschraenkt|und|and)\b/g;

export function normaliseName(name: string): string {
  return foldForMatch(name)
    .replace(/[^\p{L}\p{N} ]+/gu, ' ')
    .replace(NOISE, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const compactIban = (iban: string | null) => (iban ? iban.replace(/\s+/g, '').toUpperCase() : null);

function daysBetween(a: string, b: string): number {
  return Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;
}

export class Matcher {
  private readonly partnerByName = new Map<string, { id: string; name: string }>();
  private readonly partnerNames: Array<{ id: string; name: string; norm: string }> = [];
  private readonly partnerByIban = new Map<string, { id: string; name: string }>();
  private readonly paymentsByAmount = new Map<string, OpenPayment[]>();
  private readonly invoices: OpenInvoice[] = [];
  private readonly categories: Category[] = [];
  private sepaItems = new Map<string, SepaRunMatch>();
  private sepaBatches = new Map<string, SepaBatchMatch>();

  private constructor() {}

  /**
   * The account's candidates, the SEPA run items the lines' EndToEndIds name, and the runs or
   * run blocks their batch bookings name (by reference, or by the blocks of the items a batch
   * lists).
   */
  static async load(
    db: Executor,
    accountId: string,
    entries: readonly ParsedEntry[] = [],
  ): Promise<Matcher> {
    const m = new Matcher();
    const batches = entries.flatMap((e) => (e.batch ? [e.batch] : []));
    m.sepaItems = await findRunItemsByEndToEndId(db, accountId, [
      ...entries.flatMap((e) => (e.endToEndId ? [e.endToEndId] : [])),
      ...batches.flatMap((b) => b.endToEndIds),
    ]);
    if (batches.length > 0) {
      const listed = batches.flatMap((b) =>
        b.endToEndIds.flatMap((id) => {
          const item = m.sepaItems.get(id);
          return item ? [item.paymentInfoId, item.messageId] : [];
        }),
      );
      m.sepaBatches = await findSepaBatches(db, accountId, [
        ...batches.flatMap((b) => b.references),
        ...listed,
      ]);
    }
    const { partners, ibans, payments, invoices, categories } = await matchingCandidates(
      db,
      accountId,
    );
    for (const p of partners) {
      const norm = normaliseName(p.name);
      if (norm.length === 0) continue;
      m.partnerByName.set(norm, p);
      m.partnerNames.push({ ...p, norm });
    }
    // Later imports win: the newest partner an IBAN was booked to.
    for (const row of ibans)
      m.partnerByIban.set(compactIban(row.counterparty_iban)!, { id: row.id, name: row.name });
    for (const p of payments) {
      const key = `${p.direction}|${p.currency}|${p.amount}`;
      const list = m.paymentsByAmount.get(key) ?? [];
      list.push(p);
      m.paymentsByAmount.set(key, list);
    }
    for (const d of invoices) {
      const open = d.gross_total - Number(d.prepaid ?? 0) - Number(d.paid ?? 0);
      if (open > 0 && d.document_number)
        m.invoices.push({
          id: d.id,
          document_number: d.document_number,
          currency: d.currency,
          partner_id: d.partner_id,
          partner_name: d.partner_name,
          open,
        });
    }
    for (const c of categories)
      m.categories.push({
        id: c.id,
        name: c.name,
        currency: c.currency,
        keywords: JSON.parse(c.keywords) as string[],
      });
    return m;
  }

  suggest(entry: ParsedEntry): Suggestion[] {
    const out: Suggestion[] = [];
    const partner = this.partner(entry);
    if (partner) out.push(partner);
    const batch = entry.batch ? this.sepaBatch(entry, entry.batch) : undefined;
    if (batch) {
      out.push(batch);
      if (batch.score >= USE_SCORE) return out.sort((a, b) => b.score - a.score);
    }
    const sepa = batch ? undefined : this.sepa(entry);
    if (sepa) {
      out.push(sepa);
      return out.sort((a, b) => b.score - a.score);
    }
    const payment = this.payment(entry, partner?.id);
    if (payment) out.push(payment);
    const invoice = entry.amountMinor > 0 ? this.invoice(entry, partner?.id) : undefined;
    if (invoice) out.push(invoice);
    if (entry.amountMinor < 0) out.push(...this.category(entry));
    return out.sort((a, b) => b.score - a.score);
  }

  /**
   * The SEPA run item whose EndToEndId the line names (docs/imports.md, "SEPA round trip"):
   * the booking of a collection (credit) or transfer (debit) confirms the item's payment; a
   * return (camt `RtrInf`, MT940 return GVC, or a reversal) in the opposite direction returns
   * it. The strongest evidence there is: score 100 when the amount is the item's as well.
   */
  private sepa(entry: ParsedEntry): Suggestion | undefined {
    const item = entry.endToEndId ? this.sepaItems.get(entry.endToEndId) : undefined;
    if (!item?.paymentId) return undefined;
    const booked = item.kind === 'COLLECTION' ? entry.amountMinor > 0 : entry.amountMinor < 0;
    const what = item.kind === 'COLLECTION' ? 'collection' : 'transfer';
    const label = item.documentNumber ?? item.documentId;
    const amountFits = Math.abs(entry.amountMinor) === item.amountMinor;
    const isReturn = entry.returnReason !== undefined || entry.reversal;
    if (!booked && isReturn) {
      if (item.returnedOn !== null) return undefined;
      const reason = entry.returnReason ? ` with reason ${entry.returnReason}` : '';
      return {
        type: 'SEPA_RETURN',
        id: item.paymentId,
        label,
        score: amountFits ? 100 : 80,
        reasons: [
          `EndToEndId ${item.endToEndId} of the ${what} of invoice ${label} returned${reason}`,
          ...(amountFits ? ['amount equals the returned item'] : []),
        ],
        code: 'sepa_return',
      };
    }
    if (!booked || item.returnedOn !== null) return undefined;
    return {
      type: 'PAYMENT',
      id: item.paymentId,
      label,
      score: amountFits ? 100 : 60,
      reasons: [
        `EndToEndId ${item.endToEndId} equals that of the ${what} of invoice ${label}`,
        amountFits
          ? 'amount equals the item of the run'
          : `amount differs from the item of the run (${item.amountMinor / 100})`,
      ],
      code: 'end_to_end_id',
    };
  }

  /** The run or run block a batch booking names: by reference, or by the items it lists. */
  private batchOf(info: BatchInfo): { batch: SepaBatchMatch; reference: string } | undefined {
    for (const reference of info.references) {
      const batch = this.sepaBatches.get(reference);
      if (batch) return { batch, reference };
    }
    const items = info.endToEndIds.map((id) => this.sepaItems.get(id));
    const first = items[0];
    if (first === undefined || items.some((i) => i?.runId !== first.runId)) return undefined;
    const sameBlock = items.every((i) => i?.paymentInfoId === first.paymentInfoId);
    const reference = sameBlock ? first.paymentInfoId : first.messageId;
    const batch = this.sepaBatches.get(reference);
    return batch && { batch, reference };
  }

  /**
   * A batch booking of a SEPA run (docs/sepa-domain.md, "Batch booking"): the line names the
   * run's `MsgId` or a block's `PmtInfId` (or lists its items' EndToEndIds) and books the total.
   * Score 100 when direction, amount, count and listed items agree with the block's items not
   * returned; else 40 (never used automatically) with the reason why.
   */
  private sepaBatch(entry: ParsedEntry, info: BatchInfo): Suggestion | undefined {
    const found = this.batchOf(info);
    if (!found) return undefined;
    const { batch, reference } = found;
    const what = batch.kind === 'COLLECTION' ? 'collection' : 'transfer';
    const booked = batch.kind === 'COLLECTION' ? entry.amountMinor > 0 : entry.amountMinor < 0;
    if (!booked) return undefined;
    const standing = batch.items.filter((i) => i.returnedOn === null && i.paymentId !== null);
    const total = standing.reduce((sum, i) => sum + i.amountMinor, 0);
    const label = batch.paymentInfoId ?? batch.messageId;
    const named =
      batch.paymentInfoId === null
        ? `MsgId ${batch.messageId} of a SEPA ${what} run`
        : `PmtInfId ${batch.paymentInfoId} of a SEPA ${what} run`;
    const evidence = info.references.includes(reference)
      ? `${named} is named by the line`
      : `the line lists the EndToEndIds of ${named}`;
    const money = (minor: number) => (minor / 100).toFixed(2);
    const problems: string[] = [];
    if (standing.length === 0) problems.push('every item of the batch was returned');
    else if (total !== Math.abs(entry.amountMinor))
      problems.push(
        `amount ${money(Math.abs(entry.amountMinor))} differs from the batch total ${money(total)} of its ${standing.length} items not returned`,
      );
    if (info.count !== null && info.count !== standing.length)
      problems.push(
        `the bank counts ${info.count} transactions, the batch holds ${standing.length}`,
      );
    if (info.endToEndIds.length > 0) {
      const listed = new Set(info.endToEndIds);
      const missing = standing.filter((i) => !listed.has(i.endToEndId)).length;
      if (missing > 0 || listed.size !== standing.length)
        problems.push(
          `the line lists ${listed.size} EndToEndIds, the batch holds ${standing.length} items not returned (${missing} of them not listed)`,
        );
    }
    return {
      type: 'SEPA_BATCH',
      id: batch.runId,
      label,
      score: problems.length === 0 ? 100 : 40,
      reasons:
        problems.length === 0
          ? [evidence, `amount equals the batch total of its ${standing.length} items`]
          : [evidence, ...problems, 'not booked automatically: confirm its payments by hand'],
      code: 'sepa_batch',
    };
  }

  private partner(entry: ParsedEntry): Suggestion | undefined {
    const iban = compactIban(entry.counterpartyIban);
    const byIban = iban ? this.partnerByIban.get(iban) : undefined;
    if (byIban)
      return {
        type: 'PARTNER',
        id: byIban.id,
        label: byIban.name,
        score: 95,
        reasons: [`IBAN ${iban} was booked to this partner in an earlier import`],
      };
    if (!entry.counterpartyName) return undefined;
    const norm = normaliseName(entry.counterpartyName);
    if (norm.length < 3) return undefined;
    const exact = this.partnerByName.get(norm);
    if (exact)
      return {
        type: 'PARTNER',
        id: exact.id,
        label: exact.name,
        score: 80,
        reasons: [`counterparty name "${entry.counterpartyName}" equals the partner's name`],
      };
    const near = this.partnerNames.find(
      (p) =>
        p.norm.length >= 5 &&
        (norm.includes(p.norm) || (norm.length >= 5 && p.norm.includes(norm))),
    );
    return near
      ? {
          type: 'PARTNER',
          id: near.id,
          label: near.name,
          score: 60,
          reasons: [
            `counterparty name "${entry.counterpartyName}" contains or is part of "${near.name}"`,
          ],
        }
      : undefined;
  }

  private payment(entry: ParsedEntry, partnerId: string | undefined): Suggestion | undefined {
    const direction = entry.amountMinor >= 0 ? 'INCOMING' : 'OUTGOING';
    const candidates = this.paymentsByAmount.get(
      `${direction}|${entry.currency}|${Math.abs(entry.amountMinor)}`,
    );
    if (!candidates) return undefined;
    const purpose = foldForMatch(entry.purpose);
    let best: Suggestion | undefined;
    for (const p of candidates) {
      const reasons = [
        p.status === 'PENDING'
          ? 'same amount and direction as this open payment'
          : 'same amount and direction as this payment recorded as settled, not yet on a statement',
      ];
      let score = 50;
      if (partnerId && p.partner_id === partnerId) {
        score += 25;
        reasons.push('same partner');
      }
      if (p.document_number && purpose.includes(foldForMatch(p.document_number))) {
        score += 25;
        reasons.push(`document number ${p.document_number} in the purpose`);
      }
      if (daysBetween(p.payment_date, entry.bookingDate) <= 14) {
        score += 10;
        reasons.push('booked within 14 days of the payment date');
      }
      score = Math.min(score, 100);
      if (!best || score > best.score)
        best = {
          type: 'PAYMENT',
          id: p.id,
          label: p.document_number ?? p.partner_name ?? p.id,
          score,
          reasons,
        };
    }
    return best;
  }

  private invoice(entry: ParsedEntry, partnerId: string | undefined): Suggestion | undefined {
    const purpose = foldForMatch(entry.purpose);
    let best: Suggestion | undefined;
    for (const d of this.invoices) {
      if (d.currency !== entry.currency) continue;
      const numberFound = purpose.includes(foldForMatch(d.document_number));
      const amountFits = d.open === entry.amountMinor;
      if (!numberFound && !amountFits) continue;
      const reasons: string[] = [];
      let score = 0;
      if (numberFound) {
        score += 60;
        reasons.push(`invoice number ${d.document_number} in the purpose`);
      }
      if (amountFits) {
        score += 30;
        reasons.push('amount equals the open amount of the invoice');
      }
      if (partnerId && d.partner_id === partnerId) {
        score += 10;
        reasons.push('same partner');
      }
      // An amount alone fits too many invoices to be used without more evidence.
      if (!numberFound && score < USE_SCORE) score = Math.min(score, 40);
      if (!best || score > best.score)
        best = { type: 'INVOICE', id: d.id, label: d.document_number, score, reasons };
    }
    return best;
  }

  private category(entry: ParsedEntry): Suggestion[] {
    const text = `${entry.counterpartyName ?? ''} ${entry.purpose}`;
    return matchCategories(
      this.categories.filter((c) => c.currency === entry.currency),
      text,
    ).map((m) => ({
      type: 'BUDGET_CATEGORY' as const,
      id: m.categoryId,
      label: m.categoryName,
      score: Math.min(60 + 15 * m.keywords.length, 95),
      reasons: m.keywords.map((k) => `keyword "${k}" in the counterparty or purpose`),
    }));
  }
}
