/**
 * The committed OpenAPI document keeps the promises docs/openapi.md makes to generators
 * (`openapi:check` proves it is what the code produces; Spectral lints it; this checks the
 * conventions Spectral does not know).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operationIdOf } from '../src/http/openapi.js';

interface Response {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Operation {
  operationId?: string;
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, Response>;
}

const doc = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '..', 'openapi', 'openapi.json'), 'utf8'),
) as {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: object }>;
    responses: Record<string, Response>;
  };
};

/** The response itself, or the shared one a `$ref` names. */
const resolve = (r: Response | undefined): Response | undefined =>
  r?.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r;

const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map(([method, op]) => ({ key: `${method.toUpperCase()} ${p}`, op })),
);

describe('OpenAPI document', () => {
  it('shows the version of the package it describes', () => {
    const pkg = JSON.parse(
      fs.readFileSync(path.resolve(import.meta.dirname, '..', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
  });

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
            resolve(r)?.content?.['application/problem+json']?.schema?.$ref !==
            '#/components/schemas/Problem',
        )
        .map(([status]) => `${key} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('declares 401 and 429 with Retry-After wherever a bearer is needed', () => {
    const missing = operations
      .filter(({ op }) => (op.security ?? []).some((s) => 'bearer' in s))
      .filter(
        ({ op }) => !op.responses['401'] || !resolve(op.responses['429'])?.headers?.['Retry-After'],
      )
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

  it('declares RateLimit-* on every answer of an authenticated operation but 401, 403 and 414', () => {
    const missing = operations
      .filter(({ op }) => (op.security ?? []).some((s) => 'bearer' in s))
      .flatMap(({ key, op }) =>
        Object.entries(op.responses)
          .filter(([status]) => /^[24]/.test(status) && !['401', '403', '414'].includes(status))
          .filter(([, r]) => !resolve(r)?.headers?.['RateLimit-Remaining'])
          .map(([status]) => `${key} ${status}`),
      );
    expect(missing).toEqual([]);
  });

  it('describes the extension members problems carry', () => {
    expect(Object.keys(doc.components.schemas.Problem!.properties!)).toEqual(
      expect.arrayContaining(['code', 'requestId', 'currentVersion', 'errors', 'referencedBy']),
    );
  });

  it('shares the error answers as components.responses', () => {
    expect(Object.keys(doc.components.responses)).toEqual(
      expect.arrayContaining(['BadRequest', 'Unauthorized', 'NotFound', 'TooManyRequests']),
    );
    const getPartner = doc.paths['/v1/partners/{partnerId}']!.get!;
    expect(getPartner.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(getPartner.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
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
