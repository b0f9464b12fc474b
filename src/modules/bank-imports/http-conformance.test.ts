import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { upload } from '../files/files.test-support.js';
import { report } from '../../../test/report.js';

/**
 * The conformance run through the API (`../shared/testdata`, when present): every statement
 * file written by others is uploaded and imported; each answers 201 (then discarded) or a
 * 4xx problem with a reason — never a 5xx — and a refused file leaves no import behind.
 */

const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/testdata',
);
const FOLDERS = ['mt940', 'camt052', 'camt053', 'camt054', 'csv'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

function contentType(file: string): string {
  if (/\.xml$/i.test(file)) return 'application/xml';
  if (/\.csv$/i.test(file)) return 'text/csv';
  return 'text/plain';
}

let t: TestApp;
let user: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
});
afterAll(() => t.close());

describe.runIf(existsSync(ROOT))('bank statement imports: conformance through the API', () => {
  it('imports or refuses every statement file with a 4xx reason, never a 5xx', async () => {
    const rows: string[] = [];
    let imported = 0;
    let refused = 0;
    for (const folder of FOLDERS) {
      if (!existsSync(path.join(ROOT, folder))) continue;
      for (const file of files(path.join(ROOT, folder)).sort()) {
        const name = path.relative(ROOT, file);
        const bytes = readFileSync(file);
        const { ticket, put } = await upload(
          t,
          user,
          contentType(file),
          bytes,
          path.basename(file),
        );
        if (put.statusCode >= 300) {
          expect(put.statusCode, `${name}: upload`).toBeLessThan(500);
          refused++;
          rows.push(
            `refused  ${name}: upload ${put.statusCode} ${put.json<{ detail?: string }>().detail}`,
          );
          continue;
        }
        const res = await t.request({
          method: 'POST',
          url: '/v1/bank-statement-imports',
          token: user.token,
          payload: {
            fileId: ticket.fileId,
            key: ticket.key,
            periodFrom: '1990-01-01',
            periodTo: '2099-12-31',
          },
        });
        expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode === 201) {
          const imp = res.json<{
            id: string;
            transactionCount: number;
            balanceOk: boolean | null;
          }>();
          imported++;
          rows.push(
            `imported ${name}: ${imp.transactionCount} lines, balance ${String(imp.balanceOk)}`,
          );
          const del = await t.request({
            method: 'DELETE',
            url: `/v1/bank-statement-imports/${imp.id}`,
            token: user.token,
          });
          expect(del.statusCode).toBe(204);
        } else {
          const problem = res.json<{ code: string; detail: string }>();
          expect(problem.detail, name).toBeTruthy();
          refused++;
          rows.push(`refused  ${name}: ${res.statusCode} ${problem.code}: ${problem.detail}`);
          const active = await t.request({
            method: 'GET',
            url: '/v1/bank-statement-imports/active',
            token: user.token,
          });
          expect(active.statusCode, `${name} left an import behind`).toBe(404);
        }
      }
    }
    report(`${rows.join('\n')}\nAPI conformance: imported ${imported}, refused ${refused}\n`);
    expect(imported).toBeGreaterThan(0);
  }, 300_000);
});
