import { describe, expect, it } from 'vitest';
import { isSepaText, isValidSepaId, sepaId, sepaText } from './text.js';

describe('sepaText', () => {
  it('spells out umlauts and ß and turns & into + (the EPC/DK convention)', () => {
    expect(sepaText('Jürgen Größer & Söhne', 70)).toBe('Juergen Groesser + Soehne');
    expect(sepaText('Björk Ängström', 70)).toBe('Bjoerk Aengstroem');
    expect(sepaText('ÄÖÜ äöü ß ẞ', 70)).toBe('AeOeUe aeoeue ss SS');
    expect(sepaText('Gebühr §12 (50%)', 70)).toBe('Gebuehr Par. 12 (50 Prozent)');
  });

  it('handles decomposed umlauts like precomposed ones', () => {
    expect(sepaText('Mu\u0308ller', 70)).toBe('Mueller');
  });

  it('drops accents and maps letters NFD does not decompose', () => {
    expect(sepaText('Café Zoë, Ñandú, Łódź, Ørsted, Æbeltoft, Œuvre, Þór', 70)).toBe(
      'Cafe Zoe, Nandu, Lodz, Orsted, AEbeltoft, OEuvre, Thor',
    );
  });

  it('maps quotes, dashes, brackets and symbols into the set', () => {
    expect(sepaText('„Zitat“ – ‚x‘ "y" <a> [b] {c} 5 € @ x_y; ok!', 100)).toBe(
      "'Zitat' - 'x' 'y' (a) (b) (c) 5 EUR (at) x-y, ok.",
    );
  });

  it('turns the unrepresentable into spaces, collapses and trims', () => {
    expect(sepaText('  a\tb\n\nc  日本 😀 d ', 70)).toBe('a b c d');
    expect(sepaText('日本語', 70)).toBe('');
  });

  it('cuts to the maximum after transliteration and trims the cut', () => {
    expect(sepaText('ü'.repeat(10), 5)).toBe('ueueu');
    expect(sepaText('abc def', 4)).toBe('abc');
    expect(sepaText('x'.repeat(200), 140)).toHaveLength(140);
  });

  it('leaves text already in the set alone', () => {
    const all = "abcxyzABCXYZ0189/-?:().,'+ end";
    expect(sepaText(all, 140)).toBe(all);
    expect(isSepaText(all)).toBe(true);
  });

  it('only ever answers text of the basic set', () => {
    let every = '';
    for (let c = 0; c < 0x3000; c++) every += String.fromCharCode(c);
    const out = sepaText(every, 100_000);
    expect(isSepaText(out)).toBe(true);
    expect(out.length).toBeGreaterThan(100);
  });
});

describe('isValidSepaId', () => {
  it('accepts 1-35 characters of the set', () => {
    expect(isValidSepaId('A')).toBe(true);
    expect(isValidSepaId('x'.repeat(35))).toBe(true);
    expect(isValidSepaId("RE-2026/0815:(a).,'+?")).toBe(true);
  });

  it('refuses empty, too long, outside the set, spaces and the EPC slash rules', () => {
    expect(isValidSepaId('')).toBe(false);
    expect(isValidSepaId('x'.repeat(36))).toBe(false);
    expect(isValidSepaId('RE_1')).toBe(false);
    expect(isValidSepaId('Rechnung Ü')).toBe(false);
    expect(isValidSepaId('RE 1')).toBe(false);
    expect(isValidSepaId('/RE-1')).toBe(false);
    expect(isValidSepaId('RE-1/')).toBe(false);
    expect(isValidSepaId('RE//1')).toBe(false);
  });
});

describe('sepaId', () => {
  it('joins parts with - and makes them valid', () => {
    expect(sepaId(['Kontor', 'DD', 20261128, 1])).toBe('Kontor-DD-20261128-1');
    expect(sepaId(['Rechnung Nr. 1', 'Müller'])).toBe('Rechnung-Nr.-1-Mueller');
    expect(sepaId(['//a//b//', 'c_d'])).toBe('a/b-c-d');
  });

  it('cuts to 35 from the start or keeps the end', () => {
    const long = ['A'.repeat(30), 'tail-42'];
    expect(sepaId(long)).toBe('A'.repeat(30) + '-tail');
    expect(sepaId(long, 'end')).toBe('A'.repeat(27) + '-tail-42');
    expect(isValidSepaId(sepaId(['x'.repeat(34) + '/y']))).toBe(true);
  });

  it('throws when nothing usable is left', () => {
    expect(() => sepaId(['日本', '//'])).toThrow(RangeError);
  });
});
