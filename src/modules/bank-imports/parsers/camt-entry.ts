import { isCurrency, minorDigits } from '../../../shared/money.js';
import type { BatchInfo, ParsedEntry } from './types.js';
import {
  choiceDate,
  currencyCode,
  decimalToMinor,
  normaliseIban,
  squash,
  type Checked,
} from './camt-values.js';
import { attribute, child, children, text, type XmlElement } from './camt-xml.js';

/**
 * One CAMT `Ntry` → booked entries.
 *
 * Sign: `CdtDbtInd` is the direction of the booking itself, so CRDT is positive and DBIT
 * negative, reversal or not. ISO 20022 defines `RvslInd` that way ("if CreditDebitIndicator
 * is CRDT and ReversalIndicator is Yes, the original operation was a debit entry"): a
 * reversed incoming payment is reported as DBIT + `RvslInd=true` and takes money out. So a
 * reversal is flagged (`reversal: true`) but never inverted a second time — unlike MT940,
 * where `RC`/`RD` name the original direction. The statement's balances confirm it.
 *
 * Batches: an entry with several `TxDtls` becomes one entry per `TxDtls` when every one of
 * them carries an amount in the entry's currency and they add up to the entry amount;
 * otherwise (charges, currency conversion, missing amounts) the entry stays one booking and
 * the reason is reported, so the balance check still holds.
 */

export interface EntryContext {
  /** The statement account's IBAN, to tell which related party is the other side. */
  ownIban: string | undefined;
  /** Date used when an entry states neither booking nor value date. */
  fallbackDate: string | undefined;
}

export interface EntryOutcome {
  entries: ParsedEntry[];
  /** Problems and notes about this entry (the entry may still have been kept). */
  problems: string[];
  /** Set when the entry was skipped because it is not booked (`PDNG`, `INFO`, `FUTR`). */
  skippedStatus?: string;
}

interface Party {
  name: string | undefined;
  iban: string | undefined;
  bic: string | undefined;
}

const NOT_PROVIDED = /^NOT\s*PROVIDED$/i;

function partyOf(
  parties: XmlElement | undefined,
  agents: XmlElement | undefined,
  role: 'Dbtr' | 'Cdtr',
): Party {
  const party = child(parties, role);
  const ultimate = child(parties, role === 'Dbtr' ? 'UltmtDbtr' : 'UltmtCdtr');
  const name =
    text(party, 'Nm') ?? // up to 001.07
    text(party, 'Pty', 'Nm') ?? // 001.08+: Party40Choice
    text(party, 'Agt', 'FinInstnId', 'Nm') ??
    text(ultimate, 'Nm') ??
    text(ultimate, 'Pty', 'Nm');
  const account = child(parties, `${role}Acct`, 'Id');
  const iban = normaliseIban(text(account, 'IBAN'));
  const agent = child(agents, `${role}Agt`, 'FinInstnId') ?? child(party, 'Agt', 'FinInstnId');
  const bic = text(agent, 'BICFI') ?? text(agent, 'BIC');
  return { name: name === undefined ? undefined : squash(name), iban, bic };
}

const isEmpty = (party: Party) => party.name === undefined && party.iban === undefined;

/**
 * The other side of the booking. A related party holding the statement's own IBAN is us;
 * otherwise the debtor pays us on a credit and the creditor is paid on a debit — of the
 * ORIGINAL transaction, so a reversal or a return (whose related parties are those of the
 * original payment) looks at the opposite role.
 */
function counterparty(
  tx: XmlElement | undefined,
  credit: boolean,
  original: boolean,
  ownIban: string | undefined,
): Party {
  const parties = child(tx, 'RltdPties');
  const agents = child(tx, 'RltdAgts');
  const debtor = partyOf(parties, agents, 'Dbtr');
  const creditor = partyOf(parties, agents, 'Cdtr');
  if (ownIban !== undefined && debtor.iban === ownIban) return creditor;
  if (ownIban !== undefined && creditor.iban === ownIban) return debtor;
  const originalCredit = original ? !credit : credit;
  const [first, second] = originalCredit ? [debtor, creditor] : [creditor, debtor];
  return isEmpty(first) && !isEmpty(second) ? second : first;
}

