/**
 * Delivering e-invoices to their delivery system (a service provider's API or a Peppol access point): the
 * invoice is journaled first, its e-invoice made and kept, then sent within eDoc_Timeout. The answer (the
 * provider's id and status, or its rejection) is journaled as a record of its own and shown in Fis.EInvoice.
 * When none comes in time the invoice stays registered (RC OK with a warning) and waits in the queue
 * (delivery/journal-queue.ts, cursor `einvoice:cursor:<RN>`), sent again with growing pauses, also after a
 * restart. Without an endpoint for its destination nothing is sent: that is journaled too (EinvoiceNotSent),
 * and a test transaction never goes to a production endpoint (endpoint.ts). docs/einvoicing.md, Delivery.
 */
import { createHash } from 'node:crypto';
import type pino from 'pino';
import { type Obj, isObj, obj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { type DeliveryOptions, JournalQueue, type QueueChannel, type Waiting, messageOf } from '../delivery/journal-queue.js';
import type { JournalRecord } from '../journal/types.js';
import type { Sealed } from '../record-answer.js';
import type { Register } from '../registers.js';
import { fiscalTimeoutOf } from '../fiscal/authority.js';
import { cfgAt } from '../render/receipt-source.js';
import { DELIVERED_EVENT, NOT_SENT, NOT_SENT_EVENT, type Outcome, PENDING, REJECTED_EVENT, asksEinvoice, einvoiceAnswerOf, journalEinvoiceAnswer } from './answers.js';
import { type Endpoint, deliveryConfigured, deliveryTimeoutOf, endpointOf } from './endpoint.js';
import { einvoiceXml, invoiceNumber } from './index.js';
import { type ProviderAnswer, postEinvoice } from './provider-client.js';
import { loadEinvoice } from './store.js';
import { journaledFlags } from '../esr/business-case.js';

/** Beyond the tax authority's timeout: time for the document to be made and handed over after the commit. */
const SETTLE_MARGIN_MS = 10_000;

/** Journal setting: the cursors of the registers there were at the first start have been set to their heads. */
const CURSORS_SET = 'einvoice:cursors-set';

/** A later delivery waits at least this long for the delivery system (no POS waits for it). */
const LATER_TIMEOUT_MS = 15_000;

/** What the POS is told: the delivery in Fis.EInvoice and, unless delivered, a warning saying why. */
export interface EinvoiceOutcome {
  fis: Obj;
  warning?: string;
}

function isTest(data: Obj): boolean {
  return journaledFlags(data).includes('test') || str(obj(data, 'ESR') ?? {}, 'Test') === '1';
}

export class EinvoiceDelivery {
  private readonly queue: JournalQueue;

  constructor(
    private readonly ctx: ServiceContext,
    options: DeliveryOptions = {},
    private readonly log?: pino.Logger,
  ) {
    const channel: QueueChannel = {
      key: 'einvoice',
      logType: 'EINVOICE',
      receiverOf: () => 'the e-invoice delivery system',
      serves: (reg) => deliveryConfigured(ctx.profiles.settings(reg.state.rn).raw),
      // the e-invoice is handed over after the tax authority's answer (Croatia, Slovenia) and the making of the document
      settleMs: (reg) => {
        const attributes = ctx.profiles.settings(reg.state.rn).raw;
        return fiscalTimeoutOf(attributes) + SETTLE_MARGIN_MS;
      },
      waits: (_reg, data) => asksEinvoice(data),
      answers: (_reg, data) => einvoiceAnswerOf(data)?.rsq,
      deliverLater: (reg, w, data, record) => this.later(reg, w, data, record),
    };
    this.queue = new JournalQueue(ctx, channel, options, log);
  }

  /**
   * Before the first request, once per journal: the registers there are start their cursors at their heads, so
   * that e-invoices made before this service delivered any are not sent now (they stay available by GET
   * /export). A register made later has no cursor until its first delivery and is scanned from its start: an
   * invoice it journaled just before a crash (waiting for the tax authority, its e-invoice being made) is
   * found after the restart instead of being passed by a cursor set at the head then.
   */
  async start(): Promise<void> {
    if ((await this.ctx.store.getSetting(CURSORS_SET)) === undefined) {
      for (const reg of this.ctx.registers.list()) {
        const key = this.queue.cursorKey(reg.state.rn);
        if ((await this.ctx.store.getSetting(key)) === undefined) await this.ctx.store.putSetting(key, String(reg.state.sq));
      }
      await this.ctx.store.putSetting(CURSORS_SET, '1');
    }
    await this.queue.start();
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  /**
   * The Idempotency-Key of an invoice: the register, its SQ and a digest of the instance's key id and the
   * record's journal hash. RN and SQ alone repeat from shop to shop (every register is `def` by default) and
   * after a journal is set up again, and the hash alone repeats in two new journals with the same invoice in the
   * same second; a provider answering one account's repeated key with its first answer would then take a new
   * invoice for another one already delivered.
   */
  private keyOf(rn: string, sq: number, hash: Buffer): string {
    return `${rn}/${sq}/${createHash('sha256').update(`${this.ctx.signer.keyId}/${hash.toString('hex')}`).digest('hex').slice(0, 32)}`;
  }

  private async send(reg: Register, endpoint: Endpoint, data: Obj, xml: string, ms: number, key: string): Promise<ProviderAnswer> {
    const esr = obj(data, 'ESR') ?? {};
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ms} ms`)), ms);
    try {
      const sent = postEinvoice({
        endpoint, xml, dd: str(esr, 'DD') ?? '', receiver: str(esr, 'DDto'), invoiceNumber: invoiceNumber(esr, obj(data, 'Fis')),
        idempotencyKey: key, signal: controller.signal,
      });
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason instanceof Error ? controller.signal.reason : new Error('timeout')), { once: true }));
      return await Promise.race([sent, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }

  private outcomeOf(answer: ProviderAnswer, endpoint: Endpoint, later: boolean): Outcome {
    if (answer.ok) return { event: DELIVERED_EVENT, status: answer.status, id: answer.id, attribute: endpoint.attribute, test: endpoint.test, later };
    return { event: REJECTED_EVENT, status: answer.status, reason: answer.reason, httpStatus: answer.httpStatus, ...(answer.id ? { id: answer.id } : {}), attribute: endpoint.attribute, test: endpoint.test, later };
  }

  /**
   * The delivery of an invoice just committed (its e-invoice `xml` made and kept): what Fis.EInvoice shows and
   * the warning for the POS. Undefined when the record asks for no e-invoice.
   */
  async online(reg: Register, sealed: Sealed, xml: string): Promise<EinvoiceOutcome | undefined> {
    const data = sealed.data;
    if (!asksEinvoice(data) || !isObj(data.Fis)) return undefined;
    const rn = reg.state.rn;
    const sq = Number(str(data, 'SQ'));
    const esr = obj(data, 'ESR') ?? {};
    const dd = str(esr, 'DD') ?? '';
    const fn = invoiceNumber(esr, data.Fis);
    const attributes = this.ctx.profiles.settings(rn).raw;
    const endpoint = endpointOf(attributes, dd, isTest(data));
    if ('missing' in endpoint) {
      const why = endpoint.test
        ? `a test is never sent to a production system, and no test endpoint is configured (profile attribute ${endpoint.missing.join(' or ')})`
        : `no endpoint is configured for it (profile attribute ${endpoint.missing.join(' or ')})`;
      const reason = `not delivered to ${dd}: ${why}`;
      const fis: Obj = { Status: NOT_SENT, Reason: reason, ...(endpoint.test ? { Test: '1' } : {}) };
      try {
        await journalEinvoiceAnswer(this.ctx, reg, { rsq: sq, fn, dd }, { event: NOT_SENT_EVENT, status: NOT_SENT, reason, test: endpoint.test, later: false });
      } catch (e) {
        this.log?.error({ type: 'EINVOICE', rn, sq, err: e }, 'that the e-invoice was not sent could not be journaled');
      }
      return { fis, warning: `ESR.DD: the e-invoice was ${reason}; it is kept for GET /export?type=einvoice&fn=${fn}` };
    }
    const ms = deliveryTimeoutOf(attributes);
    return this.queue.whileSending(rn, sq, async () => {
      try {
        await this.queue.anchor(reg);
      } catch (e) {
        this.log?.error({ type: 'EINVOICE', rn, err: e }, 'the e-invoice queue\'s cursor could not be written');
      }
      let answer: ProviderAnswer;
      try {
        answer = await this.send(reg, endpoint, data, xml, ms, this.keyOf(rn, sq, sealed.hash));
      } catch (e) {
        const reason = messageOf(e);
        this.queue.enqueue(rn, { sq, fn, since: str(data, 'TS') ?? '' }, reason);
        this.log?.warn({ type: 'EINVOICE', rn, sq, fn, dd, err: reason }, `the e-invoice ${fn} was not answered: queued for later delivery`);
        return { fis: { Status: PENDING, ...(endpoint.test ? { Test: '1' } : {}) }, warning: `ESR.DD: the delivery system did not answer the e-invoice (${reason}); it is queued and sent again` };
      }
      const outcome = this.outcomeOf(answer, endpoint, false);
      try {
        await journalEinvoiceAnswer(this.ctx, reg, { rsq: sq, fn, dd }, outcome);
      } catch (e) {
        // the answer could not be journaled (disk full): sent again later (the provider knows it by its Idempotency-Key)
        this.queue.enqueue(rn, { sq, fn, since: str(data, 'TS') ?? '' }, `answer not journaled: ${messageOf(e)}`);
        this.log?.error({ type: 'EINVOICE', rn, sq, err: e }, 'the answer of the e-invoice delivery system could not be journaled');
        return { fis: { Status: PENDING }, warning: 'ESR.DD: the answer of the delivery system could not be journaled; the e-invoice is sent again' };
      }
      const fis: Obj = { Status: outcome.status, ...(outcome.id ? { Id: outcome.id } : {}), ...(outcome.reason ? { Reason: outcome.reason } : {}), ...(endpoint.test ? { Test: '1' } : {}) };
      if (answer.ok) return { fis };
      this.log?.warn({ type: 'EINVOICE', rn, sq, fn, dd, reason: answer.reason }, `the e-invoice ${fn} was rejected`);
      return { fis, warning: `ESR.DD: the delivery system rejected the e-invoice: ${answer.reason}` };
    });
  }

  /** A later delivery of a waiting invoice, with the e-invoice kept (or made again from the journal and the Cfg then in force). */
  private async later(reg: Register, w: Waiting, data: Obj, record: JournalRecord): Promise<{ refused: boolean }> {
    const rn = reg.state.rn;
    const esr = obj(data, 'ESR') ?? {};
    const dd = str(esr, 'DD') ?? '';
    const fn = invoiceNumber(esr, obj(data, 'Fis'));
    const attributes = this.ctx.profiles.settings(rn).raw;
    const endpoint = endpointOf(attributes, dd, isTest(data));
    if ('missing' in endpoint) {
      // the endpoint was removed while the e-invoice waited: said so in the journal, not sent anywhere else
      const reason = `not delivered to ${dd}: no endpoint is configured for it any more (profile attribute ${endpoint.missing.join(' or ')})`;
      await journalEinvoiceAnswer(this.ctx, reg, { rsq: w.sq, fn, dd }, { event: NOT_SENT_EVENT, status: NOT_SENT, reason, test: endpoint.test, later: true });
      return { refused: false };
    }
    const xml = (await loadEinvoice(this.ctx.dataDir, rn, w.sq)) ?? einvoiceXml({ ...data, SQ: String(w.sq) }, await cfgAt(this.ctx, reg, w.sq));
    const answer = await this.send(reg, endpoint, { ...data, SQ: String(w.sq) }, xml, Math.max(LATER_TIMEOUT_MS, deliveryTimeoutOf(attributes)), this.keyOf(rn, w.sq, record.hash));
    await journalEinvoiceAnswer(this.ctx, reg, { rsq: w.sq, fn, dd }, this.outcomeOf(answer, endpoint, true));
    if (answer.ok) this.log?.info({ type: 'EINVOICE', rn, sq: w.sq, fn, dd, id: answer.id }, `e-invoice ${fn} delivered later`);
    else this.log?.warn({ type: 'EINVOICE', rn, sq: w.sq, fn, dd, reason: answer.reason }, `e-invoice ${fn} rejected when delivered later`);
    // a rejection is the receiver's decision on this document: it is not sent again (a corrected invoice is a new one)
    return { refused: false };
  }

  /** Whether invoice `sq` waits for a later delivery. */
  isWaiting(rn: string, sq: number): boolean {
    return this.queue.isWaiting(rn, sq);
  }

  /** The queue as /state shows it: per register the waiting e-invoices, the oldest, the last failure. */
  status(): { queued: number; registers: Obj } {
    return this.queue.status();
  }
}
