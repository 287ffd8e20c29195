/**
 * The portal's notification options from the command line or the environment: PORTAL_SILENT_AFTER,
 * PORTAL_ESCALATE_AFTER, PORTAL_REOPEN_WITHIN (a duration: `90s`, `30m`, `24h`, `2d`, or milliseconds; the reopen
 * period may be 0: never reopen), PORTAL_SMTP_URL, PORTAL_MAIL_FROM.
 */
import type { PortalOptions } from '../server.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** `24h` -> 86400000; a bare number is milliseconds; anything else, negative or (unless allowed) zero throws. */
export function parseDuration(text: string, what: string, allowZero = false): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  const ms = m ? Number(m[1]) * (UNITS[(m[2] ?? 'ms').toLowerCase()] ?? Number.NaN) : Number.NaN;
  if (allowZero && ms === 0) return 0;
  if (!Number.isFinite(ms) || ms < 1) throw new Error(`invalid ${what}: ${JSON.stringify(text)} (a duration such as 90s, 30m, 24h, 2d)`);
  return Math.round(ms);
}

export interface NotificationFlags {
  'silent-after'?: string | undefined;
  'escalate-after'?: string | undefined;
  'reopen-within'?: string | undefined;
  'smtp-url'?: string | undefined;
  'mail-from'?: string | undefined;
}

export function notificationOptions(flags: NotificationFlags, env: NodeJS.ProcessEnv = process.env): Pick<PortalOptions, 'silentAfterMs' | 'escalateAfterMs' | 'reopenWithinMs' | 'smtpUrl' | 'mailFrom'> {
  const reopen = flags['reopen-within'] ?? env.PORTAL_REOPEN_WITHIN;
  const silent = flags['silent-after'] ?? env.PORTAL_SILENT_AFTER;
  const escalate = flags['escalate-after'] ?? env.PORTAL_ESCALATE_AFTER;
  const smtpUrl = flags['smtp-url'] ?? env.PORTAL_SMTP_URL;
  const mailFrom = flags['mail-from'] ?? env.PORTAL_MAIL_FROM;
  return {
    ...(silent ? { silentAfterMs: parseDuration(silent, 'silent-after (PORTAL_SILENT_AFTER)') } : {}),
    ...(escalate ? { escalateAfterMs: parseDuration(escalate, 'escalate-after (PORTAL_ESCALATE_AFTER)') } : {}),
    ...(reopen ? { reopenWithinMs: parseDuration(reopen, 'reopen-within (PORTAL_REOPEN_WITHIN)', true) } : {}),
    ...(smtpUrl ? { smtpUrl } : {}),
    ...(mailFrom ? { mailFrom } : {}),
  };
}