function bankTransactionCode(code: XmlElement | undefined): string | undefined {
  const proprietary = text(code, 'Prtry', 'Cd');
  if (proprietary !== undefined) return proprietary;
  const domain = text(code, 'Domn', 'Cd');
  if (domain === undefined) return undefined;
  return [domain, text(code, 'Domn', 'Fmly', 'Cd'), text(code, 'Domn', 'Fmly', 'SubFmlyCd')]
    .filter((part) => part !== undefined)
    .join('/');
}

/** `RmtInf/Ustrd` lines joined, plus structured creditor references not already in them. */
/** Structured remittance blocks read per transaction (ISO 20022 allows them unbounded). */
const MAX_STRUCTURED = 100;

function remittance(tx: XmlElement | undefined): string {
  const info = child(tx, 'RmtInf');
  const lines = children(info, 'Ustrd')
    .map((line) => text(line))
    .filter((line): line is string => line !== undefined);
  const base = squash(lines.join(' '));
  // Creditor references not already in the text, each once, joined once: linear in the file
  // (a hostile entry carries 20,000 of them); beyond MAX_STRUCTURED they add nothing useful.
  const refs = new Set<string>();
  for (const structured of children(info, 'Strd').slice(0, MAX_STRUCTURED)) {
    const ref = text(structured, 'CdtrRefInf', 'Ref') ?? text(structured, 'CdtrRefInf', 'CdtrRef');
    if (ref !== undefined && !base.includes(ref)) refs.add(ref);
  }
  return refs.size === 0 ? base : squash([base, ...refs].join(' '));
}

function optionalReference(value: string | undefined): string | null {
  return value === undefined || NOT_PROVIDED.test(value) ? null : value;
}

/** The amount of one `TxDtls`, signed, when stated in `currency`. */
function transactionAmount(
  tx: XmlElement,
  currency: string,
  entryCredit: boolean,
): Checked<number> {
  const amount = child(tx, 'Amt') ?? child(tx, 'AmtDtls', 'TxAmt', 'Amt');
  if (amount === undefined) return { ok: false, message: 'a transaction has no amount' };
  const txCurrency = attribute(amount, 'Ccy');
  if (txCurrency !== currency)
    return { ok: false, message: `a transaction is in ${txCurrency ?? 'no currency'}` };
  const minor = decimalToMinor(text(amount), currency);
  if (!minor.ok) return minor;
  const indicator = text(tx, 'CdtDbtInd');
  const credit = indicator === undefined ? entryCredit : indicator === 'CRDT';
  return { ok: true, value: credit ? minor.value : -minor.value };
}

function formatMinor(minor: number, currency: string): string {
  const digits = isCurrency(currency) ? minorDigits(currency) : 2;
  const padded = String(Math.abs(minor)).padStart(digits + 1, '0');
  const whole = padded.slice(0, padded.length - digits);
  const sign = minor < 0 ? '-' : '';
  return `${sign}${whole}${digits > 0 ? `.${padded.slice(-digits)}` : ''} ${currency}`;
}

/** What an entry says for every booking made of it (`bookingOf`). */
interface EntryFacts {
  credit: boolean;
  reversal: boolean;
  bookingDate: string;
  valueDate: string | null;
  currency: string;
  entryText: string | undefined;
  entryCode: string | undefined;
  ownIban: EntryContext['ownIban'];
}

/**
 * One booking of an entry: the entry itself (`tx` undefined, or its only transaction) or one of
 * its transactions. `ownPurposeOnly`: a split transaction does not borrow the entry's text as
 * its purpose.
 */
