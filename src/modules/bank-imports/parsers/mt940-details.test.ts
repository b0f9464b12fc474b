import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DK_RETURN_REASONS,
  joinSepaPieces,
  parseEntryDetails,
  returnReasonOf,
  splitSepaPurpose,
} from './mt940-details.js';
import { parseMt940 } from './mt940.js';

/** The `:86:` of one line, as `parseEntryDetails` gets it from the field reader. */
const details = (field: string) => parseEntryDetails([field], field.length + 4);

const E2E = 'KTRABCDEFGHJKMNPQRSTVWX'; // 23 characters, as Kontor writes them

describe('MT940 :86: SEPA keys across subfields (DK: each key starts a subfield)', () => {
  // [name, :86: content, purpose, EndToEndId, mandate reference]
  const cases: [string, string, string, string | null, string | null][] = [
    [
      'SVWZ+ as the first token',
      '105?00SEPA-BASISLASTSCHRIFT?20SVWZ+Rechnung 4711?21EREF+KTR1?22MREF+M-1',
      'Rechnung 4711',
      'KTR1',
      'M-1',
    ],
    [
      'SVWZ+ text running over three subfields',
      '166?00GUTSCHRIFT?20SVWZ+Rechnung 4711 vom 01.0?217.2026 Kundennr 12345?22 Danke',
      'Rechnung 4711 vom 01.07.2026 Kundennr 12345 Danke',
      null,
      null,
    ],
    [
      'a filled EREF subfield followed by SVWZ+ in the next',
      `166?00GUTSCHRIFT?20EREF+${E2E.slice(0, 22)}?21SVWZ+Rechnung 4711`,
      'Rechnung 4711',
      E2E.slice(0, 22),
      null,
    ],
    [
      'the last character of the EndToEndId and SVWZ+ in one subfield',
      `166?00GUTSCHRIFT?20EREF+${E2E.slice(0, 22)}?21${E2E.slice(22)}SVWZ+Rechnung 4711`,
      'Rechnung 4711',
      E2E,
      null,
    ],
    [
      'a filled SVWZ subfield ending in a letter, EREF+ in the next',
      `166?00GUTSCHRIFT?20SVWZ+Rechnung 4711 Kunde AB?21EREF+${E2E}`,
      'Rechnung 4711 Kunde AB',
      E2E,
      null,
    ],
    [
      'SVWZ cut by a short subfield (SV | WZ+)',
      '166?00GUTSCHRIFT?20EREF+KTR1?21SV?22WZ+Rechnung 4711',
      'Rechnung 4711',
      'KTR1',
      null,
    ],
    [
      'SVWZ cut by a filled subfield',
      '166?00GUTSCHRIFT?20EREF+KTRABCDEFGHJKMNPQRST SV?21WZ+Rechnung 4711',
      'Rechnung 4711',
      'KTRABCDEFGHJKMNPQRST',
      null,
    ],
    [
      'EREF cut by a subfield (ER | EF+)',
      '166?00GUTSCHRIFT?20SVWZ+Rechnung 4711?21ER?22EF+KTR1',
      'Rechnung 4711',
      'KTR1',
      null,
    ],
    [
      'the + of SVWZ+ in the next subfield',
      '166?00GUTSCHRIFT?20EREF+KTR1?21SVWZ?22+Rechnung 4711',
      'Rechnung 4711',
      'KTR1',
      null,
    ],
    [
      'the whole line in one subfield, keys glued together',
      `166?00GUTSCHRIFT?20EREF+${E2E}SVWZ+Rechnung 4711`,
      'Rechnung 4711',
      E2E,
      null,
    ],
  ];
  for (const [name, field, purpose, endToEndId, mandate] of cases)
    it(name, () => {
      expect(details(field)).toMatchObject({
        purpose,
        endToEndId,
        mandateReference: mandate,
      });
    });

  it('keeps free text with a + that is no key whole', () => {
    expect(details('166?00GUTSCHRIFT?20Rechnung 1+2 ABC+DEF')).toMatchObject({
      purpose: 'Rechnung 1+2 ABC+DEF',
      endToEndId: null,
    });
  });

  it('ends an overlong EREF at the subfield the bank did not fill; the rest stays text', () => {
    const parsed = splitSepaPurpose(
      joinSepaPieces(['EREF+TFNR 40005 00005', 'MTLG:Grund nicht spezifizie', 'rt']),
    );
    expect(parsed.endToEndId).toBe('TFNR 40005 00005');
    expect(parsed.purpose).toBe('EREF+TFNR 40005 00005 MTLG:Grund nicht spezifiziert');
    // With a SVWZ+ the rest joins the remittance text.
    expect(
      splitSepaPurpose(joinSepaPieces(['EREF+TFNR 1', 'Mitteilung der Bank', 'SVWZ+Rechnung 7']))
        .purpose,
    ).toBe('Rechnung 7');
  });

  it('keeps an EREF of up to 35 characters that runs over a subfield the bank did not fill', () => {
    expect(
      splitSepaPurpose(joinSepaPieces(['EREF+EndToEndId TFNR 22 001', ' 00001'])).endToEndId,
    ).toBe('EndToEndId TFNR 22 001 00001');
  });

  it('reads the KREF+ customer reference', () => {
    expect(splitSepaPurpose('KREF+PAYID-42 SVWZ+Sammler').customerReference).toBe('PAYID-42');
  });
});

