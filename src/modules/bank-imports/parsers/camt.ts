import { AppError } from '../../../shared/errors.js';
import { decodeXml } from '../../../shared/pdf/xml.js';
import { convertEntry, type EntryContext } from './camt-entry.js';
import {
  accountId,
  choiceDate,
  currencyCode,
  dateTimeDate,
  decimalToMinor,
  normaliseIban,
} from './camt-values.js';
import {
  attribute,
  child,
  children,
  readXml,
  text,
  XmlDoctypeError,
  XmlSyntaxError,
  type XmlDocument,
  type XmlElement,
} from './camt-xml.js';
import type {
  ParseError,
  ParsedEntry,
  ParsedStatement,
  ParseResult,
  StatementFormat,
} from './types.js';

/**
 * ISO 20022 cash management statements: camt.053 (`BkToCstmrStmt/Stmt`), camt.052
 * (`BkToCstmrAcctRpt/Rpt`) and camt.054 (`BkToCstmrDbtCdtNtfctn/Ntfctn`), versions 001.01
 * to 001.10 (001.01 names its message element `…V01`). The XML is read by `camt-xml.ts`
 * (no DOCTYPE, so no XXE); each `Ntry` is converted as soon as it closes and then dropped,
 * so a 50 000-entry statement never sits in memory as a tree.
 *
 * Balances: opening = `OPBD`, else `PRCD` (previous closing booked, the same amount);
 * closing = `CLBD`. Interim (`ITBD`) and available (`OPAV`, `CLAV`, `ITAV`, `FWAV`) balances
 * are not statement balances, so a camt.052 with only those has null opening/closing. A
 * balance without `CdtDbtInd` (it is mandatory, some banks omit it) counts as credit.
 *
 * Only booked entries are imported: `Sts` PDNG / INFO / FUTR (pending, information only,
 * future) are skipped and counted in one `errors` item per statement; an entry without `Sts`
 * counts as booked. A bad entry becomes an `errors` item (`statement` = the statement's
 * 0-based position in the file, `entry` = the entry's among its `Ntry`); the file is refused
 * only when it holds no statement. A booked date is the bank's local date as written.
 */

export const CAMT_MIN_VERSION = 1;
export const CAMT_MAX_VERSION = 10;

interface MessageKind {
  format: Extract<StatementFormat, 'CAMT052' | 'CAMT053' | 'CAMT054'>;
  label: string;
  statement: 'Stmt' | 'Rpt' | 'Ntfctn';
}

const MESSAGES: Record<string, MessageKind> = {
  BkToCstmrStmt: { format: 'CAMT053', label: 'camt.053', statement: 'Stmt' },
  BkToCstmrAcctRpt: { format: 'CAMT052', label: 'camt.052', statement: 'Rpt' },
  BkToCstmrDbtCdtNtfctn: { format: 'CAMT054', label: 'camt.054', statement: 'Ntfctn' },
};

/** The message kind of a message element name (`BkToCstmrStmtV01` included), if any. */
export function camtMessageKind(elementName: string): MessageKind | undefined {
  const name = elementName.replace(/V\d{2}$/, '');
  return Object.hasOwn(MESSAGES, name) ? MESSAGES[name] : undefined;
}

/** `urn:iso:std:iso:20022:tech:xsd:camt.053.001.08` → { message: '053', version: 8 }. */
export function camtNamespace(namespace: string): { message: string; version: number } | undefined {
  const match = /camt\.(\d{3})\.001\.(\d{2})\b/.exec(namespace);
  return match ? { message: match[1]!, version: Number(match[2]) } : undefined;
}

function refuse(reason: string): AppError {
  return new AppError('file_unprocessable', reason);
}

interface StatementState {
  context: EntryContext;
  entries: ParsedEntry[];
  errors: ParseError[];
  skipped: Map<string, number>;
  ntryCount: number;
  /** Currency of the first entry, skipped ones included (a report may hold only pending ones). */
  entryCurrency: string | undefined;
}

function contextOf(statement: XmlElement, message: XmlElement | undefined): EntryContext {
  const closing = children(statement, 'Bal').find((balance) => balanceCode(balance) === 'CLBD');
  return {
    ownIban: normaliseIban(text(child(statement, 'Acct'), 'Id', 'IBAN')),
    fallbackDate:
      dateTimeDate(text(statement, 'FrToDt', 'ToDtTm')) ??
      choiceDate(child(closing, 'Dt')) ??
      dateTimeDate(text(statement, 'CreDtTm')) ??
      dateTimeDate(text(message, 'GrpHdr', 'CreDtTm')),
  };
}

