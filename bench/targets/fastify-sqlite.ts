// Ceiling 2: one Fastify 5 route, a bearer token compared to a constant and a raw better-sqlite3
// point read by primary key — Kontor's stack with nothing of Kontor in it (no logging, no schema).
// The database file is created and seeded by bench/run.ts.
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const { DB_FILE, TOKEN, PORT = '0' } = process.env;
if (!DB_FILE || !TOKEN) throw new Error('DB_FILE and TOKEN are required');
const db = new Database(DB_FILE);
db.pragma('journal_mode = WAL');
const byId = db.prepare<[string], Record<string, unknown> & { addresses: string; tags: string }>(
  'select * from partners where id = ?',
);
const expected = `Bearer ${TOKEN}`;

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/partners/:id', async (req, reply) => {
  if (req.headers.authorization !== expected)
    return reply.code(401).send({ error: 'unauthorized' });
  const row = byId.get(req.params.id);
  if (!row) return reply.code(404).send({ error: 'not found' });
  return {
    ...row,
    addresses: JSON.parse(row.addresses) as unknown,
    tags: JSON.parse(row.tags) as unknown,
  };
});
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
