/**
 * The recorder: activation of the instance at the portal by the profile's badge,
 * and the archive of the journal of every register to the portal, shared by all processes on one journal.
 *
 * Activation: after POST /profile with a Badge (and at start when a Badge is set but the instance is not
 * activated), after `Recorder_init` ms (default 10000), the badge and what the instance knows are sent to
 * `<Portal_Url>/api/v1/recorder/activate`. The answer's Cfg is applied as POST /cfg does; its credential is
 * kept in the store's settings (`recorder:activation`) with the portal's register number; the badge is locked.
 * An unknown badge leaves the Recorder inactive with a warning; an unreachable portal is tried again (backoff).
 * The other registers of the instance (Multi POS `TaxId$TL_TT`, Multi Company) are activated with the same
 * badge and their own TaxId/TL/TT when they first have records to send (`recorder:activation:<RN>`); the portal
 * names them by their register number. Their Cfg stays theirs (the central Cfg goes to `def` only).
 *
 * Archive: the journal is the queue. The last SQ the portal confirmed is kept in the store's settings
 * (`recorder:sq:<RN>`); records after it are sent in SQ order in batches (up to 500 records or 1 MiB), one batch
 * at a time, from one timer (never from the request path); a failure is tried again after 1 s, 2 s, ... up to 60 s.
 * After a confirmation the archive mark (kind `portal`) lets cleaning remove what the portal holds.
 *
 * Several processes on one journal (PostgreSQL): one of them sends, the holder of the lease `recorder:lease` in
 * the shared settings (taken by compare-and-set, renewed while it runs, given back at close, taken over by
 * another process when it lapses after a crash). The others read the activation and the confirmed positions
 * from the store for /state. What a register's head is comes from the store, not from this process's memory,
 * so records written by any process are sent.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type pino from 'pino';
import type { Obj } from '../codec/index.js';
import { saveCfg } from '../cfg.js';
import type { ServiceContext } from '../context.js';
import { markArchived } from '../maintenance/archive-marks.js';
import { ACTIVATION_KEY, LEASE_KEY, activationKey, confirmedKey } from './keys.js';
import { closeProxyAgents, postJson } from './portal-client.js';
import { activationHandleFields, archiveRecordExtras } from './receipt-handles.js';

export const BATCH_RECORDS = 500;
export const BATCH_BYTES = 1024 * 1024;
const IDLE_MS = 250;
/** how often a process that does not send reads the shared progress */
const WATCH_MS = 1000;
const DEFAULT_LEASE_MS = 15_000;

export interface Activation {
  portalUrl: string;
  token: string;
  /** the portal's register number of the register */
  registerNumber: string;
  badge: string;
  at: string;
}

export interface RecorderStatus {
  online: boolean;
  recorder: 'online' | 'inactive';
  /** records this process sent and the portal confirmed since the start */
  sent: number;
  /** records of the activated registers not yet confirmed */
  queued: number;
  /** failed attempts pending a retry (of the sending process) */
  retry: number;
  warning?: string;
}

export interface RecorderOptions {
  /** first and longest pause between retries (ms); default 1000 and 60000 (EFR_RECORDER_RETRY_MS=min,max) */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** the portal address when the profile names none (EFR_PORTAL_URL) */
  portalUrl?: string;
  /** how long the sending process's lease lasts without renewal (EFR_RECORDER_LEASE_MS, default 15000) */
  leaseMs?: number;
}

/** The pauses between retries of calls to the portal from EFR_RECORDER_RETRY_MS=min,max (the recorder's and the events'). */
export function retryOptionsOf(env: NodeJS.ProcessEnv): { retryMinMs?: number; retryMaxMs?: number } {
  const m = /^(\d+),(\d+)$/.exec(env.EFR_RECORDER_RETRY_MS ?? '');
  return m ? { retryMinMs: Number(m[1]), retryMaxMs: Math.max(Number(m[1]), Number(m[2])) } : {};
}

