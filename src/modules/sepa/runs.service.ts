import type { AppContext } from '../../context.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { notFound } from '../../shared/errors.js';
import { plannedOf, presentRun } from './runs.presenter.js';
import * as repo from './sepa.repository.js';
import type { SepaRun } from './sepa.schemas.js';

export type RunKind = 'COLLECTION' | 'TRANSFER';

const schemeOf = (run: repo.RunRow) => run.scheme as 'CORE' | 'B2B';

const what = (kind: RunKind) => (kind === 'COLLECTION' ? 'Collection' : 'Transfer');

/** Reads of stored runs: one, a page, and the file. Stored runs answer no refusals. */
export class RunsService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string, kind: RunKind, id: string): Promise<SepaRun> {
    const run = await repo.findRun(this.ctx.db, accountId, kind, id);
    if (!run) throw notFound(what(kind));
    const items = await repo.runItems(this.ctx.db, accountId, [id]);
    return presentRun(kind, run, items.map(plannedOf), [], schemeOf(run));
  }

  async list(
    accountId: string,
    kind: RunKind,
    query: { limit?: number; cursor?: string },
  ): Promise<{ data: SepaRun[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listRuns(this.ctx.db, accountId, kind, {
      limit,
      afterId: decodeCursor(query.cursor),
    });
    const page = toPage(rows, limit);
    const items = await repo.runItems(
      this.ctx.db,
      accountId,
      page.rows.map((r) => r.id),
    );
    return {
      data: page.rows.map((run) =>
        presentRun(
          kind,
          run,
          items.filter((i) => i.run_id === run.id).map(plannedOf),
          [],
          schemeOf(run),
        ),
      ),
      nextCursor: page.nextCursor,
    };
  }

  /** The run's file as it was written (`pain.008.001.08` or `pain.001.001.09`). */
  async file(
    accountId: string,
    kind: RunKind,
    id: string,
  ): Promise<{ xml: string; fileName: string }> {
    const run = await repo.findRun(this.ctx.db, accountId, kind, id);
    if (!run) throw notFound(what(kind));
    const format = kind === 'COLLECTION' ? 'pain.008' : 'pain.001';
    return { xml: run.file_xml, fileName: `${format}-${run.message_id}.xml` };
  }
}
