import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp } from '../../../test/helpers.js';
import { uploadStatement } from './bank-imports.test-support.js';
import { report } from '../../../test/report.js';

/**
 * Issue 11 end to end: a CAMT file with one element carrying 80 000 attributes kept the event
 * loop busy for 26 s, so every tenant waited. Uploaded and imported through the real endpoint
 * of a listening server, it must be refused with a 4xx while `/health`, polled meanwhile over
 * real sockets, keeps answering. The worst `/health` latency is printed, not asserted: it
 * depends on the machine, the answers do not.
 */

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/** A camt.053 whose one entry's remittance text carries `count` attributes. */
function attributeBomb(count: number): string {
  const attributes = Array.from({ length: count }, (_, i) => `a${i}="1"`).join(' ');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-03-01T00:00:00</CreDtTm></GrpHdr>
<Stmt><Id>1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>2026-03-02</Dt></BookgDt><NtryDtls><TxDtls><RmtInf><Ustrd ${attributes}>x</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
}

describe('a hostile CAMT upload', () => {
  it('is refused with a 4xx while /health keeps answering', async () => {
    const user = await createUser(t);
    const file = await uploadStatement(t, user, attributeBomb(80_000), 'application/xml');

    const health: { status: number; ms: number }[] = [];
    let importing = true;
    // Three pollers, so that some request is always waiting while the import is read.
    const poll = async () => {
      while (importing) {
        const started = performance.now();
        const res = await fetch(`${base}/health`);
        await res.arrayBuffer();
        health.push({ status: res.status, ms: performance.now() - started });
        await sleep(2);
      }
    };
    const pollers = [poll(), poll(), poll()];
    await sleep(50);

    const started = performance.now();
    const res = await fetch(`${base}/v1/bank-statement-imports`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': t.apiKey,
        authorization: `Bearer ${user.token}`,
      },
      body: JSON.stringify({ ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31' }),
    });
    const body = (await res.json()) as { code?: string; detail?: string };
    const importMs = performance.now() - started;
    await sleep(50);
    importing = false;
    await Promise.all(pollers);

    const worst = Math.max(...health.map((h) => h.ms));
    report(
      `80 000-attribute CAMT: import answered ${res.status} in ${importMs.toFixed(0)} ms; ` +
        `${health.length} /health requests, worst latency ${worst.toFixed(0)} ms\n`,
    );
    expect(res.status).toBe(422);
    expect(body.code).toBe('file_unprocessable');
    expect(body.detail).toMatch(/An element with more than 256 attributes/);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((h) => h.status === 200)).toBe(true);
  });
});