function bookingOf(
  entry: EntryFacts,
  tx: XmlElement | undefined,
  amountMinor: number,
  bankReference: string | null,
  ownPurposeOnly: boolean,
): ParsedEntry {
  const { credit, reversal, bookingDate, valueDate, currency, entryText, entryCode } = entry;
  const returned = child(tx, 'RtrInf');
  const party = counterparty(
    tx,
    amountMinor > 0 || (amountMinor === 0 && credit),
    reversal || returned !== undefined,
    entry.ownIban,
  );
  const refs = child(tx, 'Refs');
  const txText = text(tx, 'AddtlTxInf');
  let purpose = remittance(tx);
  if (purpose === '') purpose = squash(txText ?? (ownPurposeOnly ? '' : (entryText ?? '')));
  const bookingText = entryText ?? txText ?? bankTransactionCode(child(tx, 'BkTxCd')) ?? entryCode;
  const returnReason = text(returned, 'Rsn', 'Cd') ?? text(returned, 'Rsn', 'Prtry');
  return {
    bookingDate,
    valueDate,
    amountMinor,
    currency,
    counterpartyName: party.name ?? null,
    counterpartyIban: party.iban ?? null,
    counterpartyBic: party.bic ?? null,
    purpose,
    endToEndId: optionalReference(text(refs, 'EndToEndId')),
    mandateReference: optionalReference(text(refs, 'MndtId')),
    bankReference,
    bookingText: bookingText === undefined ? null : squash(bookingText),
    reversal,
    ...(returned !== undefined ? { returnReason: returnReason ?? null } : {}),
  };
}

/**
 * An entry's booking date: its own; without one, its value date or else the statement's date
 * (`note` says which was used); a message when the date is not valid or there is none.
 */
function bookingDateOf(
  ntry: XmlElement,
  valueDate: string | null,
  fallbackDate: string | undefined,
): { ok: true; value: string; note?: string } | { ok: false; message: string } {
  const booking = child(ntry, 'BookgDt');
  const own = choiceDate(booking);
  if (own !== undefined) return { ok: true, value: own };
  if (booking !== undefined) {
    const raw = text(booking, 'Dt') ?? text(booking, 'DtTm') ?? '';
    return { ok: false, message: `the booking date "${raw.slice(0, 30)}" is not a valid date` };
  }
  const value = valueDate ?? fallbackDate;
  if (value === undefined)
    return { ok: false, message: 'the entry has neither a booking nor a value date' };
  return {
    ok: true,
    value,
    note: `the entry has no booking date; ${valueDate !== null ? 'its value date' : "the statement's date"} ${value} is used`,
  };
}

/**
 * A batch booking's facts (`NtryDtls/Btch`: `MsgId`, `PmtInfId`, `NbOfTxs`; the transactions'
 * `Refs/PmtInfId` and `MsgId`, and their EndToEndIds), for an entry kept as one booking; undefined
 * for an entry that is no batch (no `Btch`, at most one transaction and no `PmtInfId`; or one
 * transaction with its EndToEndId).
 */
function batchOf(ntry: XmlElement, transactions: XmlElement[]): BatchInfo | undefined {
  const batches = children(ntry, 'NtryDtls')
    .map((details) => child(details, 'Btch'))
    .filter((b): b is XmlElement => b !== undefined);
  const txRef = (tx: XmlElement, name: string) => text(tx, 'Refs', name);
  const paymentInfoIds = transactions.map((tx) => txRef(tx, 'PmtInfId'));
  if (batches.length === 0 && transactions.length <= 1 && paymentInfoIds[0] === undefined)
    return undefined;
  const references = [
    ...batches.map((b) => text(b, 'PmtInfId')),
    ...paymentInfoIds,
    ...batches.map((b) => text(b, 'MsgId')),
    ...transactions.map((tx) => txRef(tx, 'MsgId')),
  ].filter((r): r is string => r !== undefined && !NOT_PROVIDED.test(r));
  const counts = batches.map((b) => Number(text(b, 'NbOfTxs') ?? Number.NaN));
  const count = counts.length === 1 && Number.isInteger(counts[0]) ? counts[0]! : null;
  const endToEndIds = transactions
    .map((tx) => optionalReference(txRef(tx, 'EndToEndId')))
    .filter((id): id is string => id !== null);
  // One transaction naming its EndToEndId is a single booking, whatever `Btch` says of one.
  if (transactions.length === 1 && endToEndIds.length === 1 && (count ?? 1) <= 1) return undefined;
  return { references: [...new Set(references)], count, endToEndIds };
}

