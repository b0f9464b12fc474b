import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  logSink,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { startSmtp } from '../../../test/smtp.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import { call } from './documents.test-support.js';

/**
 * Where a sent document went, and who the customer's reply reaches: without SMTP_URL the mail
 * only lands in the local outbox and the answer says so (`delivery: outbox`); with a mail
 * server that accepted it, `smtp`. Either way the mail's Reply-To is the company's email.
 */

interface Sent {
  sentAt: string | null;
  sentTo: string[];
  delivery: 'outbox' | 'smtp' | null;
}

const COMPANY_EMAIL = 'buero@mustermann.invalid';

/** An UPLOADED invoice of `user` to a partner with a billing email, and the company's email set. */
async function invoiceToSend(t: TestApp, user: TestUser, to: string): Promise<string> {
  const company = await call<Record<string, unknown>>(t, user, 'GET', '/v1/account/company');
  const { updatedAt: _u, ...fields } = company;
  await call(t, user, 'PUT', '/v1/account/company', { ...fields, email: COMPANY_EMAIL }, 200);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Schulz KG',
    type: 'CUSTOMER',
    addresses: [{ type: 'BILLING', country: 'DE', email: to }],
  });
  const { ticket } = await upload(t, user, 'application/pdf', SAMPLES.pdf, 'rechnung.pdf');
  const doc = await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung Schulz',
    documentNumber: 'RE-88',
    creationDate: '2026-11-02',
    source: 'UPLOADED',
    fileId: ticket.fileId,
    partnerId: partner.id,
  });
  return doc.id;
}

const send = (t: TestApp, user: TestUser, id: string) =>
  call<Sent>(t, user, 'POST', `/v1/documents/${id}/send`, {}, 200);

/** `GET …/send-preview`: what the send above will do, before it does it. */
const preview = (t: TestApp, user: TestUser, id: string) =>
  call<Record<string, unknown>>(t, user, 'GET', `/v1/documents/${id}/send-preview`);

describe('documents: send without a mail server', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    user = await createUser(t);
  });
  afterAll(() => t.close());

  it('answers delivery outbox, keeps it for later reads, and sets Reply-To to the company', async () => {
    const id = await invoiceToSend(t, user, 'buchhaltung@schulz.invalid');
    const before = await call<Sent>(t, user, 'GET', `/v1/documents/${id}`);
    expect(before.delivery).toBeNull();
    const told = await preview(t, user, id);
    expect(told).toMatchObject({
      to: ['buchhaltung@schulz.invalid'],
      replyTo: COMPANY_EMAIL,
      from: 'Kontor <no-reply@kontor.local>',
      delivery: 'outbox',
      attachments: [{ name: 'Rechnung RE-88.pdf', contentType: 'application/pdf' }],
    });
    expect(told.deliveryNote).toMatch(/will not leave this machine/);
    const sent = await send(t, user, id);
    expect(sent).toMatchObject({ sentTo: ['buchhaltung@schulz.invalid'], delivery: 'outbox' });
    expect((await call<Sent>(t, user, 'GET', `/v1/documents/${id}`)).delivery).toBe('outbox');
    const [mail] = await mailsTo(t, 'buchhaltung@schulz.invalid');
    expect(mail!.raw).toMatch(/^Reply-To: buero@mustermann\.invalid$/m);
    expect(mail!.raw).toMatch(/^From: Kontor <no-reply@kontor\.local>$/m);
  });
});

describe('documents: send through a mail server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Rechnungen <rechnungen@kontor.invalid>' },
    });
    user = await createUser(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('answers delivery smtp once the server accepted it, from MAIL_FROM with Reply-To', async () => {
    const id = await invoiceToSend(t, user, 'chef@schulz.invalid');
    expect(await preview(t, user, id)).toMatchObject({
      from: 'Rechnungen <rechnungen@kontor.invalid>',
      replyTo: COMPANY_EMAIL,
      delivery: 'smtp',
    });
    expect(await send(t, user, id)).toMatchObject({ delivery: 'smtp' });
    expect((await call<Sent>(t, user, 'GET', `/v1/documents/${id}`)).delivery).toBe('smtp');
    const [mail] = await smtp.to('chef@schulz.invalid');
    expect(mail!.from).toBe('rechnungen@kontor.invalid');
    expect(mail!.raw).toMatch(/^From: Rechnungen <rechnungen@kontor\.invalid>$/m);
    expect(mail!.raw).toMatch(/^Reply-To: buero@mustermann\.invalid$/m);
    // Nothing went to the outbox.
    expect(fs.existsSync(path.join(t.dataDir, 'outbox'))).toBe(false);
  });
});

describe('start: mail that does not leave the machine', () => {
  /** The warnings an app logs while it is built, with and without SMTP_URL. */
  async function startWarnings(env: Record<string, string>): Promise<string[]> {
    const log = logSink();
    const started = await buildTestApp({
      env: { LOG_LEVEL: 'warn', ...env },
      logStream: log.stream,
    });
    await started.close();
    return log
      .text()
      .split('\n')
      .filter((l) => l.includes('SMTP_URL'));
  }

  it('warns once, naming SMTP_URL, in outbox mode; not when a mail server is set', async () => {
    const outbox = await startWarnings({});
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0]!)).toMatchObject({
      level: 40, // pino's warn
      msg: expect.stringContaining('Set SMTP_URL'),
      outbox: expect.stringMatching(/outbox$/),
    });
    expect(await startWarnings({ SMTP_URL: 'smtp://127.0.0.1:1' })).toEqual([]);
  });
});