describe('MT940 returns: ?34 Textschlüsselergänzung (DK) to ISO reason codes', () => {
  const ret = (textKey: string, svwz = 'RUECKGABE') =>
    details(`109?00SEPA-DD SOLL RUECKBEL. CORE?20EREF+KTR1?21SVWZ+${svwz}?32Kunde?34${textKey}`)
      .returnReason;

  it('maps the DK codes, mandate-ending ones included', () => {
    expect(ret('901')).toBe('AC01');
    expect(ret('902')).toBe('AC04');
    expect(ret('903')).toBe('AC06');
    expect(ret('906')).toBe('AM04');
    expect(ret('910')).toBe('MD01');
    expect(ret('912')).toBe('MD06');
    expect(ret('913')).toBe('MD07');
    expect(ret('914')).toBe('MS02');
    expect(ret('921')).toBe('SL01');
    expect(Object.keys(DK_RETURN_REASONS)).toHaveLength(21);
  });

  it('takes an ISO code from the text when ?34 names none, and keeps an unknown bank code', () => {
    expect(ret('', 'RUECKGABEGRUND MD07 KONTOINHABER VERSTORBEN')).toBe('MD07');
    expect(returnReasonOf(null, 'RTRN+AC04 Konto erloschen')).toBe('AC04');
    expect(ret('999', 'RUECKGABE')).toBe('999');
    expect(ret('', 'RUECKGABE')).toBeNull();
  });

  it('reads no return reason on lines that are no return, whatever ?34 says', () => {
    expect(details('105?00SEPA-BASISLASTSCHRIFT?20EREF+KTR1?34997').returnReason).toBeUndefined();
  });
});

describe('MT940 batch bookings (Sammler)', () => {
  it('marks a Sammler GVC with its KREF+ reference', () => {
    const parsed = details(
      '192?00SEPA-LS SAMMLER?20KREF+SEP-01JD8X00000000000-?21RCUR-20260716?22SVWZ+2 POSTEN',
    );
    expect(parsed.batch).toEqual({
      references: ['SEP-01JD8X00000000000-RCUR-20260716'],
      count: null,
      endToEndIds: [],
    });
  });

  it('marks SAMMLER in the text or a KREF+ without EREF+, and no single booking', () => {
    expect(details('079?00SAMMLER?200904059001').batch?.references).toEqual(['0904059001']);
    expect(details('166?00GUTSCHRIFT?20KREF+FILE-2026-07?21SVWZ+Sammler').batch).toBeDefined();
    expect(details('166?00GUTSCHRIFT?20EREF+KTR1?21KREF+FILE-2026-07').batch).toBeUndefined();
    expect(details('166?00GUTSCHRIFT?20EREF+KTR1?21SVWZ+Rechnung 20260716').batch).toBeUndefined();
  });
});

/** Real statements written by others (`../shared/testdata`, see its README). */
const REAL = resolve(process.cwd(), '../shared/testdata/mt940');
const haveReal = existsSync(REAL);
if (!haveReal) {
  if (process.env.CI === 'true') throw new Error(`CI=true but ${REAL} is missing`);
  process.stderr.write(`MT940 real-statement tests skipped: ${REAL} is missing\n`);
}

describe.skipIf(!haveReal)('MT940 SEPA details on real statements (../shared/testdata)', () => {
  const entries = (file: string) =>
    parseMt940(readFileSync(resolve(REAL, file))).statements.flatMap((s) => s.entries);

  it('betterplace: returns with ?34, EREFs no longer swallowing the text, Sammler lines', () => {
    const all = entries('wolph-mt940/betterplace/sepa_mt9401.sta');
    const returns = all.filter((e) => e.returnReason !== undefined);
    expect(returns.length).toBeGreaterThan(10);
    expect(new Set(returns.map((e) => e.returnReason))).toEqual(new Set(['MS02', 'AC06', 'AC01']));
    expect(returns[0]).toMatchObject({ endToEndId: 'TFNR 40005 00005', returnReason: 'MS02' });
    expect(returns.every((e) => (e.endToEndId ?? '').length <= 35)).toBe(true);
    const credit = all.find((e) => e.endToEndId === 'EndToEndIdTFNR2000400001');
    expect(credit?.purpose).toMatch(/^TO 13 TFNr 20004 Eingangskanal/);
    const sammler = all.filter((e) => e.batch !== undefined);
    expect(sammler.map((e) => e.bookingText)).toEqual(
      expect.arrayContaining(['SAMMLER', 'SEPA-UEBERW']),
    );
    expect(sammler.find((e) => e.bookingText === 'SEPA-UEBERW')?.batch?.references[0]).toBe(
      'TFNr 01005 PayId CTSc-01 EBB',
    );
  });

  it('a tax office debit: an EREF running into the ?60 text ends at the last word that fits', () => {
    const [entry] = entries('wolph-mt940/self-provided/details_60-63.sta');
    expect(entry?.endToEndId).toBe('123/123/12345-----L110000000012345');
  });

  it('sparkasse: ?34 on lines that are no returns sets no return reason', () => {
    const all = entries('jejik-mt940/sparkasse.txt');
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((e) => e.returnReason === undefined)).toBe(true);
  });

  it('every real SVWZ+ is read as the purpose (no SEPA key left in it)', () => {
    for (const file of [
      'jejik-mt940/sparkasse.txt',
      'jejik-mt940/commerzbank.txt',
      'jejik-mt940/deutschebank.txt',
      'jejik-mt940/volksbankenraiffeisenbanken.txt',
      'jejik-mt940/lbbw.txt',
    ])
      for (const entry of entries(file))
        expect(entry.purpose, `${file}: ${entry.purpose}`).not.toMatch(/\b(EREF|SVWZ|MREF)\+/);
  });
});
