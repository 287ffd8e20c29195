/**
 * The later-delivery queue of a record sent somewhere after it is journaled (a receipt to the tax authority, an
 * e-invoice to its delivery system): "no network, no stop", the record stays valid and waits. What is sent
 * and how its answer is journaled is the channel's; this file keeps who waits, when it is tried again and
 * where the journal scan starts.
 *
 * The queue is the journal itself: a record the channel delivers without an answer record after it is
 * waiting. In memory the service keeps the waiting records per register; a cursor per register in the
 * journal's settings (`<key>:cursor:<RN>`: every record up to it has its answer) bounds the scan at start, so
 * a record whose answer was never journaled (a crash mid-delivery) is found again and delivered later.
 */
import type pino from 'pino';
import { type Obj, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { JournalRecord } from '../journal/types.js';
import type { Register } from '../registers.js';

/** Pauses between later attempts of one record: growing, then every 5 minutes. */
const RETRY_PAUSES_MS = [5_000, 15_000, 60_000, 300_000];

export interface Waiting {
  sq: number;
  fn: string;
  /** when the record was registered (its TS) */
  since: string;
  attempts: number;
  nextAt: number;
  lastError?: string;
}

export interface DeliveryOptions {
  /** pauses between later attempts (tests shorten them) */
  retryPausesMs?: readonly number[];
  /** how often the queue is looked at */
  tickMs?: number;
}

/** EFR_FISCAL_RETRY_MS: one pause between later attempts, for every delivery queue (tests, support). */
export function deliveryOptionsOf(env: NodeJS.ProcessEnv): DeliveryOptions {
  const pause = Number(env.EFR_FISCAL_RETRY_MS);
  return Number.isFinite(pause) && pause > 0 ? { retryPausesMs: [pause], tickMs: Math.min(1000, pause) } : {};
}

export function messageOf(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message}: ${cause.message}` : e.message;
  }
  return String(e);
}

/** What a queue delivers: which registers and records, what answers them, one later delivery. */
export interface QueueChannel {
  /** names the journal settings `<key>:cursor:<RN>` and `<key>:refused:<RN>` */
  readonly key: string;
  /** the log's type of its lines */
  readonly logType: string;
  /**
   * How long after its commit a record may still not have been handed to the online delivery (what runs
   * between the commit and it): the cursor never passes a record younger than this. 0: a tick.
   */
  settleMs?(reg: Register): number;
  /** the receiver's name in log lines */
  receiverOf(reg: Register): string;
  /** whether the register's journal is scanned and its cursor kept */
  serves(reg: Register): boolean;
  /** whether a journaled record (its data) is delivered and waits for an answer */
  waits(reg: Register, data: Obj): boolean;
  /** the SQ of the record a journaled log record answers, if it is such an answer */
  answers(reg: Register, data: Obj): number | undefined;
  /**
   * One later delivery of a waiting record (its journaled data); journals the answer. Resolves whether the
   * receiver refused it; throws when no answer came (then it is tried again after a pause).
   */
  deliverLater(reg: Register, waiting: Waiting, data: Obj, record: JournalRecord): Promise<{ refused: boolean }>;
  /** how many of a register's waiting records are older than the receiver's rules allow (Slovakia: 48 hours) */
  overdue?(reg: Register, waiting: readonly Waiting[]): number;
}

export class JournalQueue {
  /** records waiting for a later delivery, per RN by SQ */
  private readonly waiting = new Map<string, Map<number, Waiting>>();
  /** records being sent right now, per RN */
  private readonly sending = new Map<string, Set<number>>();
  /**
   * per RN: the head SQs seen when the queue was looked at, oldest first; the cursor never passes the head seen
   * a tick (and the channel's settleMs) ago, so never a record not yet handed to the online delivery
   */
  private readonly seenHeads = new Map<string, Array<{ at: number; head: number }>>();
  private readonly cursors = new Map<string, number>();
  /**
   * per RN: the head when the queue started. A scan ends there: every record committed since was handed to the
   * online delivery (which journals its answer or queues it), and one committed a moment ago may be on its way
   * there, so a scan that took it for waiting would send it a second time beside the online delivery.
   */
  private readonly startHeads = new Map<string, number>();
  /** registers whose cursor is known to be written (anchor) */
  private readonly anchored = new Set<string>();
  /** SQs of records the receiver refused, per RN (also in the journal settings) */
  private readonly refused = new Map<string, Set<number>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private readonly pauses: readonly number[];
  private readonly tickMs: number;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly channel: QueueChannel,
    options: DeliveryOptions = {},
    private readonly log?: pino.Logger,
  ) {
    this.pauses = options.retryPausesMs?.length ? options.retryPausesMs : RETRY_PAUSES_MS;
    this.tickMs = options.tickMs ?? 2000;
  }

  /** Finds the records of every register served that have no answer yet, then looks at the queue regularly. */
  async start(): Promise<void> {
    for (const reg of this.ctx.registers.list()) this.startHeads.set(reg.state.rn, reg.state.sq);
    for (const reg of this.ctx.registers.list()) {
      if (!this.channel.serves(reg)) continue;
      await this.scan(reg);
      await this.refusedOf(reg.state.rn);
    }
    this.timer = setInterval(() => {
      if (!this.ticking) this.ticking = this.tick().finally(() => (this.ticking = undefined));
    }, this.tickMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
  }

  /** The journal setting that holds a register's cursor. */
  cursorKey(rn: string): string {
    return `${this.channel.key}:cursor:${rn}`;
  }

  /**
   * Scans a register's journal from its cursor to its head at the start (a register made since has none to
   * scan): delivered records without an answer wait for a later delivery.
   */
  private async scan(reg: Register): Promise<void> {
    const rn = reg.state.rn;
    const cursor = Number((await this.ctx.store.getSetting(this.cursorKey(rn))) ?? '0');
    this.cursors.set(rn, cursor);
    const head = this.startHeads.get(rn) ?? 0;
    const unanswered = new Map<number, Waiting>();
    for await (const r of this.ctx.store.range(reg.state.rid, cursor + 1, head)) {
      const data = JSON.parse(r.data) as Obj;
      if (r.type === 'Tra' && this.channel.waits(reg, data)) {
        const fis = isObj(data.Fis) ? data.Fis : {};
        unanswered.set(r.sq, { sq: r.sq, fn: str(fis, 'FN') ?? '', since: str(data, 'TS') ?? r.d, attempts: 0, nextAt: 0 });
      } else if (r.type === 'log') {
        const rsq = this.channel.answers(reg, data);
        if (rsq !== undefined) unanswered.delete(rsq);
      }
    }
    const queue = this.queueOf(rn);
    // a record being sent online right now, or sealed and not yet committed, is not waiting
    for (const w of unanswered.values()) if (!queue.has(w.sq) && !this.isSending(rn, w.sq) && !reg.pending.has(w.sq)) queue.set(w.sq, w);
    this.seenHeads.set(rn, [{ at: Date.now(), head }]);
    if (unanswered.size > 0) this.log?.warn({ type: this.channel.logType, rn, receiver: this.channel.receiverOf(reg), waiting: unanswered.size }, `records without an answer of ${this.channel.receiverOf(reg)}: delivered later`);
  }

  private queueOf(rn: string): Map<number, Waiting> {
    let q = this.waiting.get(rn);
    if (!q) {
      q = new Map();
      this.waiting.set(rn, q);
    }
    return q;
  }

  private isSending(rn: string, sq: number): boolean {
    return this.sending.get(rn)?.has(sq) === true;
  }

  private mark(rn: string, sq: number, on: boolean): void {
    let s = this.sending.get(rn);
    if (!s) {
      s = new Set();
      this.sending.set(rn, s);
    }
    if (on) s.add(sq);
    else s.delete(sq);
  }

  /**
   * Before a register's first online delivery: its cursor is written (0 where none is yet), so that the scan after
   * a restart starts from it even when the queue never looked at the register (a register made since the start).
   */
  async anchor(reg: Register): Promise<void> {
    const rn = reg.state.rn;
    if (this.anchored.has(rn)) return;
    const key = this.cursorKey(rn);
    if ((await this.ctx.store.getSetting(key)) === undefined) await this.ctx.store.putSetting(key, '0');
    this.anchored.add(rn);
  }

  /** Runs the online delivery of record `sq`: meanwhile neither the scan nor the cursor takes it for waiting. */
  async whileSending<T>(rn: string, sq: number, send: () => Promise<T>): Promise<T> {
    this.mark(rn, sq, true);
    try {
      return await send();
    } finally {
      this.mark(rn, sq, false);
    }
  }

  /** A record whose online delivery got no answer (or whose answer could not be journaled): tried again after the first pause. */
  enqueue(rn: string, record: { sq: number; fn: string; since: string }, error: string): void {
    this.queueOf(rn).set(record.sq, { ...record, attempts: 1, nextAt: Date.now() + (this.pauses[0] ?? 5000), lastError: error });
  }

  /** Whether record `sq` waits for a later delivery. */
  isWaiting(rn: string, sq: number): boolean {
    return this.waiting.get(rn)?.has(sq) === true;
  }

  /** One look at the queue: due records are delivered later, one at a time per register; the cursors move on. */
  private async tick(): Promise<void> {
    for (const reg of this.ctx.registers.list()) {
      if (this.closed) return;
      const rn = reg.state.rn;
      if (!this.channel.serves(reg) && !this.waiting.get(rn)?.size) continue;
      if (!this.cursors.has(rn)) await this.scan(reg);
      const queue = this.queueOf(rn);
      for (const w of [...queue.values()].sort((a, b) => a.sq - b.sq)) {
        if (this.closed || w.nextAt > Date.now()) continue;
        await this.later(reg, w);
      }
      await this.moveCursor(reg);
    }
  }

  private async later(reg: Register, w: Waiting): Promise<void> {
    const rn = reg.state.rn;
    const queue = this.queueOf(rn);
    const record = await this.ctx.registers.record(reg, w.sq);
    if (!record) {
      // cleaned away: nothing left to deliver
      queue.delete(w.sq);
      return;
    }
    if (this.isSending(rn, w.sq)) return;
    this.mark(rn, w.sq, true);
    try {
      const { refused } = await this.channel.deliverLater(reg, w, JSON.parse(record.data) as Obj, record);
      queue.delete(w.sq);
      await this.noteRefused(reg, w.sq, refused);
    } catch (e) {
      w.attempts += 1;
      w.lastError = messageOf(e);
      w.nextAt = Date.now() + (this.pauses[Math.min(w.attempts - 1, this.pauses.length - 1)] ?? 300_000);
    } finally {
      this.mark(rn, w.sq, false);
    }
  }

  /** Moves a register's cursor to just before its oldest record without an answer, at most to the head seen a tick ago. */
  private async moveCursor(reg: Register): Promise<void> {
    const rn = reg.state.rn;
    // several processes on one journal: each knows only its own records, so none may move the shared cursor
    if (this.ctx.store.shared) return;
    // waiting, being sent, or sealed and not yet committed (then handed to the online delivery without a pause)
    const open = [...this.queueOf(rn).keys(), ...(this.sending.get(rn) ?? []), ...reg.pending.keys()];
    const now = Date.now();
    const limit = now - (this.channel.settleMs?.(reg) ?? 0);
    const seen = this.seenHeads.get(rn) ?? [];
    let lastHead = 0;
    for (const h of seen) if (h.at <= limit) lastHead = h.head;
    // the newest sample old enough, the younger ones, and this one
    const young = seen.findIndex((h) => h.at > limit);
    const kept = young < 0 ? seen.slice(-1) : seen.slice(Math.max(0, young - 1));
    kept.push({ at: now, head: reg.state.sq });
    this.seenHeads.set(rn, kept);
    const target = open.length > 0 ? Math.min(Math.min(...open) - 1, lastHead) : lastHead;
    if (target > (this.cursors.get(rn) ?? 0)) {
      await this.ctx.store.putSetting(this.cursorKey(rn), String(target));
      this.cursors.set(rn, target);
    }
  }

  /** Keeps the SQs of refused records (journal setting `<key>:refused:<RN>`): sent again after the set-up changed. */
  async noteRefused(reg: Register, sq: number, refused: boolean): Promise<void> {
    const rn = reg.state.rn;
    const set = await this.refusedOf(rn);
    if (refused === set.has(sq)) return;
    if (refused) set.add(sq);
    else set.delete(sq);
    await this.ctx.store.putSetting(`${this.channel.key}:refused:${rn}`, JSON.stringify([...set].sort((a, b) => a - b)));
  }

  private async refusedOf(rn: string): Promise<Set<number>> {
    let set = this.refused.get(rn);
    if (!set) {
      const text = await this.ctx.store.getSetting(`${this.channel.key}:refused:${rn}`);
      let list: unknown = [];
      try {
        list = text ? JSON.parse(text) : [];
      } catch {
        list = [];
      }
      set = new Set(Array.isArray(list) ? list.filter((n): n is number => Number.isSafeInteger(n)) : []);
      this.refused.set(rn, set);
    }
    return set;
  }

  /** Queues the register's refused records again, to be sent at the next look at the queue; how many. */
  async retryRefused(reg: Register): Promise<number> {
    const rn = reg.state.rn;
    const queue = this.queueOf(rn);
    let n = 0;
    for (const sq of await this.refusedOf(rn)) {
      if (queue.has(sq) || this.isSending(rn, sq)) continue;
      const record = await this.ctx.registers.record(reg, sq);
      const fis = record ? (JSON.parse(record.data) as Obj).Fis : undefined;
      queue.set(sq, { sq, fn: isObj(fis) ? (str(fis, 'FN') ?? '') : '', since: record?.d ?? '', attempts: 0, nextAt: 0, lastError: 'refused before; sent again after a change of the set-up' });
      n += 1;
    }
    return n;
  }

  /** The queue as /state shows it: per register the waiting records, the oldest, the last failure, the refused, those past the receiver's limit. */
  status(): { queued: number; registers: Obj } {
    let queued = 0;
    const registers: Obj = {};
    for (const [rn, set] of this.refused) if (set.size > 0) registers[rn] = { Refused: String(set.size) };
    for (const [rn, q] of this.waiting) {
      if (q.size === 0) continue;
      queued += q.size;
      const list = [...q.values()].sort((a, b) => a.sq - b.sq);
      const first = list[0];
      const lastError = list.map((w) => w.lastError).filter((e): e is string => e !== undefined).pop();
      const reg = this.ctx.registers.get(rn);
      const overdue = reg && this.channel.overdue ? this.channel.overdue(reg, list) : 0;
      registers[rn] = { ...(isObj(registers[rn]) ? registers[rn] : {}), Queued: String(q.size), OldestFN: first?.fn ?? '', OldestD: first?.since ?? '', ...(lastError ? { LastError: lastError } : {}), ...(overdue > 0 ? { Overdue: String(overdue) } : {}) };
    }
    return { queued, registers };
  }
}
