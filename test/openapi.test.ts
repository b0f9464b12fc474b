/**
 * The committed OpenAPI document keeps the promises docs/openapi.md makes to generators
 * (`openapi:check` proves it is what the code produces; Spectral lints it; this checks the
 * conventions Spectral does not know).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operationIdOf } from '../src/http/openapi.js';

interface Operation {
  operationId?: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string }[];
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string } }> }
  >;
}

const doc = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '..', 'openapi', 'openapi.json'), 'utf8'),
) as { paths: Record<string, Record<string, Operation>>; components: { schemas: object } };

const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map(([method, op]) => ({ key: `${method.toUpperCase()} ${p}`, op })),
);

describe('OpenAPI document', () => {
  it('names every operation once', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(operations.length);
    expect(operations.length).toBeGreaterThan(100);
  });

  it('derives CRUD names and refuses to guess the rest', () => {
    expect(operationIdOf('get', '/v1/partners', ['get', 'post'])).toBe('listPartners');
    expect(operationIdOf('post', '/v1/partners', ['get', 'post'])).toBe('createPartner');
    expect(operationIdOf('put', '/v1/partners/{partnerId}', ['get', 'put'])).toBe('updatePartner');
    expect(operationIdOf('get', '/v1/tax-rates/{taxRateId}', ['get'])).toBe('getTaxRate');
    expect(operationIdOf('get', '/v1/budget-categories', ['get'])).toBe('listBudgetCategories');
    expect(() => operationIdOf('put', '/v1/something/new-action', ['put'])).toThrow(
      /OPERATION_IDS/,
    );
  });

  it('answers errors as application/problem+json with the Problem schema', () => {
    const wrong = operations.flatMap(({ key, op }) =>
      Object.entries(op.responses)
        .filter(([status]) => /^[45]/.test(status))
        .filter(
          ([, r]) =>
            r.content?.['application/problem+json']?.schema?.$ref !==
            '#/components/schemas/Problem',
        )
        .map(([status]) => `${key} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('declares 401 and 429 with Retry-After wherever a bearer is needed', () => {
    const missing = operations
      .filter(({ op }) => (op.security ?? []).some((s) => 'bearer' in s))
      .filter(({ op }) => !op.responses['401'] || !op.responses['429']?.headers?.['Retry-After'])
      .map(({ key }) => key);
    expect(missing).toEqual([]);
  });

  it('declares Location on 201, ETag on versioned records, Idempotent-Replayed on POST', () => {
    const created = operations.filter(({ op }) => op.responses['201']);
    expect(created.length).toBeGreaterThan(5);
    for (const { op } of created) expect(op.responses['201']!.headers).toHaveProperty('Location');
    const getPartner = doc.paths['/v1/partners/{partnerId}']!.get!;
    expect(getPartner.responses['200']!.headers).toHaveProperty('ETag');
    expect(getPartner.responses['200']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/Partner',
    });
    const createPartner = doc.paths['/v1/partners']!.post!;
    expect(createPartner.responses['201']!.headers).toHaveProperty('Idempotent-Replayed');
  });

  it('names resources, bodies and list pages', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'Partner',
        'PartnerPage',
        'CreatePartner',
        'UpdatePartner',
        'Document',
        'DocumentPage',
        'Payment',
        'Contract',
        'Problem',
      ]),
    );
  });
});
