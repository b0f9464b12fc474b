import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { assertIsoDate, invalidField } from '../../http/field-rules.js';
import { isIsoDate } from '../../shared/dates.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import { defaultRevenueAccount, isDebtorAccount, type Chart } from './datev-accounts.js';
import { documentGuid, documentXml, type DocumentImage } from './datev-documents.js';
import {
  bookingLine,
  columnLine,
  CRLF,
  encode,
  headerLine,
  reference,
  type Booking,
} from './datev-extf.js';
import { presentSettings } from './exports.presenter.js';
import * as repo from './exports.repository.js';
import type { DatevExportQueryT, DatevSettings } from './exports.schemas.js';
import { LentBuffers } from './lent-buffers.js';
import { zipChunks, type ZipEntry } from './zip-stream.js';

/** The CSV's name inside the package, as DATEV's import expects it (`EXTF_` prefix). */
export const CSV_NAME = 'EXTF_Buchungsstapel.csv';
/** Booking lines encoded per chunk of the CSV entry. */
const LINES_PER_CHUNK = 500;
/**
 * The PDFs are read ahead of the ZIP writer, in package order: at most this many files in
 * flight, holding at most READ_AHEAD_BYTES between them (one larger file alone may pass the
 * limit). One at a time, every file cost its open, reads and close in turn while nothing else
 * moved.
 */
const READ_AHEAD = 12;
const READ_AHEAD_BYTES = 16 * 1024 * 1024;
/** A PDF above this size is opened ahead but streamed when its turn comes, not held whole. */
const WHOLE_FILE_MAX = 4 * 1024 * 1024;

/** The export's chunk sizes (the defaults above; tests make them small to cross borders). */
export interface ExportChunks {
  /** Rows per query of the keyset-paged reads. */
  pageSize: number;
  readAhead: number;
  readAheadBytes: number;
}

/** A tax line of a stored invoice, as `documents.tax_breakdown` holds it. */
interface TaxLine {
  taxRateId: string;
  rateBp: number;
  netMinor: number;
  taxMinor: number;
  category?: string;
}

interface Image extends DocumentImage {
  key: string;
  /** Stored size in bytes (bounds the read-ahead). */
  size: number;
}

/** A PDF as read ahead: held whole (small), or opened to stream (large); null if unreadable. */
type Fetched = { image: Image; body: Uint8Array[] | Readable } | null;

export interface DatevPackage {
  fileName: string;
  bookings: number;
  images: number;
  /** The ZIP's bytes, in order; a PDF's chunk is a buffer lent to the reader (`returned`). */
  chunks: AsyncGenerator<Uint8Array>;
  /**
   * A chunk whose bytes have left the process (written to the socket): a PDF's buffer is read
   * into again. A reader that never calls it leaves the buffers to the garbage collector.
   */
  returned: (chunk: Uint8Array) => void;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The fiscal year (first and last day) that `date` falls in, by the month it starts. */
export function fiscalYearOf(date: string, startMonth: number): { start: string; end: string } {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const startYear = month >= startMonth ? year : year - 1;
  const endYear = startMonth === 1 ? startYear : startYear + 1;
  const endMonth = startMonth === 1 ? 12 : startMonth - 1;
  const lastDay = new Date(Date.UTC(endYear, endMonth, 0)).getUTCDate();
  return {
    start: `${startYear}-${pad2(startMonth)}-01`,
    end: `${endYear}-${pad2(endMonth)}-${pad2(lastDay)}`,
  };
}

/**
 * `GET /v1/exports/datev`: the period's bookings as a DATEV Buchungsstapel plus the invoice
 * images and their `document.xml`, as one ZIP (docs/datev.md). Everything that can refuse
 * the export (dates, settings, unmapped tax rates) is checked before the first byte; the
 * bookings are planned page by page into a compact list, and the ZIP then streams: the stored
 * PDFs (never rendered again: the archived file is the document) are read a few ahead, in
 * order, while the client downloads.
 */
export class DatevExportService {
  private readonly chunks: ExportChunks;

  constructor(
    private readonly ctx: AppContext,
    chunks: Partial<ExportChunks> = {},
  ) {
    this.chunks = {
      pageSize: repo.PAGE,
      readAhead: READ_AHEAD,
      readAheadBytes: READ_AHEAD_BYTES,
      ...chunks,
    };
  }