function balanceCode(balance: XmlElement): string | undefined {
  return (text(balance, 'Tp', 'CdOrPrtry', 'Cd') ?? text(balance, 'Tp', 'Cd')) // 001.01 and some banks
    ?.toUpperCase();
}

interface Balance {
  minor: number;
  currency: string;
  date: string | null;
}

function readBalance(balance: XmlElement): { balance?: Balance; problem?: string } {
  const amount = child(balance, 'Amt');
  const currency = currencyCode(attribute(amount, 'Ccy'));
  if (currency === undefined) return { problem: 'has no valid currency (Ccy)' };
  const minor = decimalToMinor(text(amount), currency);
  if (!minor.ok) return { problem: minor.message };
  const indicator = text(balance, 'CdtDbtInd');
  if (indicator !== undefined && indicator !== 'CRDT' && indicator !== 'DBIT')
    return { problem: `has the credit/debit indicator ${indicator}` };
  return {
    balance: {
      minor: indicator === 'DBIT' ? -minor.value : minor.value,
      currency,
      date: choiceDate(child(balance, 'Dt')) ?? null,
    },
  };
}

function finishStatement(
  statement: XmlElement,
  kind: MessageKind,
  index: number,
  state: StatementState,
  errors: ParseError[],
): ParsedStatement | undefined {
  errors.push(...state.errors);
  let opening: Balance | undefined;
  let closing: Balance | undefined;
  for (const balance of children(statement, 'Bal')) {
    const code = balanceCode(balance);
    const wanted =
      code === 'OPBD' || (code === 'PRCD' && opening === undefined)
        ? 'opening'
        : code === 'CLBD'
          ? 'closing'
          : undefined;
    if (wanted === undefined) continue;
    const read = readBalance(balance);
    if (read.problem !== undefined) {
      errors.push({ statement: index, message: `The ${code} balance ${read.problem}.` });
      continue;
    }
    if (wanted === 'opening' && (opening === undefined || code === 'OPBD')) opening = read.balance;
    if (wanted === 'closing') closing = read.balance;
  }
  for (const [status, count] of state.skipped) {
    const meaning =
      { PDNG: 'pending', INFO: 'for information only', FUTR: 'future' }[status] ?? 'not booked';
    errors.push({
      statement: index,
      message: `${count} ${count === 1 ? 'entry has' : 'entries have'} status ${status} (${meaning}) and ${count === 1 ? 'was' : 'were'} skipped: only booked entries are imported.`,
    });
  }
  const account = child(statement, 'Acct');
  const currency =
    currencyCode(text(account, 'Ccy')) ??
    opening?.currency ??
    closing?.currency ??
    state.entryCurrency;
  if (currency === undefined) {
    errors.push({
      statement: index,
      message: `The ${kind.label} statement ${index + 1} states no currency (no Acct/Ccy, balance or entry); it was skipped.`,
    });
    return undefined;
  }
  return {
    format: kind.format,
    statementId: text(statement, 'Id') ?? null,
    account: accountId(account) ?? null,
    currency,
    openingBalanceMinor: opening?.minor ?? null,
    openingDate: opening?.date ?? null,
    closingBalanceMinor: closing?.minor ?? null,
    closingDate: closing?.date ?? null,
    entries: state.entries,
  };
}

/**
 * The message element: the document element itself, its child (`Document/BkToCstmrStmt`), or
 * one level deeper when an envelope wraps the Document (SWIFT MX: `AppHdr` + `Document`).
 */
function findMessage(root: XmlElement): XmlElement | undefined {
  let level = [root];
  for (let depth = 0; depth < 3; depth++) {
    const found = level.find((element) => camtMessageKind(element.name) !== undefined);
    if (found !== undefined) return found;
    level = level.flatMap((element) => element.children);
  }
  return undefined;
}

/** The XML document, read in one pass; what it is not allowed to be is refused. */
function readDocument(
  source: string,
  onClose: (element: XmlElement, ancestors: readonly XmlElement[]) => boolean,
): XmlDocument {
  try {
    return readXml(source, { onClose });
  } catch (error) {
    if (error instanceof XmlDoctypeError)
      throw refuse('The XML contains a DOCTYPE or entity declaration, which is not accepted.');
    if (error instanceof XmlSyntaxError)
      throw refuse(`The XML is not well-formed: ${error.message}.`);
    throw error;
  }
}

