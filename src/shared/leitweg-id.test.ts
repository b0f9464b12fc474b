import { describe, expect, it } from 'vitest';
import { leitwegIdProblem, looksLikeLeitwegId } from './leitweg-id.js';

describe('Leitweg-IDs', () => {
  it.each(['04011000-12345-03', '991-33333TEST-33', '991-33333test-33', '04011000-1234512345-06'])(
    'accepts %s',
    (id) => {
      expect(leitwegIdProblem(id)).toBeUndefined();
    },
  );

  it.each([
    ['04011000-12345-04', 'has wrong check digits'],
    ['991-33333TEST-34', 'has wrong check digits'],
    ['04011000-12345-3', 'must be a Leitweg-ID'],
    ['1-12345-03', 'must be a Leitweg-ID'],
    ['0401100012345-12345-03', 'must be a Leitweg-ID'],
    ['04011000-' + 'A'.repeat(31) + '-03', 'must be a Leitweg-ID'],
    ['04011000-12_45-03', 'must be a Leitweg-ID'],
  ])('refuses %s', (id, problem) => {
    expect(leitwegIdProblem(id)).toMatch(new RegExp(`^${problem}`));
  });

  it('tells Leitweg-IDs from other buyer references by their start', () => {
    expect(looksLikeLeitwegId('04011000-12345-03')).toBe(true);
    expect(looksLikeLeitwegId('991-x')).toBe(true);
    expect(looksLikeLeitwegId('PO-4711')).toBe(false);
    expect(looksLikeLeitwegId('2026-0001')).toBe(true);
    expect(looksLikeLeitwegId('4711')).toBe(false);
  });
});
