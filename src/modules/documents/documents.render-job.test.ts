import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { billingAddress, call, type Body } from './documents.test-support.js';

/**
 * The `document.render` job a finalize queues is the safety net of the render the request
 * makes after its commit: it must not render the same PDF beside the request (it falls due
 * later), and a failed in-request render is still retried by a job due at once.
 */

type Doc = Body & { id: string; version: number; fileId: string | null; status: string };

let t: TestApp;
let user: TestUser;
let partnerId: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  partnerId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('ap@kunde.example')],
    })
  ).id;
});

afterAll(async () => {
  await t.close();
});

const draft = () =>
  call<Doc>(t, user, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Beratung',
    creationDate: '2026-05-04',
    deliveryDate: '2026-05-04',
    partnerId,
    lineItems: [{ description: 'Beratung', quantity: 2, unitPrice: 120 }],
  });

const finalize = (doc: Doc) =>
  call<Doc>(t, user, 'PUT', `/v1/documents/${doc.id}`, { version: doc.version, status: 'FINAL' });

describe('the render job of a finalize', () => {
  it('leaves the PDF to the request: one render, none by the job drained at once', async () => {
    const render = vi.spyOn(t.app.ctx.renderer, 'render');
    try {
      const fin = await finalize(await draft());
      expect(fin.fileId).not.toBeNull();
      await t.app.ctx.jobs.drain();
      expect(render).toHaveBeenCalledTimes(1);
    } finally {
      render.mockRestore();
    }
  });

  it('retries a failed in-request render by a job due at once', async () => {
    const storage = t.app.ctx.storage;
    const write = vi.spyOn(storage, 'write').mockRejectedValueOnce(new Error('disk full'));
    try {
      const fin = await finalize(await draft());
      expect(fin).toMatchObject({ status: 'FINAL', fileId: null });
      await t.app.ctx.jobs.drain();
      const after = await call<Doc>(t, user, 'GET', `/v1/documents/${fin.id}`);
      expect(after.fileId).not.toBeNull();
    } finally {
      write.mockRestore();
    }
  });
});
