/**
 * MT940 customer statements (SWIFT, with the German DFÜ dialect), read in one streaming
 * pass: lines into fields (`mt940-fields.ts`), fields into statements here. A broken entry
 * becomes an `errors` item and the rest is kept; a statement whose structure is broken
 * (tags out of order, no opening balance) is left out with an error; a file without any
 * usable statement is refused with `file_unprocessable`.
 */
import { AppError } from '../../../shared/errors.js';
import {
  type Balance,
  type EntryDraft,
  type Field,
  MT942_TAGS,
  SEPARATOR,
  completeEntry,
  parseBalance,
  parseEntry,
  readFields,
} from './mt940-fields.js';
import { decodeText } from './text.js';
import type { ParseError, ParseResult, ParsedEntry, ParsedStatement } from './types.js';

interface StatementDraft {
  line: number;
  reference: string | null;
  number: string | null;
  account: string | null;
  opening: Balance | null;
  closing: Balance | null;
  entries: ParsedEntry[];
  /** The last `:61:`, still collecting its `:86:` information. */
  current: EntryDraft | null;
  corrupt: { line: number; reason: string } | null;
  mt942: boolean;
  /** A `:62F:`/`:62M:` was seen (even an unreadable one): what follows is a new statement. */
  closed: boolean;
  closingProblem: { line: number; message: string } | null;
  entryErrors: { line: number; message: string }[];
  /** `:61:` fields met before any opening balance. */
  orphanEntries: number;
}

function newDraft(line: number): StatementDraft {
  return {
    line,
    reference: null,
    number: null,
    account: null,
    opening: null,
    closing: null,
    entries: [],
    current: null,
    corrupt: null,
    mt942: false,
    closed: false,
    closingProblem: null,
    entryErrors: [],
    orphanEntries: 0,
  };
}

/** `:25:` `51210600/9223382012EUR` → `51210600/9223382012` (the currency is stated elsewhere). */
function accountOf(raw: string, currency: string): string {
  const account = raw.trim();
  const m = /^(.*[\d/ ])[\s/]?([A-Z]{3})$/.exec(account);
  if (m && m[2] === currency) return (m[1] ?? '').replace(/[\s/]+$/, '');
  return account;
}

const HEADER_TAGS = new Set(['21', '25', '25P', '28', '28C']);

/** `:86:`, the details of the entry before it (or of the whole statement, then dropped). */
function details(d: StatementDraft, field: Field): void {
  const entry = d.current;
  if (!entry) return;
  if (entry.hasDetails) {
    // A second `:86:` to the same entry (Rabobank, Danske Bank) continues the first.
    entry.detailLines.push(...field.lines.map((l, i) => (i === 0 ? ` ${l}` : l)));
  } else {
    entry.detailLines = field.lines;
    entry.detailWidth = field.width;
    entry.hasDetails = true;
  }
}

/** Collects fields into statements; `finish()` closes the statement in progress. */
class StatementAssembler {
  readonly statements: ParsedStatement[] = [];
  readonly errors: ParseError[] = [];
  sawFields = false;
  sawMt942 = false;
  private draft: StatementDraft | null = null;
  private afterSeparator = true;

  field(field: Field): void {
    if (field.tag === SEPARATOR) {
      this.finish();
      this.afterSeparator = true;
      return;
    }
    this.sawFields = true;
    const d = this.draftFor(field);
    this.afterSeparator = false;
    if (field.tag !== '86' && field.tag !== 'NS') this.closeEntry(d);
    if (MT942_TAGS.has(field.tag)) {
      d.mt942 = true;
      return;
    }
    this.apply(d, field);
  }

  /**
   * The statement a field belongs to: a new one at `:20:`, after a separator, or when a header
   * field or an opening balance follows a closing balance; else the one in progress.
   */
  private draftFor(field: Field): StatementDraft {
    const d = this.draft;
    const startsStatement =
      !d ||
      field.tag === '20' ||
      this.afterSeparator ||
      (d.closed && (HEADER_TAGS.has(field.tag) || field.tag === '60F' || field.tag === '60M'));
    if (!startsStatement) return d;
    this.finish();
    const draft = newDraft(field.line);
    this.draft = draft;
    return draft;
  }

  /** What a field says, into its statement. */
  private apply(d: StatementDraft, field: Field): void {
    const content = (field.lines[0] ?? '').trim();
    switch (field.tag) {
      case '20':
        d.reference = content === '' ? null : content;
        break;
      case '25':
        if (d.opening) this.corrupt(d, field, ':25: after the opening balance');
        else if (d.account !== null) this.corrupt(d, field, 'a second :25:');
        else d.account = content === '' ? null : content;
        break;
      case '28':
      case '28C':
        if (d.opening) this.corrupt(d, field, `:${field.tag}: after the opening balance`);
        else d.number = content === '' ? null : content;
        break;
      case '60F':
      case '60M':
        this.opening(d, field, content);
        break;
      case '61':
        this.entry(d, field);
        break;
      case '86':
        details(d, field);
        break;
      case '62F':
      case '62M':
        this.closing(d, field, content);
        break;
      default:
        // :21:, :25P:, :NS:, :64:, :65: carry nothing Kontor keeps.
        break;
    }
  }