/** Converts one `Ntry` element. Never throws for bad content. */
export function convertEntry(ntry: XmlElement, context: EntryContext): EntryOutcome {
  const problems: string[] = [];
  const status = text(ntry, 'Sts', 'Cd') ?? text(ntry, 'Sts', 'Prtry') ?? text(ntry, 'Sts');
  if (status !== undefined && status.toUpperCase() !== 'BOOK')
    return { entries: [], problems, skippedStatus: status.toUpperCase() };

  const amount = child(ntry, 'Amt');
  const currency = currencyCode(attribute(amount, 'Ccy'));
  if (currency === undefined)
    return { entries: [], problems: ['the amount has no valid currency (Ccy)'] };
  const minor = decimalToMinor(text(amount), currency);
  if (!minor.ok) return { entries: [], problems: [minor.message] };
  const indicator = text(ntry, 'CdtDbtInd');
  if (indicator !== 'CRDT' && indicator !== 'DBIT')
    return {
      entries: [],
      problems: [`the credit/debit indicator is ${indicator ?? 'missing'} (CRDT or DBIT expected)`],
    };
  const credit = indicator === 'CRDT';
  const signed = credit ? minor.value : -minor.value;
  const reversal = /^(true|1)$/i.test(text(ntry, 'RvslInd') ?? '');

  const valueDate = choiceDate(child(ntry, 'ValDt')) ?? null;
  const dated = bookingDateOf(ntry, valueDate, context.fallbackDate);
  if (!dated.ok) return { entries: [], problems: [dated.message] };
  const bookingDate = dated.value;
  if (dated.note !== undefined) problems.push(dated.note);

  const entryReference = text(ntry, 'AcctSvcrRef') ?? text(ntry, 'NtryRef');
  const entryText = text(ntry, 'AddtlNtryInf');
  const entryCode = bankTransactionCode(child(ntry, 'BkTxCd'));
  const transactions = children(ntry, 'NtryDtls').flatMap((details) => children(details, 'TxDtls'));

  const facts: EntryFacts = {
    credit,
    reversal,
    bookingDate,
    valueDate,
    currency,
    entryText,
    entryCode,
    ownIban: context.ownIban,
  };
  if (transactions.length <= 1) {
    const tx = transactions[0];
    const reference = entryReference ?? text(tx, 'Refs', 'AcctSvcrRef') ?? null;
    const booking = bookingOf(facts, tx, signed, reference, false);
    const batch = batchOf(ntry, transactions);
    return { entries: [batch === undefined ? booking : { ...booking, batch }], problems };
  }

  const amounts = transactions.map((tx) => transactionAmount(tx, currency, credit));
  const failed = amounts.find((checked) => !checked.ok);
  const sum = amounts.reduce((total, checked) => total + (checked.ok ? checked.value : 0), 0);
  if (failed !== undefined || sum !== signed) {
    problems.push(
      `its ${transactions.length} transaction details cannot be booked separately (${
        failed !== undefined && !failed.ok
          ? failed.message
          : `they add up to ${formatMinor(sum, currency)}, the entry to ${formatMinor(signed, currency)}`
      }); the entry is kept as one booking`,
    );
    const booking = bookingOf(facts, undefined, signed, entryReference ?? null, false);
    const batch = batchOf(ntry, transactions);
    return { entries: [batch === undefined ? booking : { ...booking, batch }], problems };
  }
  const ownReferences = transactions.map((tx) => text(tx, 'Refs', 'AcctSvcrRef'));
  const distinct = new Set(ownReferences).size === transactions.length;
  const entries = transactions.map((tx, index) => {
    const own = ownReferences[index];
    // Each part needs its own identity for duplicate detection: the bank's per-transaction
    // reference when it has distinct ones, else the entry's reference with the position.
    const reference =
      own !== undefined && distinct
        ? own
        : entryReference !== undefined
          ? `${entryReference}/${index + 1}`
          : null;
    const checked = amounts[index];
    return bookingOf(facts, tx, checked?.ok ? checked.value : 0, reference, true);
  });
  return { entries, problems };
}
