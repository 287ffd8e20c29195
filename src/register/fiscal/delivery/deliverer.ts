/**
 * Reporting receipts to the tax authority ("no network, no stop": a missing answer never blocks a sale). A receipt is journaled
 * first, with its protective code; then it is sent online within Fiscal_Timeout. When the authority answers,
 * its id (JIR, EOR) is journaled and printed; when it does not, the receipt stays valid with its protective
 * code (RC OK, #AUTHORITY_PENDING), waits in the delivery queue and is sent again later with the law's
 * "subsequent delivery" mark until the authority answers.
 *
 * The queue is the journal itself: a reported receipt without an answer record is waiting. In memory the
 * service keeps the waiting receipts per register; a cursor per register in the journal's settings
 * (`authority:cursor:<RN>`: every receipt up to it has its answer) bounds the scan at start, so a receipt
 * whose answer was never journaled (a crash mid-delivery) is found again and delivered later.
 */
import type pino from 'pino';
import { type ErrorCode, type ErrorParams } from '../../../shared/errors.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import type { Register } from '../../registers.js';
import type { Sealed } from '../../record-answer.js';
import { type AuthorityPort, type DeliveryResult, fiscalTimeoutOf } from '../authority.js';
import { fiscalCertificate } from '../certificate-store.js';
import { answerOfRecord, authorityOf, fisWithAnswer, journalAnswer } from './answers.js';
import { cfgAt } from '../../render/receipt-source.js';
import { parseLocalDateTime } from '../../esr/datetime.js';

/** A later delivery waits at least this long for the authority (no POS waits for it). */
const LATER_TIMEOUT_MS = 15_000;
/** Pauses between later attempts of one receipt: growing, then every 5 minutes. */
const RETRY_PAUSES_MS = [5_000, 15_000, 60_000, 300_000];

/** What the POS is told about the authority: the id in Fis, or a warning code with its message's values. */
export interface OnlineOutcome {
  fis?: Obj;
  errorCode?: ErrorCode;
  params?: ErrorParams;
}