  async export(accountId: string, query: DatevExportQueryT): Promise<DatevPackage> {
    const { from, to } = query;
    assertIsoDate(from, '/querystring/from');
    assertIsoDate(to, '/querystring/to');
    if (to < from)
      throw invalidField('/querystring/to', 'must be on or after from', 'out_of_range');
    const row = await repo.findSettings(this.ctx.db, accountId);
    if (!row)
      throw new AppError(
        'business_rule_violated',
        'Configure the DATEV export first: PUT /v1/exports/datev/settings with the consultant number (Beraternummer) and client number (Mandantennummer) of the tax advisor; chart of accounts (SKR03 default), fiscal year start and account length are optional.',
        {
          errors: [
            { path: '/settings/consultantNumber', message: 'is not set', code: 'required' },
            { path: '/settings/clientNumber', message: 'is not set', code: 'required' },
          ],
        },
      );
    const settings = presentSettings(row);
    const year = fiscalYearOf(from, settings.fiscalYearStartMonth);
    if (to > year.end)
      throw invalidField(
        '/querystring/to',
        `must be in the fiscal year of from (${year.start} to ${year.end}): a DATEV batch belongs to one fiscal year`,
        'out_of_range',
      );
    await this.refuseImpossibleDates(accountId, year);
    const { bookings, images } = await this.plan(accountId, settings, from, to);
    const createdAt = this.ctx.clock.now();
    const buffers = new LentBuffers(this.chunks.readAheadBytes);
    const header = headerLine({
      createdAt,
      consultantNumber: settings.consultantNumber,
      clientNumber: settings.clientNumber,
      fiscalYearStart: year.start,
      accountLength: settings.accountLength,
      from,
      to,
      chart: settings.chartOfAccounts,
      currency: 'EUR',
    });
    return {
      fileName: `DATEV_${from.replace(/-/g, '')}_${to.replace(/-/g, '')}.zip`,
      bookings: bookings.length,
      images: images.length,
      chunks: zipChunks(this.entries(header, bookings, images, createdAt, buffers)),
      returned: (chunk) => buffers.returned(chunk),
    };
  }

  /**
   * 422 naming every invoice, credit note and payment of the fiscal year whose stored date is
   * no calendar date (`2026-13-45`): such a booking cannot be dated, so no period of the year
   * would hold it and the year's export would leave it out without a word. The date is
   * corrected in the database first (`kontor doctor` lists every such row).
   */
  private async refuseImpossibleDates(
    accountId: string,
    year: { start: string; end: string },
  ): Promise<void> {
    const candidates = await repo.recordsDatedInYears(
      this.ctx.db,
      accountId,
      year.start.slice(0, 4),
      year.end.slice(0, 4),
    );
    // A month that exists places the booking in one fiscal year (`2026-02-30` in the one that
    // holds February 2026); one that does not (`2026-13-45`) in none, so every fiscal year
    // touching its calendar year refuses it rather than none.
    const from = year.start.slice(0, 7);
    const to = year.end.slice(0, 7);
    const inYear = (date: string) => {
      const month = Number(date.slice(5, 7));
      if (!(month >= 1 && month <= 12)) return true;
      return date.slice(0, 7) >= from && date.slice(0, 7) <= to;
    };
    const impossible = candidates.filter((r) => !isIsoDate(r.date) && inYear(r.date));
    if (impossible.length === 0) return;
    throw new AppError(
      'business_rule_violated',
      `${impossible.length} booking(s) of the fiscal year ${year.start} to ${year.end} carry a date that is no calendar date; they cannot be exported. Correct the stored dates (npx kontor doctor lists them), then export again.`,
      {
        errors: impossible.map((r) => ({
          path: `/${r.kind}s/${r.id}/${r.kind === 'document' ? 'creationDate' : 'paymentDate'}`,
          message: `is ${r.date}${r.number ? ` (${r.kind === 'document' ? 'number' : 'invoice'} ${r.number})` : ''}, not a calendar date`,
          code: 'invalid_format',
        })),
      },
    );
  }