/**
 * The document's statement message (camt.052, .053 or .054) and its kind; another camt message,
 * another XML or a version outside 001.01–001.10 is refused with what it is.
 */
function statementMessage(document: XmlDocument): {
  messageElement: XmlElement;
  kind: MessageKind;
} {
  const messageElement = findMessage(document.root);
  const kind = messageElement === undefined ? undefined : camtMessageKind(messageElement.name);
  const declared = document.namespaces.map(camtNamespace).find((ns) => ns !== undefined);
  if (messageElement === undefined || kind === undefined) {
    const { root, rootNamespace } = document;
    throw refuse(
      declared !== undefined
        ? `The file is a camt.${declared.message} message, not a bank statement; camt.052, camt.053 and camt.054 are read.`
        : `The XML (document element <${root.name}>${rootNamespace ? `, namespace ${rootNamespace}` : ''}) is not a camt.052, camt.053 or camt.054 message.`,
    );
  }
  if (
    declared !== undefined &&
    (declared.version < CAMT_MIN_VERSION || declared.version > CAMT_MAX_VERSION)
  ) {
    throw refuse(
      `${kind.label}.001.${String(declared.version).padStart(2, '0')} is not supported; versions 001.01 to 001.10 are read.`,
    );
  }
  return { messageElement, kind };
}

/** Parses a camt.052, camt.053 or camt.054 document (any version 001.01–001.10). */
export function parseCamt(bytes: Buffer): ParseResult {
  const source = decodeXml(bytes);
  const states = new Map<XmlElement, StatementState>();

  const stateOf = (statement: XmlElement, message: XmlElement | undefined) => {
    let state = states.get(statement);
    if (state === undefined) {
      state = {
        context: contextOf(statement, message),
        entries: [],
        errors: [],
        skipped: new Map(),
        ntryCount: 0,
        entryCurrency: undefined,
      };
      states.set(statement, state);
    }
    return state;
  };

  // Statements closed per message so far: the open statement's (0-based) index. Counted as
  // they close, so 10,000 statements cost 10,000 steps, not a scan of the siblings per entry.
  const closedStatements = new Map<XmlElement, number>();

  const onClose = (element: XmlElement, ancestors: readonly XmlElement[]): boolean => {
    const parent = ancestors[ancestors.length - 1];
    if (parent !== undefined && camtMessageKind(parent.name)?.statement === element.name)
      closedStatements.set(parent, (closedStatements.get(parent) ?? 0) + 1);
    if (element.name !== 'Ntry' || ancestors.length < 2) return false;
    const statement = ancestors[ancestors.length - 1]!;
    const message = ancestors[ancestors.length - 2]!;
    const kind = camtMessageKind(message.name);
    if (kind === undefined || kind.statement !== statement.name) return false;
    const state = stateOf(statement, message);
    const index = state.ntryCount++;
    state.entryCurrency ??= currencyCode(attribute(child(element, 'Amt'), 'Ccy'));
    const statementIndex = closedStatements.get(message) ?? 0;
    try {
      const outcome = convertEntry(element, state.context);
      if (outcome.skippedStatus !== undefined)
        state.skipped.set(
          outcome.skippedStatus,
          (state.skipped.get(outcome.skippedStatus) ?? 0) + 1,
        );
      for (const entry of outcome.entries) state.entries.push(entry);
      for (const problem of outcome.problems)
        state.errors.push({
          statement: statementIndex,
          entry: index,
          message: `Entry ${index + 1}: ${problem}.`,
        });
    } catch (error) {
      // A converter bug on one odd entry must not lose the whole file.
      state.errors.push({
        statement: statementIndex,
        entry: index,
        message: `Entry ${index + 1} could not be read: ${error instanceof Error ? error.message : String(error)}.`,
      });
    }
    return true;
  };

  const document = readDocument(source, onClose);
  const { messageElement, kind } = statementMessage(document);

  const statementElements = children(messageElement, kind.statement);
  if (statementElements.length === 0)
    throw refuse(`The ${kind.label} message contains no statement (<${kind.statement}>).`);

  const errors: ParseError[] = [];
  const statements: ParsedStatement[] = [];
  statementElements.forEach((element, index) => {
    const statement = finishStatement(
      element,
      kind,
      index,
      stateOf(element, messageElement),
      errors,
    );
    if (statement !== undefined) statements.push(statement);
  });
  if (statements.length === 0)
    throw refuse(
      `No statement of the ${kind.label} message could be read: ${errors.map((e) => e.message).join(' ')}`,
    );
  return { format: kind.format, statements, errors };
}
