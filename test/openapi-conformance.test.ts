/**
 * The checker every test app's answers pass through (test/openapi-conformance.ts) finds each
 * kind of answer the document does not describe, and lets the described ones pass.
 */
import { describe, expect, it } from 'vitest';
import { routeOf, violationsOf, type CheckedAnswer } from './openapi-conformance.js';

const RATE = { 'ratelimit-limit': '100', 'ratelimit-remaining': '99', 'ratelimit-reset': '60' };
const partner = {
  id: 'prt_1',
  version: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const problem = (status: number, code: string) => ({
  type: `https://kontor.dev/problems/${code}`,
  title: 'Not found',
  status,
  detail: 'No such partner.',
  code,
  requestId: 'req-1',
});
const answer = (
  statusCode: number,
  headers: CheckedAnswer['headers'],
  body: unknown = '',
): CheckedAnswer => ({
  statusCode,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('OpenAPI conformance checker', () => {
  it('finds the operation as the router does: literal segments before parameters', () => {
    expect(routeOf('/v1/files/download')?.template).toBe('/v1/files/download');
    expect(routeOf('/v1/files/fil_1')?.template).toBe('/v1/files/{fileId}');
    expect(routeOf('/v1/nothing-here')).toBeUndefined();
    expect(routeOf('/v1/partners/%E0%A4%A')).toBeUndefined();
  });

  it('lets a described problem pass and names the operation of a wrong one', () => {
    const notFound = answer(
      404,
      { 'content-type': 'application/problem+json; charset=utf-8', ...RATE },
      problem(404, 'not_found'),
    );
    expect(violationsOf('GET', '/v1/partners/prt_1', notFound)).toEqual({
      operation: 'GET /v1/partners/{partnerId} (getPartner)',
      problems: [],
    });
    const { problems } = violationsOf('GET', '/v1/partners/prt_1', {
      ...notFound,
      body: JSON.stringify({ ...problem(404, 'not_found'), code: 'no_such_code' }),
    });
    expect(problems.join('\n')).toMatch(/^body\/code must be equal to one of the allowed values/);
  });

  it('refuses an undeclared status, an undeclared content type and a body off its schema', () => {
    const undeclared = violationsOf('GET', '/v1/partners/prt_1', answer(418, {}));
    expect(undeclared.problems).toEqual(['status 418 is not declared']);
    const html = violationsOf(
      'GET',
      '/v1/partners/prt_1',
      answer(404, { 'content-type': 'text/html', ...RATE }, '<p>gone</p>'),
    );
    expect(html.problems).toEqual([
      'content-type text/html is not declared (declared: application/problem+json)',
    ]);
    const offSchema = violationsOf(
      'GET',
      '/v1/partners/prt_1',
      answer(200, { 'content-type': 'application/json', etag: '"2"', ...RATE }, partner),
    );
    expect(offSchema.problems.join('\n')).toMatch(/must have required property 'name'/);
  });

  it('requires the headers declared as always sent and checks the value of any declared', () => {
    const { problems } = violationsOf(
      'GET',
      '/v1/partners/prt_1',
      answer(
        429,
        { 'content-type': 'application/problem+json', 'ratelimit-limit': 'many' },
        problem(429, 'rate_limited'),
      ),
    );
    expect(problems.sort()).toEqual([
      'header RateLimit-Limit: "many" must be integer',
      'header Retry-After is missing',
    ]);
  });

  it('refuses a body or a content type on an answer declared without content (a 304)', () => {
    const url = '/v1/documents/doc_1/einvoice';
    expect(violationsOf('GET', url, answer(304, { ...RATE })).problems).toEqual([]);
    expect(
      violationsOf('GET', url, answer(304, { 'content-type': 'application/json', ...RATE }))
        .problems,
    ).toEqual(['content-type application/json on an answer without content']);
  });

  it('checks a HEAD answer as the GET without its body, and skips paths it does not document', () => {
    const head = violationsOf(
      'HEAD',
      '/v1/partners/prt_1',
      answer(404, { 'content-type': 'application/problem+json', ...RATE }),
    );
    expect(head.problems).toEqual([]);
    expect(violationsOf('GET', '/openapi.json', answer(200, {}))).toEqual({ problems: [] });
  });
});
