/**
 * Mail of the portal's notifications, by nodemailer: to an SMTP server when a URL is configured
 * (`smtp://127.0.0.1:2525`, PORTAL_SMTP_URL), else as RFC 5322 files (`.eml`, CRLF line ends) in an outbox
 * folder (`<data>/portal/outbox/`), each written to a temporary name and renamed, so that whatever picks the
 * files up never sees half a mail.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** where mail goes, for logs: `smtp://host:port` or the outbox folder */
  readonly target: string;
  send(mail: Mail): Promise<void>;
  close(): void;
}

export const DEFAULT_MAIL_FROM = 'efr portal <portal@localhost>';

export interface MailerOptions {
  /** smtp:// or smtps:// URL; absent: the outbox folder */
  smtpUrl?: string;
  outboxDir: string;
  from?: string;
}

/** `smtp://user:secret@host:25` shown without the credentials */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'smtp (invalid URL)';
  }
}

export function createMailer(options: MailerOptions): Mailer {
  const from = options.from ?? DEFAULT_MAIL_FROM;
  if (options.smtpUrl) {
    if (!/^smtps?:\/\//i.test(options.smtpUrl)) throw new Error(`the SMTP URL must start with smtp:// or smtps://: ${withoutCredentials(options.smtpUrl)}`);
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      target: withoutCredentials(options.smtpUrl),
      async send(mail) {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      },
      close() {
        transport.close();
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  let made = false;
  return {
    target: options.outboxDir,
    async send(mail) {
      const info = await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      const message: unknown = info.message;
      if (!Buffer.isBuffer(message)) throw new Error('the stream transport gave no buffer');
      if (!made) {
        mkdirSync(options.outboxDir, { recursive: true });
        made = true;
      }
      // names sort by time; the UUID keeps two mails of one millisecond apart
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}`;
      const temp = join(options.outboxDir, `.${name}.tmp`);
      writeFileSync(temp, message);
      renameSync(temp, join(options.outboxDir, `${name}.eml`));
    },
    close() {
      transport.close();
    },
  };
}
