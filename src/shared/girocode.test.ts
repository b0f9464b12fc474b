import { createCanvas, loadImage } from '@napi-rs/canvas';
import jsqr from 'jsqr';
import { describe, expect, it } from 'vitest';
import { giroCodeDataUri, giroCodePayload, type GiroCodeInput } from './girocode.js';

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module.
const jsQR = jsqr.default;

const sample: GiroCodeInput = {
  bic: 'BYLADEM1001',
  name: 'Müller & Söhne GmbH',
  iban: 'DE02 1203 0000 0000 2020 51',
  amountMinor: 38_375,
  currency: 'EUR',
  reference: 'RE-2025-0042',
};

const payload = (overrides: Partial<GiroCodeInput>) => giroCodePayload({ ...sample, ...overrides });

/** Pixels of a PNG data URI, as jsQR takes them. */
async function pixels(dataUri: string) {
  const png = Buffer.from(dataUri.replace(/^data:image\/png;base64,/, ''), 'base64');
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { data } = ctx.getImageData(0, 0, image.width, image.height);
  return { data: new Uint8ClampedArray(data), width: image.width, height: image.height };
}

describe('giroCodePayload', () => {
  it('writes the EPC069-12 version 002 lines', () => {
    expect(giroCodePayload(sample).split('\n')).toEqual([
      'BCD',
      '002',
      '1',
      'SCT',
      'BYLADEM1001',
      'Müller & Söhne GmbH',
      'DE02120300000000202051',
      'EUR383.75',
      '',
      '',
      'RE-2025-0042',
    ]);
  });

  it('leaves the BIC line empty when there is none, and drops empty trailing fields', () => {
    const { bic: _bic, ...withoutBic } = sample;
    expect(giroCodePayload(withoutBic).split('\n')[4]).toBe('');
    expect(payload({ bic: ' byladem1 ' }).split('\n')[4]).toBe('BYLADEM1');
    expect(payload({ reference: '' }).split('\n')).toHaveLength(8);
    expect(payload({ reference: '' }).endsWith('EUR383.75')).toBe(true);
  });

  it('formats amounts from integer cents without floating point', () => {
    const amount = (amountMinor: number) => payload({ amountMinor }).split('\n')[7];
    expect(amount(1)).toBe('EUR0.01');
    expect(amount(5)).toBe('EUR0.05');
    expect(amount(100)).toBe('EUR1.00');
    expect(amount(99_999_999_999)).toBe('EUR999999999.99');
  });

  it('refuses amounts, currencies, IBANs and BICs outside the standard', () => {
    for (const amountMinor of [0, -1, 1.5, 100_000_000_000, Number.NaN])
      expect(() => payload({ amountMinor })).toThrow(RangeError);
    expect(() => payload({ currency: 'CHF' })).toThrow(RangeError);
    expect(() => payload({ iban: 'DE02120300000000202052' })).toThrow(/check sum/);
    expect(() => payload({ bic: 'BYLADEM' })).toThrow(RangeError);
    expect(() => payload({ bic: 'BYLADEM1001X' })).toThrow(RangeError);
  });

  it('counts the name (70) and the reference (140) in characters', () => {
    expect(payload({ name: 'ä'.repeat(70) })).toContain('ä'.repeat(70));
    expect(() => payload({ name: 'a'.repeat(71) })).toThrow(/at most 70/);
    expect(() => payload({ name: '  ' })).toThrow(/required/);
    expect(payload({ reference: 'r'.repeat(140) })).toContain('r'.repeat(140));
    expect(() => payload({ reference: 'r'.repeat(141) })).toThrow(/at most 140/);
  });

  it('refuses line breaks, which would shift the following fields', () => {
    expect(() => payload({ name: 'Müller\nSöhne' })).toThrow(RangeError);
    expect(() => payload({ reference: 'RE-1\r\nRE-2' })).toThrow(RangeError);
  });

  it('accepts the longest ASCII payload and refuses one over 331 bytes', () => {
    const longest = payload({
      name: 'n'.repeat(70),
      reference: 'r'.repeat(140),
      amountMinor: 99_999_999_999,
      iban: 'MT84MALT011000012345MTLCAST001S',
    });
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(331);
    // Multi-byte UTF-8 within the character limits still overflows the QR code's capacity.
    expect(() => payload({ name: 'ä'.repeat(70), reference: 'ä'.repeat(140) })).toThrow(
      /bytes; at most 331/,
    );
  });
});

describe('giroCodeDataUri', () => {
  it('draws a QR code that decodes to exactly the payload, at error correction M', async () => {
    for (const text of [
      giroCodePayload(sample),
      payload({
        name: 'n'.repeat(70),
        reference: 'r'.repeat(140),
        iban: 'MT84MALT011000012345MTLCAST001S',
      }),
    ]) {
      const uri = await giroCodeDataUri(text);
      expect(uri).toMatch(/^data:image\/png;base64,/);
      const image = await pixels(uri);
      const code = jsQR(image.data, image.width, image.height);
      expect(code?.data).toBe(text);
      expect(Buffer.from(code?.binaryData ?? []).equals(Buffer.from(text))).toBe(true);
      // EPC069-12 allows QR versions up to 13.
      expect(code?.version).toBeLessThanOrEqual(13);
      // The error correction level sits in the format information: its first two bits,
      // masked with 10, are module (row 8, column 0) and (8, 1). M is 00: dark, light.
      // Modules are 8 px behind a 4-module quiet zone.
      const dark = (row: number, column: number) =>
        image.data[4 * (((4 + row) * 8 + 4) * image.width + (4 + column) * 8 + 4)]! < 128;
      expect([dark(8, 0), dark(8, 1)]).toEqual([true, false]);
    }
  });

  it('refuses a payload over 331 bytes', async () => {
    await expect(giroCodeDataUri('x'.repeat(332))).rejects.toThrow(RangeError);
  });
});
