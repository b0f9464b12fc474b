/**
 * `npm run bench:imports`: the bank import figures of issue 5 on embedded SQLite — parse +
 * stage of a generated 50 000-entry MT940 and CAMT.053 file (POST /v1/bank-statement-imports,
 * through the service, suggestions and duplicate checks included), finalize of 20 000 accepted
 * lines, and the parse time alone. Prints wall-clock milliseconds; not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { BankImportsService } from '../src/modules/bank-imports/bank-imports.service.js';
import {
  generated,
  mt940,
  type Line,
} from '../src/modules/bank-imports/bank-imports.test-support.js';
import { parseStatementFile } from '../src/modules/bank-imports/parsers/index.js';
import { storeGeneratedFile, systemActor } from '../src/modules/files/files.api.js';
import { seedUser } from '../test/helpers.js';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 50_000);
const FINALIZE = Number(process.env.BENCH_FINALIZE ?? 20_000);

function camt053(lines: Line[]): string {
  const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
  const entries = lines
    .map(
      (l, i) =>
        `<Ntry><NtryRef>${l.ref ?? i}</NtryRef><Amt Ccy="EUR">${amount(l.cents)}</Amt>` +
        `<CdtDbtInd>${l.cents >= 0 ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>${l.date}</Dt></BookgDt><ValDt><Dt>${l.date}</Dt></ValDt>` +
        `<AcctSvcrRef>${l.ref ?? i}</AcctSvcrRef><BkTxCd><Prtry><Cd>NTRF</Cd></Prtry></BkTxCd>` +
        `<NtryDtls><TxDtls><Refs><EndToEndId>E2E${i}</EndToEndId></Refs>` +
        `<RltdPties><${l.cents >= 0 ? 'Dbtr' : 'Cdtr'}><Nm>${l.name ?? 'X'}</Nm></${l.cents >= 0 ? 'Dbtr' : 'Cdtr'}>` +
        `<${l.cents >= 0 ? 'DbtrAcct' : 'CdtrAcct'}><Id><IBAN>DE89370400440532013000</IBAN></Id></${l.cents >= 0 ? 'DbtrAcct' : 'CdtrAcct'}></RltdPties>` +
        `<RmtInf><Ustrd>${l.purpose ?? ''}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  const sum = lines.reduce((s, l) => s + l.cents, 0);
  const bal = (cd: string, cents: number, date: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${cd}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(cents)}</Amt>` +
    `<CdtDbtInd>${cents >= 0 ? 'CRDT' : 'DBIT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-01-01T00:00:00</CreDtTm></GrpHdr>
<Stmt><Id>1</Id><CreDtTm>2026-01-01T00:00:00</CreDtTm><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>
${bal('OPBD', 1_000_000, lines[0]!.date)}${bal('CLBD', 1_000_000 + sum, lines[lines.length - 1]!.date)}
${entries}
</Stmt></BkToCstmrStmt></Document>`;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-imports-'));
  const app = await buildApp(
    loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
      LOG_LEVEL: 'warn',
      JOB_POLL_INTERVAL_MS: '0',
    }),
  );
  const service = new BankImportsService(app.ctx);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    say(`Kontor import bench: ${ENTRIES} entries, finalize ${FINALIZE}, Node ${process.version}`);
    for (const [format, text, type] of [
      ['MT940', mt940(generated(ENTRIES, '2020-01-01')), 'text/plain'],
      ['CAMT.053', camt053(generated(ENTRIES, '2020-01-01')), 'application/xml'],
    ] as const) {
      const { accountId } = await seedUser(app.ctx.db);
      const actor = systemActor(accountId);
      const bytes = Buffer.from(text, 'latin1');
      let started = performance.now();
      const parsed = parseStatementFile(bytes);
      const parseMs = performance.now() - started;
      const file = await storeGeneratedFile(app.ctx, actor, {
        fileName: 'bench.sta',
        contentType: type,
        bytes,
      });
      started = performance.now();
      const imp = await service.create(actor, {
        fileId: file.id,
        key: file.key,
        periodFrom: '2000-01-01',
        periodTo: '2099-12-31',
        autoApprove: true,
      });
      const stageMs = performance.now() - started;
      say(
        `${format.padEnd(9)} ${(bytes.length / 1e6).toFixed(1)} MB, ${parsed.statements[0]?.entries.length} entries: ` +
          `parse ${parseMs.toFixed(0)} ms, parse + stage ${stageMs.toFixed(0)} ms (${imp.transactionCount} staged, balance ${imp.balanceOk ? 'ok' : 'broken'})`,
      );
    }
    const { accountId } = await seedUser(app.ctx.db);
    const actor = systemActor(accountId);
    const bytes = Buffer.from(mt940(generated(FINALIZE, '2024-01-01')), 'latin1');
    const file = await storeGeneratedFile(app.ctx, actor, {
      fileName: 'bench.sta',
      contentType: 'text/plain',
      bytes,
    });
    const imp = await service.create(actor, {
      fileId: file.id,
      key: file.key,
      periodFrom: '2000-01-01',
      periodTo: '2099-12-31',
      autoApprove: true,
    });
    const started = performance.now();
    const done = await service.finalize(actor, imp.id, imp.version, undefined);
    say(
      `finalize  ${FINALIZE} accepted lines: ${(performance.now() - started).toFixed(0)} ms (${done.result?.paymentsCreated} payments)`,
    );
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
