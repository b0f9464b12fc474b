import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  cc?: string;
  /** Where replies go when the sender address takes none (e.g. the company's own address). */
  replyTo?: string;
  subject: string;
  text: string;
  headers?: Record<string, string>;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

/**
 * Where a mailer puts what it sends: `outbox` — files in `DATA_DIR/outbox`, nothing leaves the
 * machine; `smtp` — handed to a mail server, which accepted it.
 */
export type MailDelivery = 'outbox' | 'smtp';

/** The one way Kontor sends mail. */
export interface Mailer {
  readonly delivery: MailDelivery;
  /** The sender (From) of every message: `MAIL_FROM`. */
  readonly from: string;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Embedded mode: every message becomes one RFC 5322 file in `DATA_DIR/outbox`, written to a
 * temporary name and renamed, so a reader never sees half a message.
 */
export class OutboxMailer implements Mailer {
  readonly delivery = 'outbox';
  private readonly transport: Transporter;
  constructor(
    private readonly dir: string,
    readonly from: string,
  ) {
    this.transport = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: 'unix',
    });
  }

  async send(message: MailMessage): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.from, ...message })) as {
      message: Buffer;
    };
    await fs.mkdir(this.dir, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`;
    const tmp = path.join(this.dir, `.${name}.tmp`);
    await fs.writeFile(tmp, info.message, { mode: 0o600 });
    await fs.rename(tmp, path.join(this.dir, name));
  }

  close(): void {
    this.transport.close();
  }
}

/** Production: SMTP through nodemailer, from `SMTP_URL`. */
export class SmtpMailer implements Mailer {
  readonly delivery = 'smtp';
  private readonly transport: Transporter;
  constructor(
    url: string,
    readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(url);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }

  close(): void {
    this.transport.close();
  }
}

/** The outbox directory of embedded mode. */
export const outboxDir = (dataDir: string) => path.join(dataDir, 'outbox');

export function createMailer(config: {
  smtpUrl?: string;
  dataDir: string;
  mailFrom?: string;
}): Mailer {
  const from = config.mailFrom ?? 'Kontor <no-reply@kontor.local>';
  return config.smtpUrl
    ? new SmtpMailer(config.smtpUrl, from)
    : new OutboxMailer(outboxDir(config.dataDir), from);
}
