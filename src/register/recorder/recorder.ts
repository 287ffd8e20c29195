/**
 * The recorder (issue 11, points 1 and 2): activation of the instance at the portal by the profile's badge, and
 * the archive of the journal to the portal.
 *
 * Activation: after POST /profile with a Badge (and at start when a Badge is set but the instance is not
 * activated), after `Recorder_init` ms (default 10000), the badge and what the instance knows are sent to
 * `<Portal_Url>/api/v1/recorder/activate`. The answer's Cfg is applied as POST /cfg does; its credential is
 * kept in the store's settings (`recorder:activation`) with the portal's register number; the badge is locked.
 * An unknown badge leaves the Recorder inactive with a warning; an unreachable portal is tried again (backoff).
 *
 * Archive: the journal is the queue. The last SQ the portal confirmed is kept in the store's settings
 * (`recorder:sq:<RN>`); records after it are sent in SQ order in batches (up to 500 records or 1 MiB), one batch
 * at a time, from one timer (never from the request path); a failure is tried again after 1 s, 2 s, ... up to 60 s.
 * After a confirmation the archive mark (kind `portal`) lets cleaning remove what the portal holds.
 */
import type pino from 'pino';
import type { Obj } from '../codec/index.js';
import { saveCfg } from '../cfg.js';
import type { ServiceContext } from '../context.js';
import { markArchived } from '../maintenance/archive-marks.js';
import { closeProxyAgents, postJson } from './portal-client.js';

export const ACTIVATION_KEY = 'recorder:activation';
export const confirmedKey = (rn: string): string => `recorder:sq:${rn}`;
export const BATCH_RECORDS = 500;
export const BATCH_BYTES = 1024 * 1024;
const IDLE_MS = 250;

export interface Activation {
  portalUrl: string;
  token: string;
  /** the portal's register number of the instance's register (def) */
  registerNumber: string;
  badge: string;
  at: string;
}

export interface RecorderStatus {
  online: boolean;
  recorder: 'online' | 'inactive';
  /** records the portal confirmed since the start */
  sent: number;
  /** records not yet confirmed */
  queued: number;
  /** failed attempts pending a retry */
  retry: number;
  warning?: string;
}

export interface RecorderOptions {
  /** first and longest pause between retries (ms); default 1000 and 60000 (EFR_RECORDER_RETRY_MS=min,max) */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** the portal address when the profile names none (EFR_PORTAL_URL) */
  portalUrl?: string;
}

export function recorderOptionsOf(env: NodeJS.ProcessEnv): RecorderOptions {
  const out: RecorderOptions = {};
  const m = /^(\d+),(\d+)$/.exec(env.EFR_RECORDER_RETRY_MS ?? '');
  if (m) {
    out.retryMinMs = Number(m[1]);
    out.retryMaxMs = Number(m[2]);
  }
  if (env.EFR_PORTAL_URL) out.portalUrl = env.EFR_PORTAL_URL;
  return out;
}

export class Recorder {
  private activation: Activation | undefined;
  private warning: string | undefined;
  private sent = 0;
  private retry = 0;
  private confirmed = new Map<string, number>();
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

  /** Loads the activation and the confirmed SQ; starts the archive or schedules the activation. */
  async start(): Promise<void> {
    const text = await this.ctx.store.getSetting(ACTIVATION_KEY);
    if (text) {
      this.activation = JSON.parse(text) as Activation;
      this.ctx.profiles.lockedBadge = this.activation.badge;
    }
    for (const reg of this.ctx.registers.list()) await this.loadConfirmed(reg.state.rn);
    if (this.activation) this.schedule(0);
    else this.profileSaved();
  }

  private async loadConfirmed(rn: string): Promise<number> {
    let sq = this.confirmed.get(rn);
    if (sq === undefined) {
      const text = await this.ctx.store.getSetting(confirmedKey(rn));
      sq = text ? Number(text) : 0;
      this.confirmed.set(rn, sq);
    }
    return sq;
  }

  status(): RecorderStatus {
    let queued = 0;
    if (this.activation) {
      const reg = this.ctx.registers.get('def');
      if (reg) queued = Math.max(0, reg.state.sq - (this.confirmed.get('def') ?? 0));
    }
    const online = this.activation !== undefined;
    return {
      online: online && this.retry === 0,
      recorder: online ? 'online' : 'inactive',
      sent: this.sent,
      queued,
      retry: this.retry,
      ...(this.warning ? { warning: this.warning } : {}),
    };
  }

  private setting(name: string): string | undefined {
    return this.ctx.profiles.settings('def').raw.get(name.toLowerCase());
  }

  private portalUrl(): string | undefined {
    const url = this.setting('Portal_Url') ?? this.options.portalUrl;
    return url ? url.replace(/\/+$/, '') : undefined;
  }

