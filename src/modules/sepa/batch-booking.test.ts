import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import { uploadStatement } from '../bank-imports/bank-imports.test-support.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';
import {
  camt053,
  cents,
  collectionRun,
  creditorApp,
  type Run,
  type RunItem,
} from './round-trip.test-support.js';

/**
 * The statement side of the SEPA round trip beyond single bookings (docs/sepa-domain.md,
 * "Round trip"): a bank that honours batch booking books a `PmtInf` block or a whole run as one
 * line — camt `NtryDtls/Btch` naming the `PmtInfId` or `MsgId`, a camt entry listing the items'
 * EndToEndIds without their amounts, an MT940 Sammler line with the `PmtInfId` in `KREF+` —
 * and finalize settles every item of it; a total that does not agree is not matched. German
 * MT940 returns name their reason in `?34` (DK codes 9xx); and an EndToEndId cut by a subfield
 * boundary with `SVWZ+` glued to it still matches. The statements are written here from the
 * runs' own files, after the structure of real camt.053 and German MT940 statements.
 */

type Item = RunItem;

let t: TestApp;
let user: TestUser;
const partners: string[] = [];
const mandates: string[] = [];

const minor = (item: Item) => Math.round(item.amount * 100);
const sum = (items: Item[]) => items.reduce((total, i) => total + minor(i), 0);

/** A camt entry booking a batch as one credit: `Btch` and/or `TxDtls` without amounts. */
function batchEntry(e: {
  ref: string;
  amountMinor: number;
  date: string;
  btch?: { msgId?: string; pmtInfId?: string; count?: number };
  endToEndIds?: string[];
}): string {
  const btch = e.btch
    ? `<Btch>${e.btch.msgId ? `<MsgId>${e.btch.msgId}</MsgId>` : ''}${e.btch.pmtInfId ? `<PmtInfId>${e.btch.pmtInfId}</PmtInfId>` : ''}${e.btch.count !== undefined ? `<NbOfTxs>${e.btch.count}</NbOfTxs>` : ''}</Btch>`
    : '';
  const txs = (e.endToEndIds ?? [])
    .map(
      (id) =>
        `<TxDtls><Refs><EndToEndId>${id}</EndToEndId></Refs><RmtInf><Ustrd>Rechnung</Ustrd></RmtInf></TxDtls>`,
    )
    .join('');
  return `<Ntry><NtryRef>${e.ref}</NtryRef><Amt Ccy="EUR">${cents(e.amountMinor)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${e.date}</Dt></BookgDt><ValDt><Dt>${e.date}</Dt></ValDt><AcctSvcrRef>${e.ref}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>BBDD</SubFmlyCd></Fmly></Domn></BkTxCd><AddtlNtryInf>SEPA-LASTSCHRIFT SAMMLER</AddtlNtryInf><NtryDtls>${btch}${txs}</NtryDtls></Ntry>`;
}

/**
 * A German MT940 (DK) with lines given by their `:86:` content; the purpose text is cut into
 * 27-character `?2x` subfields the way banks write them, each SEPA key starting a subfield.
 */
function mt940(
  lines: {
    cents: number;
    date: string;
    gvc: string;
    text: string;
    keys: string[];
    extra?: string;
  }[],
): string {
  const yymmdd = (iso: string) => iso.slice(2).replace(/-/g, '');
  const amount = (n: number) => cents(Math.abs(n)).replace('.', ',');
  const first = lines[0]!.date;
  const total = lines.reduce((s, l) => s + l.cents, 0);
  const out = [
    ':20:STARTUMSE',
    ':25:12030000/202051',
    ':28C:00001/001',
    `:60F:C${yymmdd(first)}EUR1000000,00`,
  ];
  for (const [n, l] of lines.entries()) {
    const pieces = l.keys.flatMap((key) => key.match(/.{1,27}/g) ?? []);
    const details = pieces.map((chunk, i) => `?${20 + i}${chunk}`).join('');
    out.push(
      `:61:${yymmdd(l.date)}${yymmdd(l.date).slice(2)}${l.cents >= 0 ? 'C' : 'D'}${amount(l.cents)}NDDTNONREF//L${n}`,
      `:86:${l.gvc}?00${l.text}${details}${l.extra ?? ''}`,
    );
  }
  out.push(`:62F:C${yymmdd(first)}EUR${amount(100_000_000 + total)}`, '-');
  return `${out.join('\r\n')}\r\n`;
}

async function stage(text: string, contentType: string): Promise<Body> {
  const file = await uploadStatement(t, user, text, contentType);
  return call<Body>(
    t,
    user,
    'POST',
    '/v1/bank-statement-imports',
    { ...file, periodFrom: '2026-07-01', periodTo: '2026-08-31', autoApprove: true },
    201,
  );
}

