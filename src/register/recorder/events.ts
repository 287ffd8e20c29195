/**
 * Events the instance reports to the portal: the German TSE failing and answering again, the
 * TSE put into service (its initialization), the disk nearly full and no longer so. The portal raises register
 * notifications from them and mails the company's contacts.
 *
 * A durable queue: `report()` appends to the store's setting `recorder:events` (JSON list, compare-and-set, so that
 * processes sharing the store do not lose each other's appends), so a restart or a portal away loses nothing. A
 * timer sends the queue in order to `<portalUrl>/api/v1/recorder/events` with the credential of the register's
 * activation (`recorder:activation`, or `recorder:activation:<RN>` for other registers), never on a request's path;
 * a failure is tried again after 1 s, 2 s, ... up to 60 s (EFR_RECORDER_RETRY_MS=min,max). Events of a register
 * that is not activated yet wait for its activation. A batch the portal refuses as invalid (400) is dropped with a
 * warning (it would never be taken). At most MAX_QUEUED events are kept; beyond that the oldest are dropped.
 * Delivery is at least once: a batch whose answer was lost is sent again (the portal keeps one open notification
 * per register and code, so a repeated failure changes nothing).
 *
 * Disk: checked every minute (EFR_DISK_CHECK_MS): nearly full when the data folder uses 90 % of DiskQuota or the
 * file system has less than 10 % free; no longer so below 85 % of the quota and above 12 % free (so that a level
 * near the threshold does not report again and again). Reported once per crossing; the state is kept in the
 * setting `recorder:disk` so that a restart neither repeats nor forgets it. Disk events belong to the instance's
 * own register (`def`).
 */
import { randomBytes } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import { hostname } from 'node:os';
import type pino from 'pino';
import type { ServiceContext } from '../context.js';
import { diskMonitor, diskQuotaBytes } from '../maintenance/disk-quota.js';
import { postJson } from './portal-client.js';
import { activationKey } from './keys.js';
import { retryOptionsOf } from './recorder.js';

export const EVENTS_KEY = 'recorder:events';
export const DISK_STATE_KEY = 'recorder:disk';
export const MAX_QUEUED = 500;
/** events per request (the portal takes up to 100) */
export const EVENTS_PER_BATCH = 100;
const DETAIL_MAX = 1000;
/** how often events of registers not activated yet look for their activation */
const WAITING_POLL_MS = 5000;
/** how often a process that does not send (not activated yet, or another process holds the lease) looks again */
const NOT_SENDER_POLL_MS = 1000;

export type ReportedCode =
  | 'TSE_FAILURE' | 'TSE_RECOVERED' | 'SIGNATURE_DEVICE_FAILURE' | 'SIGNATURE_DEVICE_RECOVERED'
  | 'TSE_ACTIVATED' | 'DISK_NEARLY_FULL' | 'DISK_OK';

export interface QueuedEvent {
  /** random, to remove exactly what was sent */
  id: string;
  /** the register (RN of this instance) the event belongs to */
  rn: string;
  eventCode: ReportedCode;
  /** ISO time it was seen */
  at: string;
  detail?: string;
}

export interface EventReporterOptions {
  retryMinMs?: number;
  retryMaxMs?: number;
  /** how often the disk is checked (ms, default 60000); 0: never */
  diskCheckMs?: number;
  /** thresholds (fractions): nearly full at quotaFull of DiskQuota or below freeLow free; OK again below quotaOk and above freeOk */
  quotaFull?: number;
  quotaOk?: number;
  freeLow?: number;
  freeOk?: number;
}

export function eventReporterOptionsOf(env: NodeJS.ProcessEnv): EventReporterOptions {
  const out: EventReporterOptions = { ...retryOptionsOf(env) };
  const disk = Number(env.EFR_DISK_CHECK_MS);
  if (env.EFR_DISK_CHECK_MS !== undefined && Number.isInteger(disk) && disk >= 0) out.diskCheckMs = disk;
  return out;
}

interface ActivationRef {
  portalUrl: string;
  token: string;
}

function activationOf(text: string | undefined): ActivationRef | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { portalUrl?: unknown; token?: unknown };
    return typeof v.portalUrl === 'string' && typeof v.token === 'string' ? { portalUrl: v.portalUrl.replace(/\/+$/, ''), token: v.token } : undefined;
  } catch {
    return undefined;
  }
}

function queueOf(text: string | undefined): QueuedEvent[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((e): e is QueuedEvent => typeof e === 'object' && e !== null && typeof (e as QueuedEvent).id === 'string' && typeof (e as QueuedEvent).rn === 'string') : [];
  } catch {
    return [];
  }
}

/** What the disk looks like now: the share of DiskQuota used (if set) and the file system's free share. */
export interface DiskReading {
  quotaUsed?: number;
  free?: number;
}