  /** `:60F:`/`:60M:`, the opening balance: one per statement. */
  private opening(d: StatementDraft, field: Field, content: string): void {
    if (d.opening) {
      this.corrupt(d, field, 'a second opening balance');
      return;
    }
    const balance = parseBalance(content, 'EUR');
    if (typeof balance === 'string') this.corrupt(d, field, `opening ${balance}`);
    else d.opening = balance;
  }

  /** `:61:`, an entry: after the opening balance and before the closing one. */
  private entry(d: StatementDraft, field: Field): void {
    if (d.closed) {
      this.corrupt(d, field, 'an entry after the closing balance');
      return;
    }
    if (!d.opening) {
      d.orphanEntries++; // the statement is left out for its missing opening balance
      return;
    }
    const entry = parseEntry(field, d.opening.currency ?? 'EUR');
    if (typeof entry === 'string') d.entryErrors.push({ line: field.line, message: entry });
    else d.current = entry;
  }

  /** `:62F:`/`:62M:`, the closing balance: closes the statement. */
  private closing(d: StatementDraft, field: Field, content: string): void {
    if (d.closed) {
      this.corrupt(d, field, 'a second closing balance');
      return;
    }
    d.closed = true;
    const balance = parseBalance(content, d.opening?.currency ?? 'EUR');
    if (typeof balance === 'string')
      d.closingProblem = { line: field.line, message: `closing ${balance}` };
    else d.closing = balance;
  }

  private closeEntry(d: StatementDraft): void {
    if (d.current) d.entries.push(completeEntry(d.current));
    d.current = null;
  }

  private corrupt(d: StatementDraft, field: Field, reason: string): void {
    d.corrupt ??= { line: field.line, reason: `${reason} (line ${field.line})` };
  }

  finish(): void {
    const d = this.draft;
    this.draft = null;
    if (!d) return;
    this.closeEntry(d);
    if (d.mt942) this.sawMt942 = true;
    if (d.corrupt) {
      this.errors.push({
        line: d.corrupt.line,
        message: `statement starting on line ${d.line} left out: ${d.corrupt.reason}`,
      });
      return;
    }
    if (!d.opening) {
      // A lone `:20:` (trailing junk) is no statement and no news either.
      if (d.orphanEntries === 0 && !d.closed && !d.mt942) return;
      this.errors.push({
        line: d.line,
        message: d.mt942
          ? `block starting on line ${d.line} is an MT942 interim report, not a statement; left out`
          : `statement starting on line ${d.line} left out: no opening balance (:60F:/:60M:)`,
      });
      return;
    }
    const index = this.statements.length;
    const currency = d.opening.currency ?? d.closing?.currency ?? 'EUR';
    for (const e of d.entryErrors) this.errors.push({ statement: index, ...e });
    if (d.closingProblem) {
      this.errors.push({ statement: index, ...d.closingProblem });
    } else if (!d.closing) {
      this.errors.push({
        statement: index,
        line: d.line,
        message: 'statement has no closing balance (:62F:/:62M:); its balance cannot be checked',
      });
    }
    this.statements.push({
      format: 'MT940',
      statementId: d.number ?? d.reference,
      account: d.account === null ? null : accountOf(d.account, currency),
      currency,
      openingBalanceMinor: d.opening.minor,
      openingDate: d.opening.date,
      closingBalanceMinor: d.closing?.minor ?? null,
      closingDate: d.closing?.date ?? null,
      entries: d.entries,
    });
  }
}

/**
 * Parses an MT940 file (single or multi-statement, SWIFT envelopes, bank preambles, UTF-8
 * or 8-bit). Never throws for one bad entry; throws `file_unprocessable` when the file holds
 * no usable statement (empty, not MT940, an MT942 report, or only broken statements).
 */
export function parseMt940(bytes: Buffer): ParseResult {
  const { text } = decodeText(bytes);
  // Control characters (SOH/ETX of SWIFT transmissions, stray NULs) carry no content.
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ');
  const assembler = new StatementAssembler();
  readFields(clean, (field) => assembler.field(field));
  assembler.finish();
  const { statements, errors } = assembler;
  if (statements.length > 0) return { format: 'MT940', statements, errors };
  if (assembler.sawMt942) {
    throw new AppError(
      'file_unprocessable',
      'The file is an MT942 interim transaction report, not an MT940 account statement; export the MT940 statement (Kontoauszug) instead.',
    );
  }
  if (!assembler.sawFields) {
    throw new AppError(
      'file_unprocessable',
      'The file contains no MT940 fields (:20:, :25:, :60F:, :61:, :62F:); it is not an MT940 statement.',
    );
  }
  const reasons = errors
    .slice(0, 3)
    .map((e) => e.message)
    .join('; ');
  throw new AppError(
    'file_unprocessable',
    `The file contains no complete MT940 statement (${reasons === '' ? 'no opening balance :60F:/:60M: found' : reasons}).`,
  );
}