async function finalize(imp: Body): Promise<Body> {
  return call<Body>(
    t,
    user,
    'POST',
    `/v1/bank-statement-imports/${String(imp.id)}/finalize`,
    { version: imp.version },
    200,
  );
}

async function discard(imp: Body): Promise<void> {
  const res = await t.request({
    method: 'DELETE',
    url: `/v1/bank-statement-imports/${String(imp.id)}`,
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(204);
}

const payment = (id: string) => call<Body>(t, user, 'GET', `/v1/payments/${id}`);
const document = (id: string) => call<Body>(t, user, 'GET', `/v1/documents/${id}`);
const mandate = (id: string) => call<Body>(t, user, 'GET', `/v1/sepa/mandates/${id}`);
const suggestionsOf = (imp: Body, index = 0) =>
  (imp.transactions as Body[])[index]!.suggestions as Body[];

/** A collection run of invoices (one per partner index, due on the date) and its file. */
async function collect(partnerIndexes: number[], due: string): Promise<{ run: Run; xml: string }> {
  const invoiceIds: string[] = [];
  for (const p of partnerIndexes)
    invoiceIds.push((await finalInvoice<{ id: string }>(t, user, partners[p]!, due)).id);
  return collectionRun(t, user, invoiceIds);
}

/** The file's `PmtInf` blocks: id, sequence type and the EndToEndIds in it. */
function blocks(xml: string): { id: string; seq: string; endToEndIds: string[] }[] {
  return xml
    .split('<PmtInf>')
    .slice(1)
    .map((block) => ({
      id: /<PmtInfId>([^<]+)<\/PmtInfId>/.exec(block)![1]!,
      seq: /<SeqTp>([^<]+)<\/SeqTp>/.exec(block)![1]!,
      endToEndIds: [...block.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1]!),
    }));
}

beforeAll(async () => {
  ({ t, user } = await creditorApp());
  for (const [i, name] of ['Kunde Eins GmbH', 'Kunde Zwei GmbH'].entries()) {
    const partner = (
      await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
        name,
        type: 'CUSTOMER',
        addresses: [billingAddress(`buchhaltung${i}@kunde.example`)],
      })
    ).id;
    partners.push(partner);
    mandates.push(
      (
        await call<{ id: string }>(t, user, 'POST', `/v1/partners/${partner}/mandates`, {
          reference: `M-BATCH-${i}`,
          signedOn: '2026-01-15',
          iban: 'DE89370400440532013000',
          debtorName: name,
        })
      ).id,
    );
  }
});
afterAll(() => t.close());

