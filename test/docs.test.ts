import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/shared/errors.js';

describe('docs', () => {
  it('docs/api-conventions.md lists every error code the API answers', () => {
    const doc = fs.readFileSync(
      path.resolve(import.meta.dirname, '../docs/api-conventions.md'),
      'utf8',
    );
    for (const code of Object.keys(ERROR_CODES)) expect(doc, code).toContain(`\`${code}\``);
  });
});