export function recorderOptionsOf(env: NodeJS.ProcessEnv): RecorderOptions {
  const out: RecorderOptions = { ...retryOptionsOf(env) };
  if (env.EFR_PORTAL_URL) out.portalUrl = env.EFR_PORTAL_URL;
  const lease = Number(env.EFR_RECORDER_LEASE_MS);
  if (Number.isInteger(lease) && lease >= 500) out.leaseMs = lease;
  return out;
}

interface Lease {
  holder: string;
  /** ms since the epoch */
  until: number;
  /** the holder's pending retries, for the /state of the other processes */
  retry: number;
}

function leaseOf(text: string | undefined): Lease | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<Lease>;
    return typeof v.holder === 'string' && typeof v.until === 'number' ? { holder: v.holder, until: v.until, retry: typeof v.retry === 'number' ? v.retry : 0 } : undefined;
  } catch {
    return undefined;
  }
}

/** TaxId, TL and TT of a Multi POS / Multi Company register number `TaxId$TL_TT`. */
export function identityOfRn(rn: string): { taxId: string; tl: string; tt: string } | undefined {
  const m = /^([^$]+)\$([^_]+)_(.+)$/.exec(rn);
  return m ? { taxId: m[1] as string, tl: m[2] as string, tt: m[3] as string } : undefined;
}