describe('SEPA batch booking', () => {
  let first: { run: Run; xml: string };
  let frst: Item[];
  let rcur: Item[];

  it('a camt.053 line booking one PmtInf block (Btch/PmtInfId, no TxDtls) settles every item of it, and only those', async () => {
    first = await collect([0, 0, 1, 1], '2026-07-10');
    const [blockFrst, blockRcur] = blocks(first.xml);
    expect([blockFrst?.seq, blockRcur?.seq]).toEqual(['FRST', 'RCUR']);
    frst = first.run.items.filter((i) => i.sequenceType === 'FRST');
    rcur = first.run.items.filter((i) => i.sequenceType === 'RCUR');
    expect(frst).toHaveLength(2);
    expect(blockFrst!.endToEndIds.sort()).toEqual(frst.map((i) => i.endToEndId).sort());

    const staged = await stage(
      camt053(
        [
          batchEntry({
            ref: 'B1',
            amountMinor: sum(frst),
            date: '2026-07-14',
            btch: { pmtInfId: blockFrst!.id, count: 2 },
          }),
        ],
        '2026-07-14',
        '08',
      ),
      'application/xml',
    );
    expect(suggestionsOf(staged)[0]).toMatchObject({
      type: 'SEPA_BATCH',
      id: first.run.id,
      label: blockFrst!.id,
      score: 100,
      code: 'sepa_batch',
    });
    const done = await finalize(staged);
    expect(done.result).toMatchObject({ paymentsCreated: 0, paymentsMarked: 2 });
    for (const item of frst) {
      expect(await payment(item.paymentId)).toMatchObject({ status: 'MARKED' });
      expect(await document(item.invoiceId)).toMatchObject({ paymentStatus: 'PAID' });
    }
    for (const item of rcur) {
      expect(await payment(item.paymentId)).toMatchObject({ status: 'PENDING' });
      expect(await document(item.invoiceId)).toMatchObject({ paymentStatus: 'UNPAID' });
    }
  });

  it('a batch line whose total does not agree is not matched automatically, and says why', async () => {
    const [, blockRcur] = blocks(first.xml);
    const staged = await stage(
      camt053(
        [
          batchEntry({
            ref: 'B2',
            amountMinor: sum(rcur) - 100,
            date: '2026-07-14',
            btch: { pmtInfId: blockRcur!.id },
          }),
        ],
        '2026-07-14',
      ),
      'application/xml',
    );
    const suggestion = suggestionsOf(staged).find((s) => s.type === 'SEPA_BATCH');
    expect(suggestion).toMatchObject({ id: first.run.id, score: 40, code: 'sepa_batch' });
    expect((suggestion!.reasons as string[]).join(' ')).toMatch(
      /differs from the batch total .* of its 2 items not returned/,
    );
    const done = await finalize(staged);
    expect(done.result).toMatchObject({ paymentsCreated: 1, paymentsMarked: 0 });
    for (const item of rcur)
      expect(await payment(item.paymentId)).toMatchObject({ status: 'PENDING' });
  });

  it('a count that does not agree is not matched either', async () => {
    const [, blockRcur] = blocks(first.xml);
    const staged = await stage(
      camt053(
        [
          batchEntry({
            ref: 'B3',
            amountMinor: sum(rcur),
            date: '2026-07-15',
            btch: { pmtInfId: blockRcur!.id, count: 3 },
          }),
        ],
        '2026-07-15',
      ),
      'application/xml',
    );
    const suggestion = suggestionsOf(staged).find((s) => s.type === 'SEPA_BATCH');
    expect(suggestion).toMatchObject({ score: 40 });
    expect((suggestion!.reasons as string[]).join(' ')).toContain(
      'the bank counts 3 transactions, the batch holds 2',
    );
    await discard(staged);
  });

  it('an MT940 Sammler line (GVC 192) naming the PmtInfId in KREF+, in capitals and cut by a subfield, settles the block', async () => {
    const [, blockRcur] = blocks(first.xml);
    const text = mt940([
      {
        cents: sum(rcur),
        date: '2026-07-16',
        gvc: '192',
        text: 'SEPA-LS SAMMLER',
        keys: [`KREF+${blockRcur!.id.toUpperCase()}`, 'SVWZ+SEPA-BASISLASTSCHRIFT 2 POSTEN'],
      },
    ]);
    // The reference runs over two subfields.
    expect(text).toMatch(/\?20KREF\+.{22}\?21/);
    const staged = await stage(text, 'text/plain');
    expect(suggestionsOf(staged)[0]).toMatchObject({
      type: 'SEPA_BATCH',
      label: blockRcur!.id,
      score: 100,
    });
    const done = await finalize(staged);
    expect(done.result).toMatchObject({ paymentsCreated: 0, paymentsMarked: 2 });
    for (const item of rcur) {
      expect(await payment(item.paymentId)).toMatchObject({ status: 'MARKED' });
      expect(await document(item.invoiceId)).toMatchObject({ paymentStatus: 'PAID' });
    }
  });

  it('a camt line booking the whole run by its MsgId settles every item', async () => {
    const { run } = await collect([0, 1], '2026-07-20');
    const staged = await stage(
      camt053(
        [
          batchEntry({
            ref: 'B4',
            amountMinor: sum(run.items),
            date: '2026-07-24',
            btch: { msgId: run.messageId },
          }),
        ],
        '2026-07-24',
      ),
      'application/xml',
    );
    expect(suggestionsOf(staged)[0]).toMatchObject({
      type: 'SEPA_BATCH',
      label: run.messageId,
      score: 100,
    });
    expect((await finalize(staged)).result).toMatchObject({ paymentsMarked: 2 });
    for (const item of run.items)
      expect(await payment(item.paymentId)).toMatchObject({ status: 'MARKED' });
  });

  it('a camt line listing the items by EndToEndId (TxDtls without amounts) settles them', async () => {
    const { run } = await collect([0, 1], '2026-07-27');
    const staged = await stage(
      camt053(
        [
          batchEntry({
            ref: 'B5',
            amountMinor: sum(run.items),
            date: '2026-07-31',
            endToEndIds: run.items.map((i) => i.endToEndId),
          }),
        ],
        '2026-07-31',
      ),
      'application/xml',
    );
    const [suggestion] = suggestionsOf(staged);
    expect(suggestion).toMatchObject({ type: 'SEPA_BATCH', id: run.id, score: 100 });
    expect((suggestion!.reasons as string[])[0]).toContain('the line lists the EndToEndIds');
    expect((await finalize(staged)).result).toMatchObject({ paymentsMarked: 2 });
    for (const item of run.items) {
      expect(await payment(item.paymentId)).toMatchObject({ status: 'MARKED' });
      expect(await document(item.invoiceId)).toMatchObject({ paymentStatus: 'PAID' });
    }
  });
});

