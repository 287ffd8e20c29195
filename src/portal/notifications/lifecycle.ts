/**
 * The life of a register notification: raised (one open per register and event code: raised again while open
 * it is the same notification), escalated by the scheduler while still open after the escalation period (a level
 * up, up to 3, mailed again), closed when its condition ends (the register is heard from again, the instance
 * reports the device recovered or the disk no longer nearly full). A notice (TSE_ACTIVATED) is stored closed at
 * once: listed and mailed, never escalated. Closed notifications stay listed. A condition that comes back within the
 * reopen period (default 10 minutes) after its notification was closed reopens it instead of raising a new one
 * (flapping: not mailed again). An escalation is conditional on the level and raise time read, so that of several
 * portal processes running the scheduler only the one that changed it mails.
 */
import type { PortalContext } from '../context.js';
import { StoreConflict, type Entity, type Notification } from '../store/types.js';
import { EVENT_IDS_KEPT_MS } from './event-ids.js';
import { EVENT_KINDS, MAX_LEVEL, type NotificationCode, textsFor, withLevel } from './events.js';
import { DEFAULT_ESCALATE_AFTER_MS, DEFAULT_REOPEN_WITHIN_MS, DEFAULT_SILENT_AFTER_MS, type NotificationSettings } from './notifier.js';

export interface RaiseInput {
  registerNumber: string;
  companyId: number;
  code: NotificationCode;
  /** when the condition began (an instance's report time, a silent register's last contact); default now, never later than now */
  at?: Date;
  /** what the instance reported (shortened to 300 characters) */
  detail?: string | null;
}

export function settingsOf(ctx: PortalContext): NotificationSettings {
  return ctx.notifier?.settings ?? { silentAfterMs: DEFAULT_SILENT_AFTER_MS, escalateAfterMs: DEFAULT_ESCALATE_AFTER_MS, reopenWithinMs: DEFAULT_REOPEN_WITHIN_MS };
}

const companyType = (c: Entity | undefined): string => (c && (c.test || c.state === 'Test') ? 'Test' : 'Productive');

function mail(ctx: PortalContext, n: Notification, company: Entity | undefined): void {
  ctx.notifier?.mail(ctx.store, n, company?.name ?? `company ${n.companyId}`);
}

/**
 * Flapping: a condition that comes back within the reopen period after its notification was closed reopens that
 * notification (level, texts and times kept; no mail: it was mailed when raised). Undefined when none qualifies.
 */
async function reopenRecent(ctx: PortalContext, input: RaiseInput, now: Date): Promise<Notification | undefined> {
  const within = settingsOf(ctx).reopenWithinMs;
  if (within <= 0) return undefined;
  try {
    return await ctx.store.reopenNotification(input.registerNumber, input.code, new Date(now.getTime() - within).toISOString());
  } catch (e) {
    // opened at the same time by another request or process: that one is the open notification
    if (e instanceof StoreConflict) return ctx.store.openNotification(input.registerNumber, input.code);
    throw e;
  }
}

/**
 * Raises a notification unless one is open for the register and code (or one closed within the reopen period is
 * reopened); answers it, whether it is new and whether it was reopened.
 */
export async function raiseNotification(ctx: PortalContext, input: RaiseInput): Promise<{ notification: Notification; created: boolean; reopened?: boolean }> {
  const kind = EVENT_KINDS[input.code];
  const now = ctx.clock.now();
  if (!kind.closedAtOnce) {
    const open = await ctx.store.openNotification(input.registerNumber, input.code);
    if (open) return { notification: open, created: false };
    const reopened = await reopenRecent(ctx, input, now);
    if (reopened) {
      ctx.log?.info({ type: 'NOTIFICATION_REOPENED', notification: reopened.id, registerNumber: reopened.registerNumber, eventCode: reopened.eventCode, level: reopened.level }, 'register notification reopened (its condition came back within the reopen period)');
      return { notification: reopened, created: false, reopened: reopened.closedAt === null };
    }
  }
  const since = input.at && input.at.getTime() < now.getTime() ? input.at : now;
  const company = await ctx.store.getEntity(input.companyId);
  const detail = input.detail ? input.detail.replace(/\s+/g, ' ').trim().slice(0, 300) || null : null;
  const texts = textsFor(kind, {
    registerNumber: input.registerNumber,
    companyName: company?.name ?? `company ${input.companyId}`,
    companyType: companyType(company),
    level: kind.initialLevel,
    since: since.toISOString(),
    detail,
    silentHours: Math.round((settingsOf(ctx).silentAfterMs / 3600_000) * 100) / 100,
  });
  let n: Notification;
  try {
    n = await ctx.store.addNotification({
      registerNumber: input.registerNumber,
      companyId: input.companyId,
      eventCode: input.code,
      level: kind.initialLevel,
      texts,
      initialTimestamp: since.toISOString(),
      raisedAt: now.toISOString(),
      closedAt: kind.closedAtOnce ? now.toISOString() : null,
    });
  } catch (e) {
    // raised at the same time by another request or process: that one is the open notification
    const open = e instanceof StoreConflict ? await ctx.store.openNotification(input.registerNumber, input.code) : undefined;
    if (open) return { notification: open, created: false };
    throw e;
  }
  ctx.log?.info({ type: 'NOTIFICATION_RAISED', notification: n.id, registerNumber: n.registerNumber, eventCode: n.eventCode, level: n.level }, 'register notification raised');
  mail(ctx, n, company);
  return { notification: n, created: true };
}

