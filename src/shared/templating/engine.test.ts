import { describe, expect, it } from 'vitest';
import { contextVariables, parseSource } from './engine.js';

describe('parseSource', () => {
  it('parses a source once and serves its renders from the bounded cache', () => {
    const source = '<p>{{ partner.name }} {{ fields.betrag | money }}</p>';
    const first = parseSource(source).templates!;
    expect(parseSource(source).templates).toBe(first);
    expect(contextVariables(first)).toBe(contextVariables(first));
    expect(contextVariables(first).map((v) => v.segments[0])).toEqual(['partner', 'fields']);
    // 256 other sources push it out: it is parsed anew.
    for (let i = 0; i < 256; i++) parseSource(`<p>{{ n${i} }}</p>`);
    const again = parseSource(source).templates!;
    expect(again).not.toBe(first);
    expect(parseSource(source).templates).toBe(again);
  });

  it('keeps no source longer than 64 KiB', () => {
    const long = `<p>{{ partner.name }}</p>${' '.repeat(70_000)}`;
    expect(parseSource(long).templates).not.toBe(parseSource(long).templates);
  });

  it('keeps no failed parse: a broken source answers its problem every time', () => {
    const broken = '<p>{% if x %}</p>';
    expect(parseSource(broken).problem?.code).toBe('syntax_error');
    expect(parseSource(broken).problem?.code).toBe('syntax_error');
  });
});