interface Waiting {
  sq: number;
  fn: string;
  /** when the receipt was registered (its TS) */
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

export function deliveryOptionsOf(env: NodeJS.ProcessEnv): DeliveryOptions {
  const pause = Number(env.EFR_FISCAL_RETRY_MS);
  return Number.isFinite(pause) && pause > 0 ? { retryPausesMs: [pause], tickMs: Math.min(1000, pause) } : {};
}

function messageOf(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message}: ${cause.message}` : e.message;
  }
  return String(e);
}

export class AuthorityDelivery {
  /** receipts waiting for a later delivery, per RN by SQ */
  private readonly waiting = new Map<string, Map<number, Waiting>>();
  /** receipts being sent right now, per RN */
  private readonly sending = new Map<string, Set<number>>();
  /** per RN: the head SQ when the queue was last looked at (the cursor never passes a receipt not yet handed to online()) */
  private readonly seenHead = new Map<string, number>();
  private readonly cursors = new Map<string, number>();
  /** SQs of receipts the authority refused, per RN (also in the journal settings) */
  private readonly refused = new Map<string, Set<number>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private readonly pauses: readonly number[];
  private readonly tickMs: number;

  constructor(
    private readonly ctx: ServiceContext,
    options: DeliveryOptions = {},
    private readonly log?: pino.Logger,
  ) {
    this.pauses = options.retryPausesMs?.length ? options.retryPausesMs : RETRY_PAUSES_MS;
    this.tickMs = options.tickMs ?? 2000;
  }

  /** Finds the receipts of every authority register that have no answer yet, then looks at the queue regularly. */
  async start(): Promise<void> {
    for (const reg of this.ctx.registers.list()) {
      if (!authorityOf(reg)) continue;
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

  /** Scans a register's journal from its cursor: reported receipts without an answer wait for a later delivery. */
  private async scan(reg: Register): Promise<void> {
    const port = authorityOf(reg);
    if (!port) return;
    const rn = reg.state.rn;
    const cursor = Number((await this.ctx.store.getSetting(`authority:cursor:${rn}`)) ?? '0');
    this.cursors.set(rn, cursor);
    const head = reg.state.sq;
    const unanswered = new Map<number, Waiting>();
    for await (const r of this.ctx.store.range(reg.state.rid, cursor + 1, head)) {
      const data = JSON.parse(r.data) as Obj;
      if (r.type === 'Tra' && port.reports(data)) {
        const fis = isObj(data.Fis) ? data.Fis : {};
        unanswered.set(r.sq, { sq: r.sq, fn: str(fis, 'FN') ?? '', since: str(data, 'TS') ?? r.d, attempts: 0, nextAt: 0 });
      } else if (r.type === 'log') {
        const answer = answerOfRecord(port, data);
        if (answer) unanswered.delete(answer.rsq);
      }
    }
    const queue = this.queueOf(rn);
    // a receipt being sent online right now, or sealed and not yet committed, is not waiting
    for (const w of unanswered.values()) if (!queue.has(w.sq) && !this.isSending(rn, w.sq) && !reg.pending.has(w.sq)) queue.set(w.sq, w);
    this.seenHead.set(rn, head);
    if (unanswered.size > 0) this.log?.warn({ type: 'FISCAL', rn, authority: port.name, waiting: unanswered.size }, `receipts without an answer of ${port.name}: delivered later`);
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

  /** One delivery, bounded by `ms`; throws on a network failure, a timeout or an unreadable answer. */
  private async send(reg: Register, port: AuthorityPort, data: Obj, later: boolean, ms: number, cfg: Obj = reg.state.cfg): Promise<DeliveryResult> {
    const rn = reg.state.rn;
    const certificate = fiscalCertificate(this.ctx.dataDir, rn);
    if (!certificate) throw new Error('no fiscal certificate is installed');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
    try {
      const attributes = this.ctx.profiles.settings(rn).raw;
      const sent = port.deliver({ rn, data, cfg, attributes, certificate, later, signal: controller.signal, now: this.ctx.clock.now() });
      // a port that does not honour the signal still ends here
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason instanceof Error ? controller.signal.reason : new Error('timeout')), { once: true }));
      return await Promise.race([sent, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The online delivery of a receipt just committed: its id merged into Fis, or the warning the POS gets
   * (#AUTHORITY_PENDING: queued for later; #AUTHORITY_REFUSED). Undefined when the receipt is not reported.
   */
  async online(reg: Register, sealed: Sealed): Promise<OnlineOutcome | undefined> {
    const port = authorityOf(reg);
    const data = sealed.data;
    if (!port || !port.reports(data) || !isObj(data.Fis)) return undefined;
    const rn = reg.state.rn;
    const sq = Number(str(data, 'SQ'));
    const fis = data.Fis;
    const fn = str(fis, 'FN') ?? '';
    const codeName = port.codeName ?? 'protective code';
    this.mark(rn, sq, true);
    try {
      let result: DeliveryResult;
      try {
        result = await this.send(reg, port, data, false, fiscalTimeoutOf(this.ctx.profiles.settings(rn).raw, port.defaultTimeoutMs));
      } catch (e) {
        const reason = messageOf(e);
        this.queueOf(rn).set(sq, { sq, fn, since: str(data, 'TS') ?? '', attempts: 1, nextAt: Date.now() + (this.pauses[0] ?? 5000), lastError: reason });
        this.log?.warn({ type: 'FISCAL', rn, sq, fn, authority: port.name, err: reason }, `${port.name} did not answer: receipt ${fn} queued for later delivery`);
        return { errorCode: '#AUTHORITY_PENDING', params: { authority: port.name, code: codeName, id: port.idName } };
      }
      try {
        await journalAnswer(this.ctx, reg, port, { rsq: sq, fn }, result, false);
      } catch (e) {
        // the answer could not be journaled (disk full): the receipt is delivered again later, and the POS does
        // not print an id the journal does not have
        this.queueOf(rn).set(sq, { sq, fn, since: str(data, 'TS') ?? '', attempts: 1, nextAt: Date.now() + (this.pauses[0] ?? 5000), lastError: `answer not journaled: ${messageOf(e)}` });
        this.log?.error({ type: 'FISCAL', rn, sq, err: e }, `the answer of ${port.name} could not be journaled`);
        return { errorCode: '#AUTHORITY_PENDING', params: { authority: port.name, code: codeName, id: port.idName } };
      }
      await this.noteRefused(reg, sq, !result.ok);
      if (result.ok) return { fis: port.withId(fis, result.id, data) };
      this.log?.warn({ type: 'FISCAL', rn, sq, fn, authority: port.name, code: result.code, message: result.message }, `${port.name} refused receipt ${fn}`);
      return { fis: fisWithAnswer(port, data, fis, { rsq: sq, code: result.code, message: result.message, later: false, ts: '' }), errorCode: '#AUTHORITY_REFUSED', params: { authority: port.name, code: codeName, detail: `${result.code} ${result.message}` } };
    } finally {
      this.mark(rn, sq, false);
    }
  }

  /** One look at the queue: due receipts are delivered later, one at a time per register; the cursors move on. */
  private async tick(): Promise<void> {
    for (const reg of this.ctx.registers.list()) {
      if (this.closed) return;
      const port = authorityOf(reg);
      if (!port) continue;
      const rn = reg.state.rn;
      if (!this.cursors.has(rn)) await this.scan(reg);
      const queue = this.queueOf(rn);
      for (const w of [...queue.values()].sort((a, b) => a.sq - b.sq)) {
        if (this.closed || w.nextAt > Date.now()) continue;
        await this.later(reg, port, w);
      }
      await this.moveCursor(reg);
    }
  }

  private async later(reg: Register, port: AuthorityPort, w: Waiting): Promise<void> {
    const rn = reg.state.rn;
    const queue = this.queueOf(rn);
    const record = await this.ctx.registers.record(reg, w.sq);
    if (!record) {
      // cleaned away: nothing left to deliver
      queue.delete(w.sq);
      return;
    }
    if (this.isSending(rn, w.sq)) return;
    const data = JSON.parse(record.data) as Obj;
    this.mark(rn, w.sq, true);
    try {
      const ms = Math.max(LATER_TIMEOUT_MS, fiscalTimeoutOf(this.ctx.profiles.settings(rn).raw, port.defaultTimeoutMs));
      // the company data in force when the receipt was issued (a changed tax number would not match its ZKI/ZOI)
      const result = await this.send(reg, port, data, true, ms, await cfgAt(this.ctx, reg, w.sq));
      await journalAnswer(this.ctx, reg, port, { rsq: w.sq, fn: w.fn }, result, true);
      queue.delete(w.sq);
      await this.noteRefused(reg, w.sq, !result.ok);
      if (result.ok) this.log?.info({ type: 'FISCAL', rn, sq: w.sq, fn: w.fn, authority: port.name, [port.idName]: result.id }, `receipt ${w.fn} delivered later to ${port.name}`);
      else this.log?.warn({ type: 'FISCAL', rn, sq: w.sq, fn: w.fn, code: result.code, message: result.message }, `${port.name} refused receipt ${w.fn} delivered later`);
    } catch (e) {
      w.attempts += 1;
      w.lastError = messageOf(e);
      w.nextAt = Date.now() + (this.pauses[Math.min(w.attempts - 1, this.pauses.length - 1)] ?? 300_000);
    } finally {
      this.mark(rn, w.sq, false);
    }
  }

  /** Moves a register's cursor to just before its oldest receipt without an answer, at most to the head seen a tick ago. */
  private async moveCursor(reg: Register): Promise<void> {
    const rn = reg.state.rn;
    // several processes on one journal: each knows only its own receipts, so none may move the shared cursor
    if (this.ctx.store.shared) return;
    // waiting, being sent, or sealed and not yet committed (then handed to online() without a pause)
    const open = [...this.queueOf(rn).keys(), ...(this.sending.get(rn) ?? []), ...reg.pending.keys()];
    const lastHead = this.seenHead.get(rn) ?? 0;
    this.seenHead.set(rn, reg.state.sq);
    const target = open.length > 0 ? Math.min(Math.min(...open) - 1, lastHead) : lastHead;
    if (target > (this.cursors.get(rn) ?? 0)) {
      await this.ctx.store.putSetting(`authority:cursor:${rn}`, String(target));
      this.cursors.set(rn, target);
    }
  }

  /** Keeps the SQs of refused receipts (journal setting `authority:refused:<RN>`): sent again after the set-up changed. */
  private async noteRefused(reg: Register, sq: number, refused: boolean): Promise<void> {
    const rn = reg.state.rn;
    const set = await this.refusedOf(rn);
    if (refused === set.has(sq)) return;
    if (refused) set.add(sq);
    else set.delete(sq);
    await this.ctx.store.putSetting(`authority:refused:${rn}`, JSON.stringify([...set].sort((a, b) => a - b)));
  }

  private async refusedOf(rn: string): Promise<Set<number>> {
    let set = this.refused.get(rn);
    if (!set) {
      const text = await this.ctx.store.getSetting(`authority:refused:${rn}`);
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

  /**
   * The register's set-up changed (certificate, base data, profile): the receipts the authority refused are
   * sent again (with the subsequent-delivery mark) at the next look at the queue.
   */
  async retryRefused(reg: Register): Promise<number> {
    if (!authorityOf(reg)) return 0;
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

  /** How many of a register's waiting receipts are older than the law allows for a later delivery. */
  private overdue(rn: string, list: readonly Waiting[]): number {
    const reg = this.ctx.registers.get(rn);
    const limit = reg ? authorityOf(reg)?.laterLimitMs : undefined;
    if (limit === undefined) return 0;
    const now = this.ctx.clock.now().getTime();
    return list.filter((w) => {
      const since = parseLocalDateTime(w.since.slice(0, 19));
      return since !== undefined && now - since.getTime() > limit;
    }).length;
  }

  /** The queue as /state shows it: per register the waiting receipts, the oldest, the last failure, those past the law's limit. */
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
      const overdue = this.overdue(rn, list);
      registers[rn] = { ...(isObj(registers[rn]) ? registers[rn] : {}), Queued: String(q.size), OldestFN: first?.fn ?? '', OldestD: first?.since ?? '', ...(lastError ? { LastError: lastError } : {}), ...(overdue > 0 ? { Overdue: String(overdue) } : {}) };
    }
    return { queued, registers };
  }
}
