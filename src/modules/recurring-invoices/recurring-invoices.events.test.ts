import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { call } from '../documents/documents.test-support.js';

/**
 * The events a billing run sends (issue 14): `contract.invoiced` for the period, then
 * `document.finalized` and, once the send job mailed it, `document.sent` — each a signed
 * Standard Webhooks delivery received by a real HTTP server.
 */

const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
    res.end('ok');
  });
});
let t: TestApp;
let user: TestUser;
// Real time: the receiver checks the signed timestamp against its own clock.
const now = new Date();
const first = `${now.toISOString().slice(0, 7)}-01`;
const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0))
  .toISOString()
  .slice(0, 10);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t = await buildTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  user = await createUser(t);
});
afterAll(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('sends contract.invoiced, document.finalized and document.sent for a billed period', async () => {
  const { port } = server.address() as AddressInfo;
  const endpoint = await call<{ secret: string }>(t, user, 'POST', '/v1/webhook-endpoints', {
    url: `http://127.0.0.1:${port}/kontor`,
    eventTypes: ['contract.invoiced', 'document.finalized', 'document.sent'],
  });
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Kunde GmbH',
    type: 'CUSTOMER',
    addresses: [
      {
        type: 'BILLING',
        street: 'Rathausmarkt 1',
        postalCode: '20095',
        city: 'Hamburg',
        country: 'DE',
        email: 'buchhaltung@kunde.example',
      },
    ],
  });
  const contract = await call<{ id: string }>(t, user, 'POST', '/v1/contracts', {
    name: 'Wartung',
    partnerId: partner.id,
    partnerName: 'x',
    startDate: '2026-01-01',
    totalValue: 100,
    currency: 'EUR',
    status: 'ACTIVE',
    billing: {
      interval: 'MONTHLY',
      nextInvoiceDate: first,
      autoFinalize: true,
      autoSend: true,
      lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 100 }],
    },
  });
  const run = await call<{ invoices: { documentId: string }[] }>(
    t,
    user,
    'POST',
    '/v1/contracts/billing-runs',
    {},
    200,
  );
  const documentId = run.invoices[0]!.documentId;
  // Deliveries and the send job run on the queue; the send's own event is delivered after it.
  for (let i = 0; i < 3 && received.length < 3; i++) await t.app.ctx.jobs.drain();

  const hook = new Webhook(endpoint.secret);
  const events = received.map((r) => {
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [
        h,
        String(r.headers[h]),
      ]),
    );
    return hook.verify(r.body, headers) as { type: string; data: Record<string, unknown> };
  });
  expect(events.map((e) => e.type).sort()).toEqual([
    'contract.invoiced',
    'document.finalized',
    'document.sent',
  ]);
  const invoiced = events.find((e) => e.type === 'contract.invoiced')!;
  expect(invoiced.data).toMatchObject({
    contractId: contract.id,
    documentId,
    status: 'FINAL',
    invoiceDate: first,
    servicePeriod: { from: first, to: last },
  });
  expect(events.find((e) => e.type === 'document.sent')!.data).toMatchObject({
    id: documentId,
    status: 'FINAL',
  });
});
