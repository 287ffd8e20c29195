/**
 * What the portal's notifications need at run time: the settings (silence and escalation periods) and the mailer.
 * Mail goes out in the background: a raise never waits for it, and a failed mail is logged, never thrown (the
 * notification is stored before any mail is tried). `idle()` waits for the mails under way (tests, shutdown).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { PortalStore, Notification } from '../store/types.js';
import { EVENT_KINDS, NOTIFICATION_CODES, type NotificationCode, languageOf } from './events.js';
import type { Mail, Mailer } from './mailer.js';

export const DEFAULT_SILENT_AFTER_MS = 24 * 3600_000;
export const DEFAULT_ESCALATE_AFTER_MS = 24 * 3600_000;
export const DEFAULT_REOPEN_WITHIN_MS = 10 * 60_000;

export interface NotificationSettings {
  /** a register whose instance has not called the portal for this long is REGISTER_SILENT */
  silentAfterMs: number;
  /** an open notification is escalated (a level up, mailed again) after this long */
  escalateAfterMs: number;
  /** a condition that comes back this soon after its notification was closed reopens it (0: never) */
  reopenWithinMs: number;
}

const isCode = (c: string): c is NotificationCode => (NOTIFICATION_CODES as readonly string[]).includes(c);

export class Notifier {
  private readonly pending = new Set<Promise<void>>();
  /** mails sent and failed since the start (for tests and logs) */
  readonly counts = { sent: 0, failed: 0 };

  constructor(
    readonly settings: NotificationSettings,
    private readonly mailer: Mailer | undefined,
    private readonly log?: FastifyBaseLogger,
  ) {}

  get mailTarget(): string | undefined {
    return this.mailer?.target;
  }

  /** The mails a notification gives: one per contact of the matching type (the same address once), in its language. */
  async mailsFor(store: PortalStore, n: Notification, companyName: string): Promise<Mail[]> {
    if (!isCode(n.eventCode)) return [];
    const types = EVENT_KINDS[n.eventCode].contactTypes;
    const contacts = (await store.listContacts(n.companyId)).filter((c) => types.includes(c.contactType));
    const seen = new Set<string>();
    const mails: Mail[] = [];
    for (const c of contacts) {
      const key = c.emailAddress.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const lang = languageOf(c.languageCode);
      const t = n.texts[lang] ?? n.texts.en ?? { short: n.eventCode, long: n.eventCode };
      const facts = lang === 'de'
        ? [`Firma: ${companyName} (${n.companyId})`, `Kasse: ${n.registerNumber}`, `Ereignis: ${n.eventCode}`, `Stufe: ${n.level}`, `Seit: ${n.initialTimestamp}`]
        : [`Company: ${companyName} (${n.companyId})`, `Register: ${n.registerNumber}`, `Event: ${n.eventCode}`, `Level: ${n.level}`, `Since: ${n.initialTimestamp}`];
      const greeting = lang === 'de' ? `Guten Tag ${c.contactName},` : `Hello ${c.contactName},`;
      const footer = lang === 'de'
        ? 'Diese Nachricht wurde vom efr-Portal automatisch erstellt.'
        : 'This message was sent automatically by the efr portal.';
      mails.push({ to: c.emailAddress, subject: `[efr] ${t.short}`, text: `${greeting}\n\n${t.long}\n\n${facts.join('\n')}\n\n-- \n${footer}\n` });
    }
    return mails;
  }

  /** Mails a raised or escalated notification in the background; never throws. */
  mail(store: PortalStore, n: Notification, companyName: string): void {
    if (!this.mailer) return;
    const mailer = this.mailer;
    const job = (async () => {
      let mails: Mail[];
      try {
        mails = await this.mailsFor(store, n, companyName);
      } catch (err) {
        this.counts.failed += 1;
        this.log?.error({ type: 'NOTIFICATION_MAIL_FAILED', notification: n.id, eventCode: n.eventCode, err }, 'the contacts of a notification could not be read; no mail sent');
        return;
      }
      for (const m of mails) {
        try {
          await mailer.send(m);
          this.counts.sent += 1;
          this.log?.info({ type: 'NOTIFICATION_MAILED', notification: n.id, eventCode: n.eventCode, level: n.level, to: m.to, via: mailer.target }, 'notification mailed');
        } catch (err) {
          this.counts.failed += 1;
          this.log?.error({ type: 'NOTIFICATION_MAIL_FAILED', notification: n.id, eventCode: n.eventCode, to: m.to, via: mailer.target, err }, 'a notification mail failed; the notification is kept');
        }
      }
    })();
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  /** Waits until the mails under way are sent or failed. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    await this.idle();
    this.mailer?.close();
  }
}
