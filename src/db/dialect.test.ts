import { describe, expect, it } from 'vitest';
import { isStorageFull, isUnavailable, isUniqueViolation } from './dialect.js';

const coded = (code: string, message = 'driver error') =>
  Object.assign(new Error(message), { code });

/** Which driver errors become 503 (and so never a 500): by SQLSTATE or code, else by pg's text. */
describe('isUnavailable', () => {
  it('covers lost connections, shutdowns, deadlocks, serialization failures and busy SQLite', () => {
    for (const code of [
      '08006',
      '57P01',
      '53300',
      '40001',
      '40P01',
      '55P03',
      'ECONNRESET',
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
    ])
      expect(isUnavailable(coded(code)), code).toBe(true);
  });

  it('covers the pg client’s own code-less errors of a connection that is gone', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Client has encountered a connection error and is not queryable',
      'timeout exceeded when trying to connect',
    ])
      expect(isUnavailable(new Error(message)), message).toBe(true);
  });

  it('leaves constraint, data and unknown errors alone', () => {
    for (const err of [
      coded('23505'),
      coded('22P02'),
      coded('42P01'),
      new Error('boom'),
      'x',
      null,
    ])
      expect(isUnavailable(err)).toBe(false);
    expect(isUniqueViolation(coded('23505'))).toBe(true);
    expect(isStorageFull(coded('53100'))).toBe(true);
  });
});