/** Closes the open notification of a register for a code (its condition ended); undefined when none was open. */
export async function clearNotification(ctx: PortalContext, registerNumber: string, code: NotificationCode): Promise<Notification | undefined> {
  const closed = await ctx.store.closeNotification(registerNumber, code, ctx.clock.now().toISOString());
  if (closed) ctx.log?.info({ type: 'NOTIFICATION_CLOSED', notification: closed.id, registerNumber, eventCode: code }, 'register notification closed');
  return closed;
}

/** A call of a register's instance: its last contact is now, and it is no longer silent. */
export async function heardFrom(ctx: PortalContext, registerNumber: string): Promise<void> {
  await ctx.store.touchRegister(registerNumber, ctx.clock.now().toISOString());
  await clearNotification(ctx, registerNumber, 'REGISTER_SILENT');
}

export interface CheckOutcome {
  /** registers a REGISTER_SILENT notification was raised for */
  silent: string[];
  /** ids of notifications escalated */
  escalated: number[];
  /** ids of REGISTER_SILENT notifications closed because their register is no longer silent (or no longer active) */
  closed: number[];
}

/**
 * The scheduler's check, by the injected clock: raises REGISTER_SILENT for registers not heard from for the
 * silence period, closes a REGISTER_SILENT whose register is not silent any more, and escalates open
 * notifications that were raised (or last escalated) at least the escalation period ago.
 */
export async function checkNotifications(ctx: PortalContext): Promise<CheckOutcome> {
  const settings = settingsOf(ctx);
  const now = ctx.clock.now();
  const outcome: CheckOutcome = { silent: [], escalated: [], closed: [] };
  const silent = await ctx.store.silentRegisters(new Date(now.getTime() - settings.silentAfterMs).toISOString());
  const silentNumbers = new Set(silent.map((r) => r.registerNumber));
  for (const r of silent) {
    const { created } = await raiseNotification(ctx, { registerNumber: r.registerNumber, companyId: r.companyId, code: 'REGISTER_SILENT', at: new Date(r.lastContactAt) });
    if (created) outcome.silent.push(r.registerNumber);
  }
  // ids of processed instance events are kept for a while only (a resend comes within minutes)
  await ctx.store.pruneEvents(new Date(now.getTime() - EVENT_IDS_KEPT_MS).toISOString());
  const companies = new Map<number, Entity | undefined>();
  for (const n of await ctx.store.openNotifications()) {
    if (n.eventCode === 'REGISTER_SILENT' && !silentNumbers.has(n.registerNumber)) {
      // heard from between the list of silent registers and the raise, or deactivated since
      const closed = await ctx.store.closeNotification(n.registerNumber, n.eventCode, now.toISOString());
      if (closed) outcome.closed.push(closed.id);
      continue;
    }
    const kind = (EVENT_KINDS as Record<string, (typeof EVENT_KINDS)[NotificationCode] | undefined>)[n.eventCode];
    if (!kind?.escalates || n.level >= MAX_LEVEL) continue;
    if (now.getTime() - Date.parse(n.raisedAt) < settings.escalateAfterMs) continue;
    const level = n.level + 1;
    const up = await ctx.store.escalateNotification(n.id, { from: { level: n.level, raisedAt: n.raisedAt }, level, texts: withLevel(n.texts, level), raisedAt: now.toISOString() });
    // closed meanwhile, or escalated by another portal process (which mails it)
    if (!up) continue;
    outcome.escalated.push(up.id);
    ctx.log?.warn({ type: 'NOTIFICATION_ESCALATED', notification: up.id, registerNumber: up.registerNumber, eventCode: up.eventCode, level }, 'register notification escalated');
    if (!companies.has(up.companyId)) companies.set(up.companyId, await ctx.store.getEntity(up.companyId));
    mail(ctx, up, companies.get(up.companyId));
  }
  return outcome;
}
