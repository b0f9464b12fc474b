/**
 * Which statement files bank imports keep (issue 11). An import refers to the file it was
 * read from by a foreign key, so without this every such file answered 409 `in_use`
 * forever. Now the file of an ACTIVE import is still in use; the file of a FINALIZED import
 * is a Buchungsbeleg that GoBD (§147 AO) keeps for ten years after the end of the calendar
 * year it was booked in; the file of a DISCARDED import goes, and the discarded import with
 * it (the foreign key would refuse the delete, and its staged data is the file's content).
 */
import { AppError } from '../../shared/errors.js';
import { appendAudit } from '../../shared/audit.js';
import { onFileDelete, systemActor } from '../files/index.js';
import * as repo from './bank-imports.repository.js';

/**
 * Years a booked statement is kept after the end of the calendar year of its booking: a bank
 * statement is a Buchungsbeleg, 8 years under §147 (3) AO since the Viertes
 * Bürokratieentlastungsgesetz (from 2025; 10 years before).
 */
export const RETENTION_YEARS = 8;

const berlinYear = new Intl.DateTimeFormat('en', { timeZone: 'Europe/Berlin', year: 'numeric' });

/**
 * The last day a file booked at `finalizedAt` must be kept: 31 December of the tenth year
 * after the calendar year of booking (§147 Abs. 3 and 4 AO). The year is the German one: a
 * booking at 23:30 UTC on 31 December is already in the next year in Berlin.
 */
export function retainedUntil(finalizedAt: string): string {
  const year = Number(berlinYear.format(new Date(finalizedAt)));
  return `${year + RETENTION_YEARS}-12-31`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

onFileDelete(async (trx, accountId, fileId) => {
  const imports = await repo.importsOfFile(trx, accountId, fileId);
  if (imports.length === 0) return;
  const active = imports.filter((i) => i.status === 'ACTIVE');
  if (active.length > 0)
    throw new AppError(
      'in_use',
      `The file is still referenced by ${plural(active.length, 'active bank statement import')} (${active.map((i) => i.id).join(', ')}): finalize or discard it first.`,
      { members: { referencedBy: [`${active.length} bank statement imports`] } },
    );
  const finalized = imports.filter((i) => i.status === 'FINALIZED');
  if (finalized.length > 0) {
    // Several bookings of one file: the latest one sets the end.
    const until = finalized
      .map((i) => retainedUntil(i.finalized_at ?? i.updated_at))
      .sort()
      .at(-1)!;
    throw new AppError(
      'in_use',
      `The file is the statement of ${plural(finalized.length, 'finalized bank statement import')} (${finalized.map((i) => i.id).join(', ')}). GoBD (§147 AO) requires keeping booked statements for ${RETENTION_YEARS} years after the end of the calendar year of booking: this file must be kept until ${until}.`,
      {
        members: {
          referencedBy: [`${finalized.length} bank statement imports`],
          retainedUntil: until,
        },
      },
    );
  }
  const discarded = imports.filter((i) => i.status === 'DISCARDED').map((i) => i.id);
  const deleted = await repo.deleteDiscardedImports(trx, accountId, discarded);
  const now = new Date();
  for (const id of deleted) {
    // The hook knows no actor; the user's own `file.deleted` event is in the same transaction.
    await appendAudit(
      trx,
      systemActor(accountId),
      {
        action: 'bank_import.deleted',
        resourceType: 'bank_import',
        resourceId: id,
        changes: { status: 'DISCARDED', fileId, cause: 'file.deleted' },
      },
      now,
    );
  }
});
