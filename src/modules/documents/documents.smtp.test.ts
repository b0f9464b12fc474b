import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { startSmtp } from '../../../test/smtp.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import { attachment, call } from './documents.test-support.js';

/** Sending a document through a real SMTP server (the outbox path has its own tests). */

let smtp: Awaited<ReturnType<typeof startSmtp>>;
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  user = await createUser(t);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('documents: send over SMTP', () => {
  it('delivers the document with its PDF attached to the partner’s billing address and the cc', async () => {
    const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Schulz KG',
      type: 'CUSTOMER',
      addresses: [{ type: 'BILLING', country: 'DE', email: 'buchhaltung@schulz.example' }],
    });
    const { ticket } = await upload(t, user, 'application/pdf', SAMPLES.pdf, 'rechnung.pdf');
    const doc = await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung Schulz',
      documentNumber: 'RE-77',
      creationDate: '2026-11-02',
      source: 'UPLOADED',
      fileId: ticket.fileId,
      partnerId: partner.id,
    });
    const sent = await call<{ status: string; sentTo: string[] }>(
      t,
      user,
      'POST',
      `/v1/documents/${doc.id}/send`,
      { cc: ['chef@example.com'], subject: 'Ihre Rechnung RE-77', message: 'Anbei die Rechnung.' },
      200,
    );
    expect(sent).toMatchObject({
      status: 'FINAL',
      sentTo: ['buchhaltung@schulz.example', 'chef@example.com'],
    });
    const [mail] = await smtp.to('buchhaltung@schulz.example');
    expect(mail).toBeDefined();
    expect(mail!.to.sort()).toEqual(['buchhaltung@schulz.example', 'chef@example.com']);
    expect(mail!.raw).toContain('Subject: Ihre Rechnung RE-77');
    const pdf = attachment(mail!.raw, 'Rechnung RE-77.pdf');
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.bytes.equals(SAMPLES.pdf)).toBe(true);
  });
});
