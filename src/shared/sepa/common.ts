import { isIsoDate } from '../dates.js';
import { normalizeIban } from '../iban.js';
import { SepaFileError } from './errors.js';
import { isValidBic, normalizeBic, sepaIbanProblem } from './identifiers.js';
import { isValidSepaId, sepaText } from './text.js';
import type { SepaParty } from './types.js';
import type { SepaXml } from './xml.js';

/** The EPC ceiling of one amount, 999 999 999.99 EUR, in cents. */
export const MAX_AMOUNT_MINOR = 99_999_999_999;
/** Name (`Nm`) and unstructured remittance (`Ustrd`) lengths the EPC allows. */
export const MAX_NAME = 70;
export const MAX_REMITTANCE = 140;

/** Cents as the decimal a SEPA file carries: always two decimals (`29.95`, `12500.00`). */
export function formatAmount(minor: number | bigint): string {
  const cents = BigInt(minor);
  const whole = cents / 100n;
  const fraction = (cents % 100n).toString().padStart(2, '0');
  return `${whole}.${fraction}`;
}

/** `amountMinor` checked: a whole number of cents, 1 … 99 999 999 999. */
export function checkAmount(amountMinor: number, path: string): void {
  if (!Number.isSafeInteger(amountMinor))
    throw new SepaFileError(path, 'must be a whole number of cents');
  if (amountMinor <= 0) throw new SepaFileError(path, 'must be greater than 0');
  if (amountMinor > MAX_AMOUNT_MINOR) throw new SepaFileError(path, 'must not exceed 999999999.99');
}

export function checkId(id: string, path: string): void {
  if (!isValidSepaId(id))
    throw new SepaFileError(
      path,
      "must be 1-35 characters of a-z A-Z 0-9 / - ? : ( ) . , ' +, not start or end with / and hold no //",
    );
}

/** Dates seen valid lately: a file repeats a handful of dates thousands of times. */
const validDates = new Set<string>();

export function checkDate(date: string, path: string): void {
  if (validDates.has(date)) return;
  if (typeof date !== 'string' || !isIsoDate(date))
    throw new SepaFileError(path, 'must be a date YYYY-MM-DD');
  if (validDates.size >= 1000) validDates.clear();
  validDates.add(date);
}

/** A required text in the SEPA set, cut to `max`; throws when nothing representable is left. */
export function requiredText(value: string, max: number, path: string): string {
  const text = sepaText(value, max);
  if (text === '')
    throw new SepaFileError(path, 'must hold letters or digits of the SEPA character set');
  return text;
}

/** Tracks ids that must be unique within one file. */
export class UniqueIds {
  private readonly seen = new Map<string, string>();
  constructor(private readonly what: string) {}
  add(id: string, path: string): void {
    const first = this.seen.get(id);
    if (first !== undefined)
      throw new SepaFileError(path, `${this.what} ${id} is already used at ${first}`);
    this.seen.set(id, path);
  }
}

/** A party's account and bank checked and normalised. */
export interface CheckedParty {
  name: string;
  iban: string;
  bic: string | undefined;
}

export function checkParty(party: SepaParty, path: string): CheckedParty {
  const name = requiredText(party.name, MAX_NAME, `${path}/name`);
  const ibanProblem = sepaIbanProblem(party.iban);
  if (ibanProblem !== undefined) throw new SepaFileError(`${path}/iban`, ibanProblem);
  let bic: string | undefined;
  if (party.bic !== undefined && party.bic !== null && party.bic.trim() !== '') {
    if (!isValidBic(party.bic))
      throw new SepaFileError(`${path}/bic`, 'is not a BIC (8 or 11 characters)');
    bic = normalizeBic(party.bic);
  }
  return { name, iban: normalizeIban(party.iban), bic };
}

/** `<Tag><Id><IBAN>…</IBAN></Id></Tag>`. */
export function writeAccount(xml: SepaXml, tag: string, iban: string): void {
  xml.open(tag).open('Id').leaf('IBAN', iban).close('Id').close(tag);
}

/**
 * `<Tag><FinInstnId><BICFI>…</BICFI></FinInstnId></Tag>`, or, without a BIC, the
 * `Othr/Id` = `NOTPROVIDED` the EPC guidelines prescribe where the agent is mandatory.
 */
export function writeAgent(xml: SepaXml, tag: string, bic: string | undefined): void {
  xml.open(tag).open('FinInstnId');
  if (bic !== undefined) xml.leaf('BICFI', bic);
  else xml.open('Othr').leaf('Id', 'NOTPROVIDED').close('Othr');
  xml.close('FinInstnId').close(tag);
}

/** `CreDtTm`: the UTC timestamp to the second, `2026-11-28T13:30:05Z`. */
export function creationTimestamp(createdAt: Date, path: string): string {
  if (Number.isNaN(createdAt.getTime())) throw new SepaFileError(path, 'must be a valid timestamp');
  return `${createdAt.toISOString().slice(0, 19)}Z`;
}

/**
 * The group header both messages open with: message id, creation time, the number of
 * transactions and their control sum over the whole file, the initiating party.
 */
export function writeGroupHeader(
  xml: SepaXml,
  file: { messageId: string; createdAt: Date; initiatingPartyName: string },
  count: number,
  total: bigint,
): void {
  xml.open('GrpHdr');
  xml.leaf('MsgId', file.messageId);
  xml.leaf('CreDtTm', creationTimestamp(file.createdAt, '/createdAt'));
  xml.leaf('NbOfTxs', String(count));
  xml.leaf('CtrlSum', formatAmount(total));
  xml.open('InitgPty').leaf('Nm', sepaText(file.initiatingPartyName, MAX_NAME)).close('InitgPty');
  xml.close('GrpHdr');
}

/** The unstructured remittance, or undefined when nothing representable is left. */
export function remittance(value: string): string | undefined {
  const text = sepaText(value, MAX_REMITTANCE);
  return text === '' ? undefined : text;
}