export class EventReporter {
  private timer: NodeJS.Timeout | undefined;
  private diskTimer: NodeJS.Timeout | undefined;
  private started = false;
  private closed = false;
  /** appends, one after the other */
  private appending: Promise<void> = Promise.resolve();
  private sending: Promise<void> | undefined;
  private retryMs = 0;
  private failures = 0;
  private diskChecking: Promise<void> | undefined;
  /** a wake came while a send was under way: send again after it */
  private wanted = false;
  /** a send is due at once (not a retry pause) */
  private soon = false;
  /** events this process delivered since the start */
  sent = 0;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: EventReporterOptions = {},
    private readonly log?: pino.Logger,
  ) {}

  /** Queues an event of a register (durably, in the background) and wakes the sender. Never throws. */
  report(rn: string, eventCode: ReportedCode, detail?: string): void {
    void this.queue(rn, eventCode, detail).catch(() => undefined);
  }

  /** Queues an event and resolves once it is stored (rejects when it could not be). */
  private queue(rn: string, eventCode: ReportedCode, detail?: string): Promise<void> {
    const event: QueuedEvent = {
      id: randomBytes(8).toString('hex'),
      rn,
      eventCode,
      at: this.ctx.clock.now().toISOString(),
      ...(detail ? { detail: detail.slice(0, DETAIL_MAX) } : {}),
    };
    const stored = this.appending.then(() => this.append(event));
    this.appending = stored.catch((e: unknown) => {
      this.log?.error({ err: e, type: 'RECORDER_EVENT', eventCode, rn }, 'an event could not be queued for the portal');
    });
    void this.appending.then(() => this.wake());
    return stored;
  }

  private async append(event: QueuedEvent): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const text = await this.ctx.store.getSetting(EVENTS_KEY);
      let queue = [...queueOf(text), event];
      if (queue.length > MAX_QUEUED) {
        const dropped = queue.length - MAX_QUEUED;
        queue = queue.slice(dropped);
        this.log?.warn({ type: 'RECORDER_EVENT', dropped }, 'the event queue is full: the oldest events are dropped');
      }
      if (await this.ctx.store.swapSetting(EVENTS_KEY, text, JSON.stringify(queue))) {
        this.log?.info({ type: 'RECORDER_EVENT', eventCode: event.eventCode, rn: event.rn }, 'event queued for the portal');
        return;
      }
    }
    throw new Error('the event queue kept changing under this process');
  }

  /** Events still queued (all registers). */
  async queued(): Promise<QueuedEvent[]> {
    return queueOf(await this.ctx.store.getSetting(EVENTS_KEY));
  }

  /** Starts sending (what an earlier run left queued too) and the disk checks. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.wake();
    const every = this.options.diskCheckMs ?? 60_000;
    if (every > 0) {
      const check = (): void => {
        void this.checkDisk().catch((e: unknown) => this.log?.warn({ err: e, type: 'RECORDER_EVENT' }, 'the disk check failed'));
      };
      this.diskTimer = setInterval(check, every);
      this.diskTimer.unref();
      check();
    }
  }

  /** Stops the timers; waits for the appends and a send under way (nothing reported is lost). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.diskTimer) clearInterval(this.diskTimer);
    await this.appending;
    await this.diskChecking?.catch(() => undefined);
    await this.sending?.catch(() => undefined);
  }

  /** Sends now unless a retry pause is running (then at its end). */
  private wake(): void {
    if (!this.started || this.closed) return;
    if (this.sending) {
      this.wanted = true;
      return;
    }
    if (this.timer && this.retryMs > 0) return;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.soon = ms === 0;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.soon = false;
      this.wanted = false;
      this.sending = this.sendAll().finally(() => {
        this.sending = undefined;
        if (this.wanted) this.wake();
      });
    }, ms);
    this.timer.unref();
  }

  private backoff(): void {
    const min = this.options.retryMinMs ?? 1000;
    const max = this.options.retryMaxMs ?? 60_000;
    this.failures += 1;
    this.retryMs = Math.min(max, min * 2 ** Math.min(this.failures - 1, 20));
    this.schedule(this.retryMs);
  }

  /** One round: every activated register's queued events in order, in batches; then again when more came. */
  private async sendAll(): Promise<void> {
    try {
      // several processes on one journal share the queue: only the one sending the archive (the recorder's lease) sends it
      if (this.ctx.recorder && !(await this.ctx.recorder.sends())) {
        this.schedule(NOT_SENDER_POLL_MS);
        return;
      }
      for (;;) {
        const queue = await this.queued();
        const waiting = new Set<string>();
        let delivered = 0;
        for (const rn of new Set(queue.map((e) => e.rn))) {
          const activation = activationOf(await this.ctx.store.getSetting(activationKey(rn)));
          if (!activation) {
            waiting.add(rn);
            continue;
          }
          const batch = queue.filter((e) => e.rn === rn).slice(0, EVENTS_PER_BATCH);
          const answer = await postJson(`${activation.portalUrl}/api/v1/recorder/events`, {
            // the id lets the portal ignore an event it has already taken (a batch sent again)
            events: batch.map((e) => ({ id: e.id, eventCode: e.eventCode, at: e.at, ...(e.detail ? { detail: e.detail } : {}) })),
          }, { token: activation.token, ...this.proxyOption() });
          if (answer.status === 400) {
            this.log?.warn({ type: 'RECORDER_EVENT', rn, status: 400, answer: answer.body }, 'the portal refused these events; they are dropped');
          } else if (answer.status !== 200) {
            throw new Error(`the portal answered ${answer.status} to the events of ${rn}: ${JSON.stringify(answer.body).slice(0, 300)}`);
          } else {
            this.sent += batch.length;
          }
          await this.remove(new Set(batch.map((e) => e.id)));
          delivered += batch.length;
        }
        this.failures = 0;
        this.retryMs = 0;
        // more came meanwhile, or a register had more than a batch: go on; only registers waiting for their
        // activation left: look again in a while
        const left = delivered === 0 ? queue : await this.queued();
        if (left.length > 0 && left.every((e) => waiting.has(e.rn))) {
          this.schedule(WAITING_POLL_MS);
          return;
        }
        if (left.length === 0) return;
      }
    } catch (e) {
      this.log?.warn({ err: e, type: 'RECORDER_EVENT' }, 'events could not be sent to the portal; tried again later');
      this.backoff();
    }
  }

  private async remove(ids: ReadonlySet<string>): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const text = await this.ctx.store.getSetting(EVENTS_KEY);
      const queue = queueOf(text);
      if (await this.ctx.store.swapSetting(EVENTS_KEY, text, JSON.stringify(queue.filter((e) => !ids.has(e.id))))) return;
    }
    throw new Error('the event queue kept changing under this process');
  }

  private proxyOption(): { proxy?: string } {
    const proxy = this.ctx.profiles.settings('def').raw.get('proxy');
    return proxy ? { proxy } : {};
  }

  /** The disk now: DiskQuota's share used (when a quota is set) and the file system's free share. */
  async readDisk(): Promise<DiskReading> {
    const out: DiskReading = {};
    const quota = diskQuotaBytes(this.ctx);
    if (quota !== undefined && quota > 0) out.quotaUsed = diskMonitor(this.ctx).usage() / quota;
    try {
      const fs = await statfs(this.ctx.dataDir);
      if (fs.blocks > 0) out.free = fs.bavail / fs.blocks;
    } catch {
      // no file system figures (unusual platforms): the quota alone
    }
    return out;
  }

  /** Compares the disk with the thresholds and reports a crossing (once). */
  checkDisk(reading?: DiskReading): Promise<void> {
    this.diskChecking ??= (async () => {
      try {
        const r = reading ?? (await this.readDisk());
        const quotaFull = this.options.quotaFull ?? 0.9;
        const quotaOk = this.options.quotaOk ?? 0.85;
        const freeLow = this.options.freeLow ?? 0.1;
        const freeOk = this.options.freeOk ?? 0.12;
        // the disk is this machine's: each host keeps its own state (processes on several machines share the journal)
        const key = `${DISK_STATE_KEY}:${hostname()}`;
        const was = (await this.ctx.store.getSetting(key)) === 'nearly-full';
        const full = (r.quotaUsed !== undefined && r.quotaUsed >= quotaFull) || (r.free !== undefined && r.free < freeLow);
        const ok = (r.quotaUsed === undefined || r.quotaUsed < quotaOk) && (r.free === undefined || r.free > freeOk);
        const detail = [
          r.quotaUsed !== undefined ? `${Math.round(r.quotaUsed * 100)} % of DiskQuota used` : '',
          r.free !== undefined ? `${Math.round(r.free * 1000) / 10} % of the file system free` : '',
          `host ${hostname()}`,
        ].filter(Boolean).join(', ');
        // the event is stored before the state: a crash between them reports the crossing again, never loses it
        if (!was && full) {
          await this.queue('def', 'DISK_NEARLY_FULL', detail);
          await this.ctx.store.putSetting(key, 'nearly-full');
        } else if (was && ok) {
          await this.queue('def', 'DISK_OK', detail);
          await this.ctx.store.putSetting(key, 'ok');
        }
      } finally {
        this.diskChecking = undefined;
      }
    })();
    return this.diskChecking;
  }

  /** The TSE state of a register changed with a committed record (see fiscalStateEvents). */
  fiscalStateChanged(rn: string, events: ReadonlyArray<{ code: ReportedCode; detail: string }>): void {
    for (const e of events) this.report(rn, e.code, e.detail);
  }

  /** Waits until the appends so far are stored and the send they wake is over (not a retry pause; tests). */
  async settled(): Promise<void> {
    await this.appending;
    for (let i = 0; i < 500 && !this.closed && (this.sending || this.soon || this.wanted); i++) {
      await (this.sending?.catch(() => undefined) ?? new Promise((resolve) => setTimeout(resolve, 5)));
    }
  }
}

