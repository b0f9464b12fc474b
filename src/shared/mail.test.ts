import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, buildTestApp, email } from '../../test/helpers.js';
import { OutboxMailer, SmtpMailer, createMailer, type Mailer } from './mail.js';

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

/** A real SMTP server in this process, on a free port, keeping what it receives. */
async function startSmtp() {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('bounce@'))
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Messages to `to`, waiting up to `timeoutMs` for at least `count`. */
    async to(to: string, count = 1, timeoutMs = 3000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter((m) => m.to.includes(to));
        if (found.length >= count || Date.now() > deadline) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
