/**
 * What the SEPA page reads and writes: the open invoices a run could take (the API's document
 * list), the dry run over them (`dryRun: true`, which decides what can be collected or paid and
 * why not), the real run of the chosen ones, the runs made, and a run's XML file. The app
 * decides none of it: which invoice is refused, its amount, mandate, sequence type and date are
 * the API's answer.
 */
import type { components } from '@kontor/client';
import { api } from '../../api/client';
import { ProblemError } from '../../api/problems';
import { unwrapPage } from '../partners/pages';

export type Run = components['schemas']['Collection'];
export type RunItem = Run['items'][number];
export type Refusal = Run['refused'][number];
export type Invoice = components['schemas']['Document'];
export type RunKind = 'collections' | 'transfers';

/** The API's `maxItems` of a run's `invoiceIds`: the proposal covers this many open invoices. */
export const MAX_INVOICES = 500;
const PAGE = 100;

/**
 * The open FINAL invoices a run could take: issued ones for collections, uploaded supplier
 * invoices for transfers, oldest pages first, at most MAX_INVOICES.
 */
export async function openInvoices(kind: RunKind): Promise<{ invoices: Invoice[]; more: boolean }> {
  const invoices: Invoice[] = [];
  let cursor: string | undefined;
  for (;;) {
    const { data, error } = await api.GET('/v1/documents', {
      params: {
        query: {
          documentType: 'INVOICE',
          source: kind === 'collections' ? 'GENERATED' : 'UPLOADED',
          open: true,
          limit: PAGE,
          cursor,
        },
      },
    });
    if (error) throw new ProblemError(error);
    // The route also speaks CSV; without an Accept header for it the answer is JSON.
    if (typeof data === 'string') throw new Error('expected a JSON page');
    invoices.push(...data.data);
    if (data.nextCursor === null) return { invoices, more: false };
    if (invoices.length >= MAX_INVOICES) {
      return { invoices: invoices.slice(0, MAX_INVOICES), more: true };
    }
    cursor = data.nextCursor;
  }
}

export interface RunRequest {
  invoiceIds: string[];
  /** The collection or execution date asked for; '' lets the API choose per invoice. */
  date: string;
  useSkonto: boolean;
  dryRun: boolean;
}

/** A dry run or a real run; a refusal of the whole request throws the API's problem. */
export async function postRun(kind: RunKind, request: RunRequest): Promise<Run> {
  const date = request.date === '' ? undefined : request.date;
  const result =
    kind === 'collections'
      ? await api.POST('/v1/sepa/collections', {
          body: { invoiceIds: request.invoiceIds, collectionDate: date, dryRun: request.dryRun },
        })
      : await api.POST('/v1/sepa/transfers', {
          body: {
            invoiceIds: request.invoiceIds,
            executionDate: date,
            useSkonto: request.useSkonto,
            dryRun: request.dryRun,
          },
        });
  if (result.error) throw new ProblemError(result.error);
  return result.data;
}

/** How many runs a page of the list shows. */
export const RUNS_PAGE = 25;

/** A page of the runs made, newest first, from `cursor` (the first page without one). */
export async function listRuns(
  kind: RunKind,
  cursor: string | undefined,
): Promise<{ data: Run[]; nextCursor: string | null }> {
  const query = { limit: RUNS_PAGE, ...(cursor === undefined ? {} : { cursor }) };
  return kind === 'collections'
    ? unwrapPage(await api.GET('/v1/sepa/collections', { params: { query } }))
    : unwrapPage(await api.GET('/v1/sepa/transfers', { params: { query } }));
}

function fileNameOf(response: Response, fallback: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback;
}

/** Saves a blob under a name: the file needs the bearer, so a plain link cannot fetch it. */
function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Downloads a run's pain.008 or pain.001 under the name the API gives it. */
export async function downloadRunFile(kind: RunKind, runId: string): Promise<void> {
  const options = { params: { path: { runId } }, parseAs: 'blob' as const };
  const result =
    kind === 'collections'
      ? await api.GET('/v1/sepa/collections/{runId}/file', options)
      : await api.GET('/v1/sepa/transfers/{runId}/file', options);
  if (result.error) throw new ProblemError(result.error);
  saveBlob(result.data, fileNameOf(result.response, `${runId}.xml`));
}
