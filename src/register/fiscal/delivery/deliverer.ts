/**
 * Reporting receipts to the tax authority ("no network, no stop": a missing answer never blocks a sale). A receipt is journaled
 * first, with its protective code; then it is sent online within Fiscal_Timeout. When the authority answers,
 * its id (JIR, EOR) is journaled and printed; when it does not, the receipt stays valid with its protective
 * code (RC OK, #AUTHORITY_PENDING), waits in the delivery queue and is sent again later with the law's
 * "subsequent delivery" mark until the authority answers.
 *
 * The queue is the journal itself (delivery/journal-queue.ts): a reported receipt without an answer record is
 * waiting; a cursor per register (`authority:cursor:<RN>`) bounds the scan at start, so a receipt whose
 * answer was never journaled (a crash mid-delivery) is found again and delivered later.
 */
import type pino from 'pino';
import { type ErrorCode, type ErrorParams } from '../../../shared/errors.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { type DeliveryOptions, JournalQueue, type QueueChannel, type Waiting, messageOf } from '../../delivery/journal-queue.js';
import type { Register } from '../../registers.js';
import type { Sealed } from '../../record-answer.js';
import { type AuthorityPort, type DeliveryResult, fiscalTimeoutOf } from '../authority.js';
import { fiscalCertificate } from '../certificate-store.js';
import { answerOfRecord, authorityOf, fisWithAnswer, journalAnswer } from './answers.js';
import { cfgAt } from '../../render/receipt-source.js';
import { parseLocalDateTime } from '../../esr/datetime.js';

export { type DeliveryOptions, deliveryOptionsOf } from '../../delivery/journal-queue.js';

/** A later delivery waits at least this long for the authority (no POS waits for it). */
const LATER_TIMEOUT_MS = 15_000;

/** What the POS is told about the authority: the id in Fis, or a warning code with its message's values. */
export interface OnlineOutcome {
  fis?: Obj;
  errorCode?: ErrorCode;
  params?: ErrorParams;
}

export class AuthorityDelivery {
  /** the later deliveries: the journal scanned from `authority:cursor:<RN>`, refused receipts in `authority:refused:<RN>` */
  private readonly queue: JournalQueue;

  constructor(
    private readonly ctx: ServiceContext,
    options: DeliveryOptions = {},
    private readonly log?: pino.Logger,
  ) {
    const channel: QueueChannel = {
      key: 'authority',
      logType: 'FISCAL',
      receiverOf: (reg) => authorityOf(reg)?.name ?? '',
      serves: (reg) => authorityOf(reg) !== undefined,
      waits: (reg, data) => authorityOf(reg)?.reports(data) === true,
      answers: (reg, data) => {
        const port = authorityOf(reg);
        return port ? answerOfRecord(port, data)?.rsq : undefined;
      },
      deliverLater: (reg, w, data) => this.later(reg, w, data),
      overdue: (reg, list) => this.overdue(reg, list),
    };
    this.queue = new JournalQueue(ctx, channel, options, log);
  }

  /** Finds the receipts of every authority register that have no answer yet, then looks at the queue regularly. */
  start(): Promise<void> {
    return this.queue.start();
  }

  close(): Promise<void> {
    return this.queue.close();
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
    const pending: OnlineOutcome = { errorCode: '#AUTHORITY_PENDING', params: { authority: port.name, code: codeName, id: port.idName } };
    return this.queue.whileSending(rn, sq, async () => {
      let result: DeliveryResult;
      try {
        result = await this.send(reg, port, data, false, fiscalTimeoutOf(this.ctx.profiles.settings(rn).raw, port.defaultTimeoutMs));
      } catch (e) {
        const reason = messageOf(e);
        this.queue.enqueue(rn, { sq, fn, since: str(data, 'TS') ?? '' }, reason);
        this.log?.warn({ type: 'FISCAL', rn, sq, fn, authority: port.name, err: reason }, `${port.name} did not answer: receipt ${fn} queued for later delivery`);
        return pending;
      }
      try {
        await journalAnswer(this.ctx, reg, port, { rsq: sq, fn }, result, false);
      } catch (e) {
        // the answer could not be journaled (disk full): the receipt is delivered again later, and the POS does
        // not print an id the journal does not have
        this.queue.enqueue(rn, { sq, fn, since: str(data, 'TS') ?? '' }, `answer not journaled: ${messageOf(e)}`);
        this.log?.error({ type: 'FISCAL', rn, sq, err: e }, `the answer of ${port.name} could not be journaled`);
        return pending;
      }
      await this.queue.noteRefused(reg, sq, !result.ok);
      if (result.ok) return { fis: port.withId(fis, result.id, data) };
      this.log?.warn({ type: 'FISCAL', rn, sq, fn, authority: port.name, code: result.code, message: result.message }, `${port.name} refused receipt ${fn}`);
      return { fis: fisWithAnswer(port, data, fis, { rsq: sq, code: result.code, message: result.message, later: false, ts: '' }), errorCode: '#AUTHORITY_REFUSED', params: { authority: port.name, code: codeName, detail: `${result.code} ${result.message}` } };
    });
  }

  /** A later delivery with the law's subsequent-delivery mark; the answer journaled. */
  private async later(reg: Register, w: Waiting, data: Obj): Promise<{ refused: boolean }> {
    const port = authorityOf(reg);
    if (!port) throw new Error('the register no longer reports to a tax authority');
    const rn = reg.state.rn;
    const ms = Math.max(LATER_TIMEOUT_MS, fiscalTimeoutOf(this.ctx.profiles.settings(rn).raw, port.defaultTimeoutMs));
    // the company data in force when the receipt was issued (a changed tax number would not match its ZKI/ZOI)
    const result = await this.send(reg, port, data, true, ms, await cfgAt(this.ctx, reg, w.sq));
    await journalAnswer(this.ctx, reg, port, { rsq: w.sq, fn: w.fn }, result, true);
    if (result.ok) this.log?.info({ type: 'FISCAL', rn, sq: w.sq, fn: w.fn, authority: port.name, [port.idName]: result.id }, `receipt ${w.fn} delivered later to ${port.name}`);
    else this.log?.warn({ type: 'FISCAL', rn, sq: w.sq, fn: w.fn, code: result.code, message: result.message }, `${port.name} refused receipt ${w.fn} delivered later`);
    return { refused: !result.ok };
  }

  /**
   * The register's set-up changed (certificate, base data, profile): the receipts the authority refused are
   * sent again (with the subsequent-delivery mark) at the next look at the queue.
   */
  async retryRefused(reg: Register): Promise<number> {
    if (!authorityOf(reg)) return 0;
    return this.queue.retryRefused(reg);
  }

  /** How many of a register's waiting receipts are older than the law allows for a later delivery. */
  private overdue(reg: Register, list: readonly Waiting[]): number {
    const limit = authorityOf(reg)?.laterLimitMs;
    if (limit === undefined) return 0;
    const now = this.ctx.clock.now().getTime();
    return list.filter((w) => {
      const since = parseLocalDateTime(w.since.slice(0, 19));
      return since !== undefined && now - since.getTime() > limit;
    }).length;
  }

  /** The queue as /state shows it: per register the waiting receipts, the oldest, the last failure. */
  status(): { queued: number; registers: Obj } {
    return this.queue.status();
  }
}
