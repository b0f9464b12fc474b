/**
 * Partners with the typed client: create one, find it with a search filter, update it with the
 * version you read, and handle the 409 problem an update with a stale version answers.
 *
 *     KONTOR_URL=http://localhost:3000 KONTOR_API_KEY=kak_… KONTOR_TOKEN=… \
 *       npx tsx clients/typescript/examples/partners.ts
 *
 * KONTOR_TOKEN is an access token (`POST /v1/auth/login`) or a personal API token
 * (`POST /v1/api-tokens`).
 */
import { createKontorClient, KontorProblemError, unwrap } from '@kontor/client';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

const kontor = createKontorClient({
  baseUrl: process.env.KONTOR_URL ?? 'http://localhost:3000',
  apiKey: env('KONTOR_API_KEY'),
  token: env('KONTOR_TOKEN'),
});

// Create: the body is typed from the API's schema (a misspelt field does not compile).
const created = unwrap(
  await kontor.POST('/v1/partners', {
    body: { name: 'Muster GmbH', type: 'CUSTOMER', tags: ['example'] },
  }),
);
say(`created ${created.id} "${created.name}" (version ${created.version})`);

// List with filters: `q` searches the name (case- and accent-insensitive), `type` and `tag` narrow.
const page = unwrap(
  await kontor.GET('/v1/partners', {
    params: { query: { q: 'muster', type: 'CUSTOMER', limit: 10 } },
  }),
);
for (const p of page.data) say(`found ${p.id} ${p.name} [${p.tags.join(', ')}]`);
if (page.nextCursor) say(`more: pass cursor=${page.nextCursor}`);

// Update: send the version you read; the answer carries the next one.
const updated = unwrap(
  await kontor.PUT('/v1/partners/{partnerId}', {
    params: { path: { partnerId: created.id } },
    body: { version: created.version, website: 'https://muster.example' },
  }),
);
say(`updated to version ${updated.version}: ${updated.website}`);

// A stale version: someone else wrote in between. Without `unwrap`, `error` is the typed problem.
const stale = await kontor.PUT('/v1/partners/{partnerId}', {
  params: { path: { partnerId: created.id } },
  body: { version: created.version, description: 'written from an old copy' },
});
if (stale.error) {
  if (stale.error.code === 'version_conflict') {
    say(
      `409 ${stale.error.code}: stored version is ${stale.error.currentVersion}; re-read and retry`,
    );
  } else {
    throw new KontorProblemError(stale.error, stale.response);
  }
}

// The same with exceptions: `unwrap` throws a KontorProblemError carrying the problem.
try {
  unwrap(
    await kontor.PUT('/v1/partners/{partnerId}', {
      params: { path: { partnerId: created.id } },
      body: { version: 1, name: 'Stale GmbH' },
    }),
  );
} catch (err) {
  if (!(err instanceof KontorProblemError) || err.code !== 'version_conflict') throw err;
  say(`caught ${err.message}`);
}

// Clean up.
const removed = await kontor.DELETE('/v1/partners/{partnerId}', {
  params: { path: { partnerId: created.id } },
});
say(`deleted: ${removed.response.status}`);
