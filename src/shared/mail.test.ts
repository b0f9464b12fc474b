import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, buildTestApp, email } from '../../test/helpers.js';
import { startSmtp } from '../../test/smtp.js';
import { OutboxMailer, SmtpMailer, createMailer, type Mailer } from './mail.js';

/** The header block of a message, unfolded, as name → value. */
function headers(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return new Map(
    head.split(/\r?\n/).map((line) => {
      const i = line.indexOf(':');
      return [line.slice(0, i).toLowerCase(), line.slice(i + 1).trim()];
    }),
  );
}

const body = (raw: string) =>
  raw
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join('\n\n')
    .replace(/\r\n/g, '\n');

let smtp: Awaited<ReturnType<typeof startSmtp>>;
const mailers: Mailer[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
});
afterEach(() => {
  for (const m of mailers.splice(0)) m.close();
});
afterAll(async () => {
  await smtp.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-mail-'));
  dirs.push(dir);
  return dir;
}

describe('SmtpMailer', () => {
  it('delivers to an SMTP server: envelope, headers and body', async () => {
    const mailer = new SmtpMailer(smtp.url, 'Kontor <no-reply@kontor.test>');
    mailers.push(mailer);
    const to = email('smtp');
    await mailer.send({
      to,
      subject: 'Your Kontor confirmation code: 123456',
      text: 'Hello Ada,\n\nyour code is 123456.',
      headers: { 'X-Kontor-Purpose': 'confirm' },
    });
    const [message, ...more] = await smtp.to(to);
    expect(more).toHaveLength(0);
    expect(message!.from).toBe('no-reply@kontor.test');
    expect(message!.to).toEqual([to]);
    const h = headers(message!.raw);
    expect(h.get('to')).toBe(to);
    expect(h.get('from')).toBe('Kontor <no-reply@kontor.test>');
    expect(h.get('subject')).toBe('Your Kontor confirmation code: 123456');
    expect(h.get('x-kontor-purpose')).toBe('confirm');
    expect(h.get('message-id')).toMatch(/^<.+@.+>$/);
    expect(body(message!.raw)).toContain('Hello Ada,\n\nyour code is 123456.');
  });

  it('rejects when the server refuses the recipient', async () => {
    const mailer = new SmtpMailer(smtp.url, 'Kontor <no-reply@kontor.test>');
    mailers.push(mailer);
    await expect(
      mailer.send({ to: 'bounce@example.com', subject: 'x', text: 'x' }),
    ).rejects.toThrow();
  });
});

describe('OutboxMailer', () => {
  it('writes one RFC 5322 .eml file per message, atomically', async () => {
    const outbox = path.join(tempDir(), 'outbox');
    const mailer = new OutboxMailer(outbox, 'Kontor <no-reply@kontor.test>');
    mailers.push(mailer);
    await mailer.send({
      to: 'ada@example.com',
      subject: 'Your Kontor password reset code: 654321',
      text: 'Your password reset code is 654321.',
    });
    const files = fs.readdirSync(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[^.].*\.eml$/);
    const file = path.join(outbox, files[0]!);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const raw = fs.readFileSync(file, 'utf8');
    const h = headers(raw);
    expect(h.get('from')).toBe('Kontor <no-reply@kontor.test>');
    expect(h.get('to')).toBe('ada@example.com');
    expect(h.get('subject')).toBe('Your Kontor password reset code: 654321');
    expect(Number.isNaN(Date.parse(h.get('date') ?? ''))).toBe(false);
    expect(h.get('message-id')).toMatch(/^<.+@.+>$/);
    expect(h.get('mime-version')).toBe('1.0');
    expect(body(raw)).toContain('Your password reset code is 654321.');
  });

  it('keeps concurrent messages apart and leaves no temporary files', async () => {
    const outbox = path.join(tempDir(), 'outbox');
    const mailer = new OutboxMailer(outbox, 'Kontor <no-reply@kontor.test>');
    mailers.push(mailer);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        mailer.send({ to: `user${i}@example.com`, subject: `Message ${i}`, text: `Body ${i}` }),
      ),
    );
    const files = fs.readdirSync(outbox);
    expect(files).toHaveLength(8);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    const subjects = files
      .map((f) => headers(fs.readFileSync(path.join(outbox, f), 'utf8')).get('subject'))
      .sort();
    expect(subjects).toEqual(Array.from({ length: 8 }, (_, i) => `Message ${i}`));
  });
});

describe('createMailer', () => {
  it('picks SMTP when SMTP_URL is set, the outbox otherwise', () => {
    const dataDir = tempDir();
    const smtpMailer = createMailer({ smtpUrl: smtp.url, dataDir });
    const outbox = createMailer({ dataDir });
    mailers.push(smtpMailer, outbox);
    expect(smtpMailer).toBeInstanceOf(SmtpMailer);
    expect(outbox).toBeInstanceOf(OutboxMailer);
  });

  it('with SMTP_URL, the app mails the registration code over SMTP', async () => {
    const t = await buildTestApp({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Kontor Test <hello@kontor.test>' },
    });
    try {
      const address = email('smtp-app');
      const res = await t.request({
        method: 'POST',
        url: '/v1/auth/register',
        // A client of its own: per-IP mail caps live in Redis across runs.
        remoteAddress: `10.9.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`,
        payload: { email: address, password: PASSWORD, name: 'Ada', companyName: 'Ada GmbH' },
      });
      expect(res.statusCode).toBe(202);
      const [message] = await smtp.to(address);
      expect(message).toBeDefined();
      expect(message!.from).toBe('hello@kontor.test');
      const subject = headers(message!.raw).get('subject') ?? '';
      const code = /^Your Kontor confirmation code: (\d{6})$/.exec(subject)?.[1];
      expect(code).toBeDefined();
      expect(body(message!.raw)).toContain(`Your confirmation code is ${code}.`);
      expect(fs.existsSync(path.join(t.dataDir, 'outbox'))).toBe(false);

      const confirmed = await t.request({
        method: 'POST',
        url: '/v1/auth/confirm',
        payload: { email: address, code },
      });
      expect(confirmed.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