export class Recorder {
  /** the instance's activation (register def); the other registers' in `others` */
  private activation: Activation | undefined;
  private readonly others = new Map<string, Activation>();
  /** registers whose activation the portal refused, to the time it is asked again */
  private readonly refused = new Map<string, number>();
  private warning: string | undefined;
  private sent = 0;
  /** registers whose last batch failed: attempts, when the next is due, and why (a refusal is parked longer) */
  private readonly failing = new Map<string, { attempts: number; until: number; why?: string }>();
  /** the store's heads and confirmed positions as last read (RecQueued counts this process's newer heads too) */
  private readonly heads = new Map<string, number>();
  private readonly confirmed = new Map<string, number>();
  private sharedRetry = 0;
  private lastWatch = 0;
  /** the confirmed positions in memory are the store's: read while this process held the lease, which it still holds */
  private confirmedTrusted = false;
  private readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private leaseUntil = 0;
  private leaseRetry = 0;
  private timer: NodeJS.Timeout | undefined;
  private activationTimer: NodeJS.Timeout | undefined;
  private activationFailures = 0;
  private busy: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: RecorderOptions = {},
    private readonly log?: pino.Logger,
  ) {}

  /** Loads the activation; starts the archive or schedules the activation. */
  async start(): Promise<void> {
    await this.adoptActivation();
    if (!this.activation) this.profileSaved();
    this.schedule(0);
  }

  /** The instance's activation (def), when there is one: the portal address and credential. */
  current(): Activation | undefined {
    return this.activation;
  }

  /** Reads an activation another process (or an earlier run) stored. */
  private async adoptActivation(): Promise<void> {
    if (this.activation) return;
    const text = await this.ctx.store.getSetting(ACTIVATION_KEY);
    if (!text) return;
    this.activation = JSON.parse(text) as Activation;
    this.ctx.profiles.lockedBadge = this.activation.badge;
    this.warning = undefined;
    if (this.activationTimer) clearTimeout(this.activationTimer);
  }

  /** failed attempts pending a retry, over all registers */
  private get retry(): number {
    let n = 0;
    for (const f of this.failing.values()) n += f.attempts;
    return n;
  }

  status(): RecorderStatus {
    const online = this.activation !== undefined;
    const retry = this.leaseUntil > Date.now() ? this.retry : this.sharedRetry;
    const warning = this.warning ?? [...this.failing.values()].find((f) => f.why)?.why;
    return {
      online: online && retry === 0,
      recorder: online ? 'online' : 'inactive',
      sent: this.sent,
      queued: online ? this.queuedNow() : 0,
      retry,
      ...(warning ? { warning } : {}),
    };
  }

  private queuedNow(): number {
    const rns = new Set([...this.heads.keys(), ...this.ctx.registers.list().map((r) => r.state.rn)]);
    let queued = 0;
    for (const rn of rns) {
      const head = Math.max(this.heads.get(rn) ?? 0, this.ctx.registers.get(rn)?.state.sq ?? 0);
      queued += Math.max(0, head - (this.confirmed.get(rn) ?? 0));
    }
    return queued;
  }

  private setting(name: string): string | undefined {
    return this.ctx.profiles.settings('def').raw.get(name.toLowerCase());
  }

  private portalUrl(): string | undefined {
    const url = this.setting('Portal_Url') ?? this.options.portalUrl;
    return url ? url.replace(/\/+$/, '') : undefined;
  }

  private proxyOption(): { proxy?: string } {
    const proxy = this.setting('Proxy');
    return proxy ? { proxy } : {};
  }

  private trace(msg: string, detail: Record<string, unknown>): void {
    const flag = this.setting('Recorder_Log');
    if (flag && !['0', 'false', 'no'].includes(flag.toLowerCase())) this.log?.info({ type: 'RECORDER', ...detail }, msg);
  }

  /** After POST /profile (def) and at start: a Badge and no activation yet starts it after Recorder_init ms. */
  profileSaved(): void {
    if (this.closed || this.activation) return;
    const badge = this.ctx.profiles.own('def').Badge;
    if (!badge) return;
    if (this.activationTimer) clearTimeout(this.activationTimer);
    this.activationFailures = 0;
    const init = Number(this.setting('Recorder_init') ?? '10000');
    this.activationTimer = setTimeout(() => void this.activate(), Number.isFinite(init) && init >= 0 ? init : 10_000);
  }

  private backoff(failures: number): number {
    const min = this.options.retryMinMs ?? 1000;
    const max = this.options.retryMaxMs ?? 60_000;
    return Math.min(max, min * 2 ** Math.min(20, Math.max(0, failures - 1)));
  }

  /** The activation call; what the portal answered, or undefined when it refused (with the warning set). */
  private async callActivate(url: string, body: Record<string, unknown>, label = ''): Promise<Activation & { cfg?: Obj } | undefined> {
    const answer = await postJson(`${url}/api/v1/recorder/activate`, body, this.proxyOption());
    this.trace('activation answered', { status: answer.status, registerNumber: answer.body.registerNumber });
    if (answer.status === 200 && typeof answer.body.token === 'string' && typeof answer.body.registerNumber === 'string') {
      const cfg = answer.body.cfg;
      return {
        portalUrl: url,
        token: answer.body.token,
        registerNumber: answer.body.registerNumber,
        badge: String(body.badge),
        at: this.ctx.clock.now().toISOString(),
        ...(typeof cfg === 'object' && cfg !== null ? { cfg: cfg as Obj } : {}),
      };
    }
    if (answer.status >= 400 && answer.status < 500) {
      this.warning = `Recorder: the portal refused the activation (${answer.status})${label ? ` of register ${label}` : ''}: ${String(answer.body.errorMessage ?? '')}`.trim();
      this.log?.warn({ type: 'RECORDER', status: answer.status, answer: answer.body.errorMessage }, 'the portal refused the activation');
      return undefined;
    }
    throw new Error(`the portal answered ${answer.status}`);
  }

  private async activate(): Promise<void> {
    this.activationTimer = undefined;
    if (this.closed) return;
    await this.adoptActivation().catch(() => undefined);
    if (this.activation) return;
    const profile = this.ctx.profiles.own('def');
    const badge = profile.Badge;
    if (!badge) return;
    const url = this.portalUrl();
    if (!url) {
      this.warning = 'Recorder: no portal address (attribute Portal_Url or EFR_PORTAL_URL); the instance stays inactive';
      return;
    }
    const parts = badge.split('/');
    const tl = parts[1] || this.setting('TL');
    const tt = parts[2] || this.setting('TT');
    const reg = this.ctx.registers.get('def');
    const country = reg ? (reg.state.cfg.Cmp as Obj | undefined)?.Ctry : undefined;
    const body: Record<string, unknown> = {
      badge,
      versionNumber: this.ctx.version,
      isCloudEFR: this.ctx.cloud !== undefined,
      ...(profile.TaxId ? { taxId: profile.TaxId } : {}),
      ...(tl ? { tl } : {}),
      ...(tt ? { tt } : {}),
      ...(typeof country === 'string' ? { countryCode: country } : {}),
      // digital receipts: the portal finds this register's receipts by its handle
      ...activationHandleFields(this.ctx, 'def'),
      // without TL and TT the register is named after the instance key
      ...(tl && tt ? {} : { registerNumber: `${profile.TaxId ?? 'EFR'}$${this.ctx.signer.keyId}` }),
    };
    try {
      const answered = await this.callActivate(url, body);
      if (this.closed || !answered) return;
      const { cfg, ...activation } = answered;
      if (cfg) {
        const def = await this.ctx.registers.getOrCreate('def');
        await saveCfg(this.ctx, def, cfg);
      }
      // another process may have activated meanwhile: the first stored activation is the instance's
      if (!(await this.ctx.store.swapSetting(ACTIVATION_KEY, undefined, JSON.stringify(activation)))) {
        await this.adoptActivation();
        return;
      }
      this.activation = activation;
      this.ctx.profiles.lockedBadge = badge;
      this.warning = undefined;
      this.log?.info({ type: 'RECORDER', registerNumber: activation.registerNumber }, 'the instance is activated at the portal: Recorder online');
      this.schedule(0);
    } catch (e) {
      if (this.closed) return;
      this.activationFailures += 1;
      this.warning = `Recorder: the portal cannot be reached (${e instanceof Error ? e.message : String(e)}); trying again`;
      this.activationTimer = setTimeout(() => void this.activate(), this.backoff(this.activationFailures));
    }
  }

  /** The activation of a register other than def: stored, or asked of the portal with the instance's badge. */
  private async activationOf(rn: string, main: Activation): Promise<Activation | undefined> {
    if (rn === 'def') return main;
    const known = this.others.get(rn);
    if (known) return known;
    const text = await this.ctx.store.getSetting(activationKey(rn));
    if (text) {
      const stored = JSON.parse(text) as Activation;
      this.others.set(rn, stored);
      return stored;
    }
    if ((this.refused.get(rn) ?? 0) > Date.now()) return undefined;
    const id = identityOfRn(rn);
    const base = main.badge.split('/')[0] as string;
    const body: Record<string, unknown> = {
      badge: base,
      versionNumber: this.ctx.version,
      isCloudEFR: this.ctx.cloud !== undefined,
      ...activationHandleFields(this.ctx, rn),
      ...(id ? { taxId: id.taxId, tl: id.tl, tt: id.tt, registerNumber: rn } : { registerNumber: `${main.registerNumber}/${rn}` }),
    };
    const answered = await this.callActivate(main.portalUrl, body, rn);
    if (!answered) {
      this.refused.set(rn, Date.now() + (this.options.retryMaxMs ?? 60_000));
      return undefined;
    }
    const { cfg: _central, ...activation } = answered;
    await this.ctx.store.putSetting(activationKey(rn), JSON.stringify(activation));
    this.others.set(rn, activation);
    this.log?.info({ type: 'RECORDER', rn, registerNumber: activation.registerNumber }, 'register activated at the portal');
    return activation;
  }

  /** Takes or renews the sending lease; true while this process holds it. */
  private async holdLease(): Promise<boolean> {
    const now = Date.now();
    const ms = this.options.leaseMs ?? DEFAULT_LEASE_MS;
    if (this.leaseUntil - now > (ms * 2) / 3 && this.leaseRetry === this.retry) return true;
    const text = await this.ctx.store.getSetting(LEASE_KEY);
    const current = leaseOf(text);
    if (current && current.holder !== this.holder && current.until > now) {
      this.leaseUntil = 0;
      this.confirmedTrusted = false;
      this.sharedRetry = current.retry;
      return false;
    }
    const next: Lease = { holder: this.holder, until: now + ms, retry: this.retry };
    if (await this.ctx.store.swapSetting(LEASE_KEY, text, JSON.stringify(next))) {
      if (this.leaseUntil <= now) this.log?.info({ type: 'RECORDER', holder: this.holder }, 'this process sends the journal archive');
      this.leaseUntil = next.until;
      this.leaseRetry = this.retry;
      return true;
    }
    this.leaseUntil = 0;
    this.confirmedTrusted = false;
    return false;
  }

  /** True while this process sends to the portal (it holds, or now took, the lease); the event queue asks it too. */
  async sends(): Promise<boolean> {
    return !this.closed && this.activation !== undefined && (await this.holdLease());
  }

  private async releaseLease(): Promise<void> {
    if (this.leaseUntil <= Date.now()) return;
    const text = await this.ctx.store.getSetting(LEASE_KEY);
    if (leaseOf(text)?.holder === this.holder) await this.ctx.store.swapSetting(LEASE_KEY, text, JSON.stringify({ holder: '', until: 0, retry: 0 }));
    this.leaseUntil = 0;
    this.confirmedTrusted = false;
  }

  private async confirmedOf(rn: string): Promise<number> {
    const text = await this.ctx.store.getSetting(confirmedKey(rn));
    const sq = text ? Number(text) : 0;
    this.confirmed.set(rn, sq);
    return sq;
  }

  /**
   * Registers with records the portal has not confirmed; updates RecQueued. The heads: on a journal of one
   * process its memory, else the store's. The confirmed positions: while this process has held the lease since
   * it last read them, its own (nobody else moves them), else read from the store.
   */
  private async backlog(holding: boolean): Promise<Array<{ rid: number; rn: string; sq: number; confirmed: number }>> {
    const out: Array<{ rid: number; rn: string; sq: number; confirmed: number }> = [];
    const heads = this.ctx.store.shared ? await this.ctx.store.heads() : this.ctx.registers.list().map((r) => ({ rid: r.state.rid, rn: r.state.rn, sq: r.state.sq }));
    const trusted = holding && this.confirmedTrusted;
    for (const h of heads) {
      this.heads.set(h.rn, h.sq);
      const known = trusted ? this.confirmed.get(h.rn) : undefined;
      const confirmed = known ?? (await this.confirmedOf(h.rn));
      if (h.sq > confirmed) out.push({ ...h, confirmed });
    }
    this.confirmedTrusted = holding;
    this.lastWatch = Date.now();
    return out;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.busy = this.tick()
        .catch((e: unknown) => {
          // the store is away (a database outage): tried again later
          this.log?.warn({ type: 'RECORDER', err: e instanceof Error ? e.message : String(e) }, 'recorder step failed');
          this.schedule(WATCH_MS);
        })
        .finally(() => {
          this.busy = undefined;
        });
    }, ms);
  }

  /** One step: adopt an activation; send a batch of each register with a backlog when this process holds the lease. */
  private async tick(): Promise<void> {
    if (this.closed) return;
    await this.adoptActivation();
    const main = this.activation;
    if (!main) return this.schedule(WATCH_MS);
    if (!(await this.holdLease())) {
      this.confirmedTrusted = false;
      if (Date.now() - this.lastWatch >= WATCH_MS) await this.backlog(false);
      return this.schedule(WATCH_MS);
    }
    const pending = await this.backlog(true);
    for (const rn of this.failing.keys()) if (!pending.some((p) => p.rn === rn)) this.failing.delete(rn);
    let next = IDLE_MS;
    for (const p of pending) {
      if (this.closed) return;
      // a register whose batch failed waits for its own retry; the others go on
      const failed = this.failing.get(p.rn);
      if (failed && failed.until > Date.now()) {
        next = Math.min(next, failed.until - Date.now());
        continue;
      }
      // the lease is renewed before each batch (a tick may outlast it); lost: another process sends now
      if (!(await this.holdLease())) return this.schedule(WATCH_MS);
      if ((await this.sendBatch(main, p.rid, p.rn, p.confirmed)) === 'more') next = 0;
    }
    this.schedule(Math.max(0, next));
  }

  /** Sends one batch of a register after `confirmed`: 'more' when it has more to send, 'done', or 'failed'. */
  private async sendBatch(main: Activation, rid: number, rn: string, confirmed: number): Promise<'more' | 'done' | 'failed'> {
    const records: Array<{ sq: number; data: string; hash: string; d: string; th?: string; sig?: string }> = [];
    let bytes = 0;
    let more = false;
    for await (const r of this.ctx.store.range(rid, confirmed + 1)) {
      if (records.length >= BATCH_RECORDS || (records.length > 0 && bytes + r.data.length > BATCH_BYTES)) {
        more = true;
        break;
      }
      records.push({ sq: r.sq, data: r.data, hash: r.hash.toString('hex'), d: r.d, ...archiveRecordExtras(r) });
      bytes += r.data.length + 100 + r.sig.length * 2;
    }
    if (records.length === 0) return 'done';
    try {
      const activation = await this.activationOf(rn, main);
      // a register the portal refused is not sent (the warning says why); the others go on
      if (!activation) return 'done';
      const answer = await postJson(`${activation.portalUrl}/api/v1/recorder/archive`, { records }, { token: activation.token, ...this.proxyOption() });
      this.trace('archive answered', { rn, status: answer.status, from: records[0]?.sq, to: records[records.length - 1]?.sq });
      if (answer.status >= 400 && answer.status < 500 && answer.status !== 401 && answer.status !== 408 && answer.status !== 429) {
        // refused for what the batch holds (409: the portal holds other records for these SQs): parked for the
        // longest pause, named in RecorderWarning; the other registers go on
        const why = `Recorder: the portal refuses the archive of register ${rn} (${answer.status}): ${String(answer.body.errorMessage ?? '')}`.trim();
        this.log?.error({ type: 'RECORDER', rn, status: answer.status, answer: answer.body }, 'the portal refuses an archive batch');
        this.failed(rn, this.options.retryMaxMs ?? 60_000, why);
        return 'failed';
      }
      if (answer.status !== 200) throw new Error(`the portal answered ${answer.status}`);
      const last = (records[records.length - 1] as { sq: number }).sq;
      // only forward, by compare-and-set: a process that lost the lease meanwhile cannot move the position back
      const text = await this.ctx.store.getSetting(confirmedKey(rn));
      if (last > (text ? Number(text) : 0) && (await this.ctx.store.swapSetting(confirmedKey(rn), text, String(last)))) this.confirmed.set(rn, last);
      await markArchived(this.ctx.store, rn, { sq: last, at: this.ctx.clock.now().toISOString(), kind: 'portal' });
      this.sent += records.length;
      this.failing.delete(rn);
      return more ? 'more' : 'done';
    } catch (e) {
      const attempts = (this.failing.get(rn)?.attempts ?? 0) + 1;
      this.log?.warn({ type: 'RECORDER', rn, err: e instanceof Error ? e.message : String(e), retry: attempts }, 'the archive batch failed; it is sent again');
      this.failed(rn, this.backoff(attempts));
      return 'failed';
    }
  }

  private failed(rn: string, pauseMs: number, why?: string): void {
    const attempts = (this.failing.get(rn)?.attempts ?? 0) + 1;
    this.failing.set(rn, { attempts, until: Date.now() + pauseMs, ...(why ? { why } : {}) });
  }

  /** Stops the timers, waits for a batch in flight and gives the lease back. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.activationTimer) clearTimeout(this.activationTimer);
    await this.busy?.catch(() => undefined);
    await this.releaseLease().catch(() => undefined);
    await closeProxyAgents();
  }
}
