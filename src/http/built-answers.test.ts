import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { builtAnswers } from './built-answers.js';

/** Two routes alike but for `builtAnswers`, each answering a field its schemas do not name. */
async function app() {
  const app = Fastify();
  app.addHook('onRoute', builtAnswers(SerializerSelector()));
  const schema = {
    response: {
      200: {
        type: 'object',
        properties: { total: { type: 'number' } },
        additionalProperties: false,
      },
      409: {
        type: 'object',
        properties: { title: { type: 'string' } },
        additionalProperties: false,
      },
    },
  };
  for (const [url, built] of [
    ['/built', true],
    ['/plain', false],
  ] as const)
    app.get(url, { schema, config: { builtAnswers: built } }, async (req, reply) => {
      if ((req.query as { fail?: string }).fail)
        return reply.code(409).send({ title: 'Conflict', extra: 2 });
      return { total: 12.5, extra: 1 };
    });
  await app.ready();
  return app;
}

describe('answers written as built', () => {
  it('writes a success answer as its handler built it, and a problem by its schema', async () => {
    const a = await app();
    // What the handler built, whole: this is why such a route's presenter must build exactly
    // its schema's fields (the tests check every answer against the schema, closed).
    expect((await a.inject('/built')).body).toBe('{"total":12.5,"extra":1}');
    expect((await a.inject('/built?fail=1')).body).toBe('{"title":"Conflict"}');
    // Without the flag, the schema's serializer leaves out what it does not name.
    expect((await a.inject('/plain')).body).toBe('{"total":12.5}');
    expect((await a.inject('/plain?fail=1')).body).toBe('{"title":"Conflict"}');
    await a.close();
  });
});
