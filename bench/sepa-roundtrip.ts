/**
 * `npm run bench:sepa-roundtrip`: the SEPA round trip at scale — a collection of BENCH_INVOICES
 * (10,000) FINAL invoices of EUR 119.00 on one mandate (`POST /v1/sepa/collections`), then a
 * camt.053 written from the run's items (one booked credit per EndToEndId) imported with
 * auto-approve and finalized, settling all of them. The invoices are copies of one made through
 * the API, inserted directly (as bench/dunning.ts does); the collection runs the command itself
 * (the route takes 500 invoice ids per request). Prints wall-clock milliseconds and the
 * heap after each step (garbage collected) and its peak; checks that every invoice is paid and
 * no payment was booked twice. Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of
 * DATABASE_URL (a fresh database). Not a test.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BankImportsService } from '../src/modules/bank-imports/bank-imports.service.js';
import { createCollection } from '../src/modules/sepa/collections.command.js';
import { storeGeneratedFile, systemActor } from '../src/modules/files/files.api.js';
import { addDays } from '../src/shared/dates.js';
import { newId } from '../src/shared/ids.js';
import { billingAddress, inProcessApp, say } from './in-process.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const INVOICES = Number(process.env.BENCH_INVOICES ?? 10_000);
const CHUNK = 200;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Runs `step`, sampling the heap every 20 ms: its time, its peak and what it leaves. */
async function measure<T>(label: string, step: () => Promise<T>): Promise<T> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20);
  const started = performance.now();
  try {
    return await step();
  } finally {
    const ms = performance.now() - started;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    gc();
    say(
      `${label}: ${Math.round(ms)} ms, heap peak +${mb(peak - before)}, after ${mb(process.memoryUsage().heapUsed)} (rss ${mb(process.memoryUsage().rss)})`,
    );
  }
}

function camt053(items: { endToEndId: string; amount: number }[], date: string): string {
  const entries = items.map(
    (i, n) =>
      `<Ntry><NtryRef>B${n}</NtryRef><Amt Ccy="EUR">${i.amount.toFixed(2)}</Amt><CdtDbtInd>CRDT</CdtDbtInd>` +
      `<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt>` +
      `<AcctSvcrRef>B${n}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>ESDD</SubFmlyCd></Fmly></Domn></BkTxCd>` +
      `<NtryDtls><TxDtls><Refs><EndToEndId>${i.endToEndId}</EndToEndId><MndtId>M-BENCH</MndtId></Refs>` +
      `<RltdPties><Dbtr><Nm>Müller &amp; Söhne GmbH</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>` +
      `<RmtInf><Ustrd>Rechnung</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>${date}T20:00:00</CreDtTm></GrpHdr><Stmt><Id>1</Id><CreDtTm>${date}T20:00:00</CreDtTm><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.join('\n')}</Stmt></BkToCstmrStmt></Document>`;
}

const bench = await inProcessApp('sepa-roundtrip', { JOB_POLL_INTERVAL_MS: '0' });
try {
  const { ctx, user, callJson: call, database } = bench;
  const company = await call('GET', '/v1/account/company');
  const { updatedAt: _u, ...body } = company;
  await call('PUT', '/v1/account/company', { ...body, creditorId: 'DE98ZZZ09999999999' });
  const partner = await call('POST', '/v1/partners', {
    name: 'Müller & Söhne GmbH',
    addresses: [billingAddress('buchhaltung@mueller-soehne.example')],
  });
  await call('POST', `/v1/partners/${String(partner.id)}/mandates`, {
    reference: 'M-BENCH',
    signedOn: '2024-01-15',
    iban: 'DE89370400440532013000',
    debtorName: 'Müller & Söhne GmbH',
  });
  const today = new Date().toISOString().slice(0, 10);
  const model = await call('POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    creationDate: addDays(today, -14),
    dueDate: today,
    status: 'DRAFT',
    partnerId: partner.id,
    lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
  });
  const row = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', String(model.id))
    .executeTakeFirstOrThrow();
  const ids: string[] = [];
  const now = new Date().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    for (let from = 0; from < INVOICES; from += CHUNK) {
      const values = [];
      for (let i = from; i < Math.min(INVOICES, from + CHUNK); i++) {
        const id = newId('document');
        ids.push(id);
        values.push({
          ...row,
          id,
          status: 'FINAL',
          document_number: `RE-S-${String(i + 1).padStart(6, '0')}`,
          finalized_at: now,
          version: 2,
          created_at: now,
          updated_at: now,
        });
      }
      await trx.insertInto('documents').values(values).execute();
    }
  });
  say(`seeded ${INVOICES} FINAL invoices of EUR ${Number(row.gross_total) / 100} (${database})`);

  const actor = systemActor(user.accountId);
  // The command itself: the route takes at most 500 invoice ids per request.
  const run = await measure(`collection of ${INVOICES} invoices`, () =>
    createCollection(ctx, actor, { invoiceIds: ids }),
  );
  const items = run.items;
  const date = items[0]!.executionDate;
  const xml = camt053(items, date);
  const file = await storeGeneratedFile(ctx, actor, {
    fileName: 'camt053.xml',
    contentType: 'application/xml',
    bytes: Buffer.from(xml, 'utf8'),
  });
  say(`camt.053 of ${items.length} entries: ${mb(xml.length)}`);
  const service = new BankImportsService(ctx);
  const imp = await measure('import (parse, match by EndToEndId, stage)', () =>
    service.create(actor, {
      fileId: file.id,
      key: file.key,
      periodFrom: addDays(date, -30),
      periodTo: addDays(date, 30),
      autoApprove: true,
    }),
  );
  const done = await measure('finalize (confirm payments, settle invoices)', () =>
    service.finalize(actor, imp.id, imp.version, undefined),
  );
  const counts = await ctx.db
    .selectFrom('payments')
    .select((eb) => [eb.fn.countAll<number>().as('n'), 'status'])
    .where('account_id', '=', user.accountId)
    .groupBy('status')
    .execute();
  const paid = await ctx.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', user.accountId)
    .where('paid_at', 'is not', null)
    .executeTakeFirstOrThrow();
  say(
    `result: ${JSON.stringify(done.result)}; payments ${counts.map((c) => `${c.status} ${c.n}`).join(', ')}; invoices paid ${paid.n}`,
  );
  if (Number(paid.n) !== INVOICES || done.result?.paymentsCreated !== 0)
    throw new Error(`expected ${INVOICES} invoices paid and no new payment`);
} finally {
  await bench.close();
}