describe('MT940 single bookings and returns (DK)', () => {
  let items: Item[];

  it('an EndToEndId filling its subfield with SVWZ+ glued to its last character still matches', async () => {
    const { run } = await collect([0, 1], '2026-08-03');
    items = run.items;
    const lines = items.map((item) => {
      // `EREF+` and 22 of the 23 characters fill ?20; ?21 holds the last one and SVWZ+ at once.
      const e2e = item.endToEndId;
      return {
        cents: minor(item),
        date: '2026-08-07',
        gvc: '171',
        text: 'SEPA-BASISLASTSCHRIFT',
        keys: [],
        extra: `?20EREF+${e2e.slice(0, 22)}?21${e2e.slice(22)}SVWZ+Rechnung vom 03.08.2026?22MREF+M-BATCH`,
      };
    });
    const staged = await stage(mt940(lines), 'text/plain');
    const line = (staged.transactions as Body[])[0]!;
    expect(line).toMatchObject({
      endToEndId: items[0]!.endToEndId,
      purpose: 'Rechnung vom 03.08.2026',
      mandateReference: 'M-BATCH',
    });
    expect(suggestionsOf(staged)[0]).toMatchObject({ code: 'end_to_end_id', score: 100 });
    expect((await finalize(staged)).result).toMatchObject({ paymentsMarked: 2 });
  });

  const returnLine = (item: Item, textKey: string, svwz: string) => ({
    cents: -minor(item),
    date: '2026-08-12',
    gvc: '109',
    text: 'SEPA-DD SOLL RUECKBEL. CORE',
    keys: [`EREF+${item.endToEndId}`, `SVWZ+${svwz}`],
    extra: `?30COBADEFFXXX?31DE89370400440532013000?32Kunde?34${textKey}`,
  });

  it('?34 912 (MD06) and an unknown ?34 return the payments; neither revokes the mandate', async () => {
    const staged = await stage(
      mt940([
        returnLine(items[0]!, '912', 'ORG BT 1190,00 RUECKGABE'),
        returnLine(items[1]!, '999', 'ORG BT 1190,00 RUECKGABE SONSTIGES'),
      ]),
      'text/plain',
    );
    const lines = staged.transactions as Body[];
    expect(lines.map((l) => l.returnReason)).toEqual(['MD06', '999']);
    expect(suggestionsOf(staged, 0)[0]).toMatchObject({ type: 'SEPA_RETURN', score: 100 });
    await finalize(staged);
    const known = await payment(items[0]!.paymentId);
    expect(known).toMatchObject({ status: 'RETURNED' });
    expect(String(known.failureReason)).toContain('(reason MD06)');
    const unknown = await payment(items[1]!.paymentId);
    expect(unknown).toMatchObject({ status: 'RETURNED' });
    expect(String(unknown.failureReason)).toContain('bank return code 999');
    expect(String(unknown.failureReason)).toContain('RUECKGABE SONSTIGES');
    expect(await document(items[1]!.invoiceId)).toMatchObject({ paymentStatus: 'UNPAID' });
    for (const id of mandates) expect((await mandate(id)).revokedAt).toBeNull();
  });

  it('?34 902 (AC04) and ?34 910 (MD01) revoke the mandates, with no ISO code in the text', async () => {
    const { run } = await collect([0, 1], '2026-08-17');
    const lines = run.items.map((item, n) => ({
      cents: minor(item),
      date: '2026-08-21',
      gvc: '171',
      text: 'SEPA-BASISLASTSCHRIFT',
      keys: [`EREF+${item.endToEndId}`, `SVWZ+Rechnung ${n}`],
    }));
    await finalize(await stage(mt940(lines), 'text/plain'));
    const staged = await stage(
      mt940([
        { ...returnLine(run.items[0]!, '902', 'ORG BT RUECKGABE'), date: '2026-08-25' },
        { ...returnLine(run.items[1]!, '910', 'ORG BT RUECKGABE'), date: '2026-08-25' },
      ]),
      'text/plain',
    );
    expect((staged.transactions as Body[]).map((l) => l.returnReason)).toEqual(['AC04', 'MD01']);
    await finalize(staged);
    for (const item of run.items)
      expect(await payment(item.paymentId)).toMatchObject({ status: 'RETURNED' });
    for (const id of mandates) {
      const m = await mandate(id);
      expect(m.revokedAt).not.toBeNull();
      expect(m.active).toBe(false);
    }
  });
});