  private proxy(): string | undefined {
    return this.setting('Proxy') || undefined;
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

  private async activate(): Promise<void> {
    this.activationTimer = undefined;
    if (this.closed || this.activation) return;
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
      // without TL and TT the register is named after the instance key
      ...(tl && tt ? {} : { registerNumber: `${profile.TaxId ?? 'EFR'}$${this.ctx.signer.keyId}` }),
    };
    try {
      const answer = await postJson(`${url}/api/v1/recorder/activate`, body, { ...(this.proxy() ? { proxy: this.proxy() as string } : {}) });
      this.trace('activation answered', { status: answer.status, registerNumber: answer.body.registerNumber });
      if (this.closed) return;
      if (answer.status === 200 && typeof answer.body.token === 'string' && typeof answer.body.registerNumber === 'string') {
        const activation: Activation = { portalUrl: url, token: answer.body.token, registerNumber: answer.body.registerNumber, badge, at: this.ctx.clock.now().toISOString() };
        const cfg = answer.body.cfg;
        if (typeof cfg === 'object' && cfg !== null) {
          const def = await this.ctx.registers.getOrCreate('def');
          await saveCfg(this.ctx, def, cfg as Obj);
        }
        await this.ctx.store.putSetting(ACTIVATION_KEY, JSON.stringify(activation));
        this.activation = activation;
        this.ctx.profiles.lockedBadge = badge;
        this.warning = undefined;
        this.log?.info({ type: 'RECORDER', registerNumber: activation.registerNumber }, 'the instance is activated at the portal: Recorder online');
        this.schedule(0);
        return;
      }
      if (answer.status >= 400 && answer.status < 500) {
        // refused (unknown badge, deactivated company): not tried again until the profile is saved again
        this.warning = `Recorder: the portal refused the activation (${answer.status}): ${String(answer.body.errorMessage ?? '')}`.trim();
        this.log?.warn({ type: 'RECORDER', status: answer.status, answer: answer.body.errorMessage }, 'the portal refused the activation');
        return;
      }
      throw new Error(`the portal answered ${answer.status}`);
    } catch (e) {
      if (this.closed) return;
      this.activationFailures += 1;
      this.warning = `Recorder: the portal cannot be reached (${e instanceof Error ? e.message : String(e)}); trying again`;
      this.activationTimer = setTimeout(() => void this.activate(), this.backoff(this.activationFailures));
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.busy = this.send().finally(() => {
        this.busy = undefined;
      });
    }, ms);
  }

  /** Sends one batch of the def register; schedules the next step. */
  private async send(): Promise<void> {
    const activation = this.activation;
    if (!activation || this.closed) return;
    const reg = this.ctx.registers.get('def');
    if (!reg) return this.schedule(IDLE_MS);
    const rn = reg.state.rn;
    const confirmed = await this.loadConfirmed(rn);
    if (reg.state.sq <= confirmed) return this.schedule(IDLE_MS);
    const records: Array<{ sq: number; data: string; hash: string; d: string }> = [];
    let bytes = 0;
    for await (const r of this.ctx.store.range(reg.state.rid, confirmed + 1)) {
      if (records.length >= BATCH_RECORDS || (records.length > 0 && bytes + r.data.length > BATCH_BYTES)) break;
      records.push({ sq: r.sq, data: r.data, hash: r.hash.toString('hex'), d: r.d });
      bytes += r.data.length + 100;
    }
    if (records.length === 0) return this.schedule(IDLE_MS);
    try {
      const answer = await postJson(`${activation.portalUrl}/api/v1/recorder/archive`, { records }, { token: activation.token, ...(this.proxy() ? { proxy: this.proxy() as string } : {}) });
      this.trace('archive answered', { status: answer.status, from: records[0]?.sq, to: records[records.length - 1]?.sq });
      if (answer.status !== 200) {
        if (answer.status === 409) this.log?.error({ type: 'RECORDER', status: 409, answer: answer.body }, 'the portal holds a different record for an SQ of this batch');
        throw new Error(`the portal answered ${answer.status}`);
      }
      const last = (records[records.length - 1] as { sq: number }).sq;
      await this.ctx.store.putSetting(confirmedKey(rn), String(last));
      this.confirmed.set(rn, last);
      await markArchived(this.ctx.store, rn, { sq: last, at: this.ctx.clock.now().toISOString(), kind: 'portal' });
      this.sent += records.length;
      this.retry = 0;
      this.schedule(0);
    } catch (e) {
      this.retry += 1;
      this.log?.warn({ type: 'RECORDER', err: e instanceof Error ? e.message : String(e), retry: this.retry }, 'the archive batch failed; it is sent again');
      this.schedule(this.backoff(this.retry));
    }
  }

  /** Stops the timers and waits for a batch in flight. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.activationTimer) clearTimeout(this.activationTimer);
    await this.busy?.catch(() => undefined);
    await closeProxyAgents();
  }
}