  /** Every booking of the period and the images they link, or 422 for unmapped tax rates. */
  private async plan(
    accountId: string,
    settings: DatevSettings,
    from: string,
    to: string,
  ): Promise<{ bookings: Booking[]; images: Image[] }> {
    const db = this.ctx.db;
    const chart: Chart = settings.chartOfAccounts;
    const length = settings.accountLength;
    const mapped = new Map(settings.revenueAccounts.map((m) => [m.taxRateId, m]));
    const rates = new Map((await repo.taxRates(db, accountId)).map((r) => [r.id, r]));
    const unmapped = new Map<string, FieldError>();
    const bookings: Booking[] = [];
    const images: Image[] = [];
    const names = new Set<string>();

    let after: [string, string] | null = null;
    for (;;) {
      const page = await repo.issuedDocuments(db, accountId, from, to, after, this.chunks.pageSize);
      for (const doc of page) {
        const credit = doc.invoice_type === 'CREDIT_NOTE';
        const number = doc.document_number ?? doc.id;
        const image = doc.file_key
          ? imageOf(doc.id, doc.file_key, Number(doc.file_size ?? 0), number, names)
          : undefined;
        if (image) images.push(image);
        const guid = image?.guid ?? null;
        const buyer = buyerOf(doc.einvoice_parties);
        const buyerVatId = buyer.vatId;
        const debtor = debtorAccount(settings, buyer.number);
        for (const line of JSON.parse(doc.tax_breakdown) as TaxLine[]) {
          const gross = Number(line.netMinor) + Number(line.taxMinor);
          if (gross === 0) continue;
          const category = line.category ?? 'S';
          const mapping = mapped.get(line.taxRateId);
          const account =
            mapping?.account ?? defaultRevenueAccount(chart, length, category, line.rateBp);
          if (account === undefined) {
            const rate = rates.get(line.taxRateId);
            unmapped.set(line.taxRateId, {
              path: '/settings/revenueAccounts',
              message: `tax rate ${line.taxRateId}${rate ? ` "${rate.name}"` : ''} (category ${category}, ${line.rateBp / 100} %) has no default revenue account in ${chart}: map it to one with PUT /v1/exports/datev/settings`,
              code: 'required',
            });
            continue;
          }
          // The debtor owes the gross amount of an invoice (debit) and gets it back by a
          // credit note (credit); a negative tax line (a discount rate) turns the side round.
          const debit = credit ? gross < 0 : gross > 0;
          bookings.push({
            amountMinor: Math.abs(gross),
            side: debit ? 'S' : 'H',
            currency: doc.currency,
            account: debtor,
            contraAccount: account,
            taxKey: mapping?.taxKey ?? '',
            date: doc.creation_date,
            reference: number,
            // Never "Gutschrift": § 14 (2) Satz 2 UStG keeps that word for self-billing.
            text: `${credit ? (doc.storno === 1 ? 'Stornorechnung ' : 'Rechnungskorrektur ') : ''}${doc.partner_name ?? ''}`.trim(),
            documentGuid: guid,
            euVatId:
              (category === 'K' || category === 'AE') && buyerVatId && !/^DE/i.test(buyerVatId)
                ? buyerVatId
                : null,
          });
        }
      }
      if (page.length < this.chunks.pageSize) break;
      const last = page.at(-1)!;
      after = [last.creation_date, last.id];
    }
    if (unmapped.size > 0)
      throw new AppError(
        'business_rule_violated',
        'Some invoices of the period use tax rates without a revenue account; map them in the DATEV settings.',
        { errors: [...unmapped.values()] },
      );

    // A loop, not a spread: a year of payments can pass the engine's limit on arguments.
    for (const booking of await this.paymentBookings(accountId, settings, from, to))
      bookings.push(booking);
    return { bookings, images };
  }

  /** The period's debtor payments as bookings between the bank and the debtor account. */
  private async paymentBookings(
    accountId: string,
    settings: DatevSettings,
    from: string,
    to: string,
  ): Promise<Booking[]> {
    const out: Booking[] = [];
    let paymentsAfter: [string, string] | null = null;
    for (;;) {
      const page = await repo.debtorPayments(
        this.ctx.db,
        accountId,
        from,
        to,
        paymentsAfter,
        this.chunks.pageSize,
      );
      for (const p of page)
        // Money in: the bank is debited, the debtor credited; a refund the other way round.
        out.push({
          amountMinor: Number(p.amount),
          side: p.direction === 'INCOMING' ? 'S' : 'H',
          currency: p.currency,
          account: settings.bankAccount,
          contraAccount: debtorAccount(settings, buyerOf(p.einvoice_parties).number),
          taxKey: '',
          date: p.payment_date,
          reference: p.document_number ?? '',
          text: `Zahlung ${p.partner_name ?? ''}`.trim(),
          documentGuid: null,
          euVatId: null,
        });
      if (page.length < this.chunks.pageSize) break;
      const last = page.at(-1)!;
      paymentsAfter = [last.payment_date, last.id];
    }
    return out;
  }

