import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { isIsoDate, formatDate } from './dates.js';
import { newId } from './ids.js';
import { CURRENCIES, formatMoney, majorOf, toMajor, toMinor } from './money.js';
import { newSecret, seal, unseal, deriveKey } from './secrets.js';
import { unitCodeOf, unitName } from './units.js';

describe('money', () => {
  it('converts major units to minor units exactly, refusing extra decimals', () => {
    expect(toMinor(12.34, 'EUR')).toBe(1234);
    expect(toMinor(0.3, 'EUR')).toBe(30);
    expect(toMinor(1234567.89, 'EUR')).toBe(123456789);
    expect(toMinor(-5.5, 'EUR')).toBe(-550);
    expect(toMinor(12.345, 'EUR')).toBeUndefined();
    expect(toMinor(100, 'JPY')).toBe(100);
    expect(toMinor(1.5, 'JPY')).toBeUndefined();
    expect(toMinor(1.234, 'KWD')).toBe(1234);
    expect(toMinor(1e-7, 'EUR')).toBeUndefined();
    expect(toMinor(Number.NaN, 'EUR')).toBeUndefined();
  });

  it('converts back without floating-point drift', () => {
    expect(toMajor(1234, 'EUR')).toBe(12.34);
    expect(toMajor(5, 'EUR')).toBe(0.05);
    expect(toMajor(-550, 'EUR')).toBe(-5.5);
    expect(toMajor(1234, 'KWD')).toBe(1.234);
    expect(toMajor(100, 'JPY')).toBe(100);
    for (let minor = -1000; minor <= 1000; minor += 7)
      expect(toMinor(toMajor(minor, 'EUR'), 'EUR')).toBe(minor);
  });

  it('gives the number its decimal text reads as, for every safe amount and currency', () => {
    // The reference: the amount written out in decimal and parsed.
    const parsed = (minor: number, digits: number) => {
      const abs = Math.abs(minor)
        .toString()
        .padStart(digits + 1, '0');
      const text = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
      return Number(`${minor < 0 ? '-' : ''}${text}`);
    };
    const currencies = { JPY: 0, EUR: 2, KWD: 3 } as const;
    fc.assert(
      fc.property(
        fc.maxSafeInteger(),
        fc.constantFrom(...(Object.keys(currencies) as (keyof typeof currencies)[])),
        (minor, currency) => {
          expect(toMajor(minor, currency)).toBe(parsed(minor, currencies[currency]));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('converts many amounts of one currency as toMajor does each, from numbers and from text', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.constantFrom(...CURRENCIES), (minor, currency) => {
        const major = majorOf(currency);
        expect(major(minor)).toBe(toMajor(minor, currency));
        // A bigint column read as text (PostgreSQL) converts the same.
        expect(major(String(minor))).toBe(toMajor(minor, currency));
      }),
      { numRuns: 20_000 },
    );
    expect(Object.is(majorOf('EUR')(-0), 0)).toBe(true);
    expect(() => majorOf('XXX')).toThrow(RangeError);
  });

  it('formats amounts in both number formats', () => {
    expect(formatMoney(123456789, 'EUR', '1.234,56')).toBe('1.234.567,89 EUR');
    expect(formatMoney(123456789, 'EUR', '1,234.56')).toBe('1,234,567.89 EUR');
    expect(formatMoney(5, 'EUR', '1.234,56')).toBe('0,05 EUR');
    expect(formatMoney(-100000, 'GBP', '1,234.56')).toBe('-1,000.00 GBP');
    expect(formatMoney(1234, 'JPY', '1.234,56')).toBe('1.234 JPY');
    expect(formatMoney(1234, 'KWD', '1.234,56')).toBe('1,234 KWD');
  });
});

describe('ids', () => {
  it('are type-prefixed ULIDs that sort by creation', () => {
    const ids = Array.from({ length: 1000 }, () => newId('partner'));
    for (const id of ids) expect(id).toMatch(/^ptr_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('dates', () => {
  it('accepts only real calendar dates', () => {
    expect(isIsoDate('2026-02-28')).toBe(true);
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2026-02-29')).toBe(false);
    expect(isIsoDate('2026-13-01')).toBe(false);
    expect(isIsoDate('21.11.2026')).toBe(false);
    expect(formatDate('2026-11-21', 'DD.MM.YYYY')).toBe('21.11.2026');
    expect(formatDate('2026-11-21', 'DD/MM/YYYY')).toBe('21/11/2026');
  });
});

describe('secrets', () => {
  it('makes prefixed secrets and seals values tamper-evidently', () => {
    const s = newSecret('kpat');
    expect(s.secret).toMatch(/^kpat_[0-9A-Za-z]{40}$/);
    expect(s.hash).toHaveLength(64);
    const key = deriveKey('x'.repeat(40), 'test');
    const sealed = seal(key, 'hello');
    expect(sealed).not.toContain('hello');
    expect(unseal(key, sealed)).toBe('hello');
    const [iv, tag, data] = sealed.split('.');
    expect(() => unseal(key, [iv, tag, `${data}A`].join('.'))).toThrow();
    expect(() => unseal(deriveKey('y'.repeat(40), 'test'), sealed)).toThrow();
  });
});

describe('config', () => {
  it('uses embedded defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      embedded: true,
      rateLimits: 'on',
      logLevel: 'info',
    });
    expect(c.database).toMatchObject({ kind: 'sqlite' });
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it.each([
    [{ PORT: '70000' }, /PORT must be between 0 and 65535/],
    [{ PORT: 'abc' }, /PORT must be a whole number/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must start with/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL must use one of redis:, rediss:/],
    [{ SMTP_URL: 'not a url' }, /SMTP_URL is not a valid URL/],
    [{ APP_SECRET: 'short' }, /APP_SECRET must be at least 32 characters/],
    [{ API_KEYS: 'short' }, /API_KEYS entries must be at least 20 characters/],
    [{ RATE_LIMITS: 'maybe' }, /RATE_LIMITS must be one of on, off/],
    [{ TRUST_PROXY: '11' }, /TRUST_PROXY must be at most 10 hops/],
    [{ TRUST_PROXY: '10.0.0.5,10.0.0.300' }, /TRUST_PROXY .*"10\.0\.0\.300" is none of these/],
    [{ TRUST_PROXY: '10.1.0.0/33' }, /TRUST_PROXY .*"10\.1\.0\.0\/33" is none of these/],
    [{ TRUST_PROXY: 'yes' }, /TRUST_PROXY must be false, a number of hops, or comma-separated/],
  ])('refuses %o with a message naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each(['true', 'TRUE', ' true '])(
    'refuses TRUST_PROXY=%j, saying what to set instead',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY must not be true: .*any client could choose .*TRUST_PROXY=1.*TRUST_PROXY=10\.0\.0\.5,10\.1\.0\.0\/16/,
      );
    },
  );

  it.each([
    [{}, false],
    [{ TRUST_PROXY: 'false' }, false],
    [{ TRUST_PROXY: '0' }, false],
    [{ TRUST_PROXY: '2' }, 2],
    [
      { TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,fd00::/8,loopback' },
      ['10.0.0.5', '10.1.0.0/16', 'fd00::/8', 'loopback'],
    ],
  ])('reads TRUST_PROXY %o as %o', (env, trustProxy) => {
    expect(loadConfig(env).trustProxy).toEqual(trustProxy);
  });

  it('selects PostgreSQL from DATABASE_URL', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h/db' });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(c.embedded).toBe(false);
  });
});

describe('units of quantity', () => {
  it.each([
    ['HUR', 'HUR'],
    ['hur', 'HUR'],
    [' Std. ', 'HUR'],
    ['Stunde', 'HUR'],
    ['hours', 'HUR'],
    ['Stück', 'H87'],
    ['Stk.', 'H87'],
    ['kg', 'KGM'],
    ['Tage', 'DAY'],
    ['Monat', 'MON'],
    ['pauschal', 'LS'],
    ['m²', 'MTK'],
    ['C62', 'C62'],
    ['E48', 'E48'],
  ])('reads the product unit %j as %s', (unit, code) => {
    expect(unitCodeOf(unit)).toBe(code);
  });

  it.each([null, undefined, '', 'Lizenz', 'e48', 'ABCD'])('reads %j as no code', (unit) => {
    expect(unitCodeOf(unit)).toBeUndefined();
  });

  it('prints units in words, by language and quantity', () => {
    expect(unitName('HUR', 2, 'de')).toBe('Std.');
    expect(unitName('HUR', 1, 'en')).toBe('hour');
    expect(unitName('HUR', 2, 'en')).toBe('hours');
    expect(unitName('C62', 3, 'de')).toBe('Stk.');
    expect(unitName('DAY', 1, 'de')).toBe('Tag');
    expect(unitName('MON', 2, 'de')).toBe('Monate');
    expect(unitName('LS', 1, 'de')).toBe('pauschal');
    expect(unitName('KGM', 1, 'en')).toBe('kg');
    expect(unitName('E48', 1, 'de')).toBe('E48');
    expect(unitName(null, 1, 'de')).toBe('');
  });
});