  /** The package's files in order: the CSV, each PDF, then `document.xml`. */
  private async *entries(
    header: string,
    bookings: Booking[],
    images: Image[],
    createdAt: Date,
    buffers: LentBuffers,
  ): AsyncGenerator<ZipEntry> {
    yield {
      name: CSV_NAME,
      deflate: true,
      mtime: createdAt,
      chunks: async function* () {
        yield encode(header + CRLF + columnLine() + CRLF);
        for (let i = 0; i < bookings.length; i += LINES_PER_CHUNK)
          yield encode(
            bookings
              .slice(i, i + LINES_PER_CHUNK)
              .map((b) => bookingLine(b) + CRLF)
              .join(''),
          );
        await Promise.resolve();
      },
    };
    const packed: DocumentImage[] = [];
    for await (const fetched of this.readAhead(images, buffers)) {
      if (!fetched) continue;
      const { image, body } = fetched;
      packed.push(image);
      yield {
        name: image.fileName,
        deflate: false,
        mtime: createdAt,
        chunks: async function* () {
          if (Array.isArray(body)) yield* body;
          else for await (const chunk of body) yield chunk as Uint8Array;
        },
      };
    }
    yield {
      name: 'document.xml',
      deflate: true,
      mtime: createdAt,
      chunks: async function* () {
        yield Buffer.from(documentXml(createdAt, packed), 'utf8');
        await Promise.resolve();
      },
    };
  }

  /**
   * `images` read from storage with bounded read-ahead (`readAhead` files, `readAheadBytes`),
   * answered in their order. Streams opened ahead but never taken (the client went away) are
   * closed.
   */
  private async *readAhead(images: Image[], buffers: LentBuffers): AsyncGenerator<Fetched> {
    const { readAhead, readAheadBytes } = this.chunks;
    const window: { fetched: Promise<Fetched>; bytes: number }[] = [];
    let held = 0;
    let next = 0;
    try {
      for (;;) {
        while (next < images.length && window.length < readAhead) {
          const image = images[next]!;
          const bytes = image.size <= WHOLE_FILE_MAX ? image.size : 0;
          if (window.length > 0 && held + bytes > readAheadBytes) break;
          window.push({ fetched: this.fetch(image, buffers), bytes });
          held += bytes;
          next++;
        }
        const first = window.shift();
        if (!first) return;
        held -= first.bytes;
        yield await first.fetched;
      }
    } finally {
      for (const { fetched } of window)
        void fetched.then((f) => {
          if (f && !Array.isArray(f.body)) f.body.destroy();
        });
    }
  }

  /**
   * One PDF: read whole when small (into a buffer of `buffers`, lent to the stream), opened for
   * streaming when large. A lost or unreadable file must not break the whole hand-off: the
   * booking keeps its link, the index leaves the image out, and the log says which one.
   */
  private async fetch(image: Image, buffers: LentBuffers): Promise<Fetched> {
    let buffer: Buffer | undefined;
    try {
      if (image.size > WHOLE_FILE_MAX)
        return { image, body: await this.ctx.storage.open(image.key) };
      buffer = buffers.take(image.size);
      const bytes = await this.ctx.storage.read(image.key, buffer);
      // A file larger than the buffer taken for it (its stored size, rounded up) was read into
      // one of its own.
      if (bytes.buffer === buffer.buffer) buffers.lend(bytes, buffer);
      else buffers.give(buffer);
      return { image, body: [bytes] };
    } catch (err) {
      if (buffer) buffers.give(buffer);
      this.ctx.logger.warn({ err, key: image.key }, 'DATEV export: invoice PDF not readable');
      return null;
    }
  }
}

/**
 * What the export reads of the buyer frozen with the invoice: the VAT id (intra-EU supplies
 * name it to DATEV) and the customer number (its own debtor account, `partnerAccounts`).
 */
function buyerOf(parties: string | null): { vatId: string | null; number: string | null } {
  if (!parties) return { vatId: null, number: null };
  const parsed = JSON.parse(parties) as {
    buyer?: { vatId?: string | null; number?: string | null };
  };
  return { vatId: parsed.buyer?.vatId ?? null, number: parsed.buyer?.number ?? null };
}

/**
 * The debtor an invoice, its credit notes and its payments are booked on: with
 * `partnerAccounts`, the customer number frozen with the invoice when it is all digits and a
 * debtor account at the account length (10000–69999 at length 4); else the collective debtor.
 */
function debtorAccount(settings: DatevSettings, number: string | null): number {
  if (!settings.partnerAccounts || number === null || !/^[1-9][0-9]{0,8}$/.test(number))
    return settings.debtorAccount;
  const account = Number(number);
  return isDebtorAccount(account, settings.accountLength) ? account : settings.debtorAccount;
}

/** A document's PDF in the package, under a file name no other image of the package has. */
function imageOf(id: string, key: string, size: number, number: string, names: Set<string>): Image {
  let name = `${reference(number)}.pdf`;
  for (let n = 2; names.has(name); n++) name = `${reference(number)}_${n}.pdf`;
  names.add(name);
  return { guid: documentGuid(id), fileName: name, keywords: number, key, size };
}
