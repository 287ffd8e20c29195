/**
 * The delivery system's answer to an e-invoice, journaled as a `log` record of its own (the invoice's record is
 * never changed): accepted with the provider's id and status word, rejected with the reason, or not sent (no
 * endpoint for its destination). It names the invoice's record by its SQ (RSQ) and is indexed by `ref` =
 * `EIN:<RSQ>`, so that /find, /render and a duplicate's answer find it with one lookup. Shown in the invoice's
 * Fis as `EInvoice`.
 */
import { type Obj, isObj, obj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { classify, journaledFlags } from '../esr/business-case.js';
import { formatLocalDateTime } from '../esr/datetime.js';
import type { JournalRecord } from '../journal/types.js';
import { appendRecord } from '../record-writer.js';
import type { Register } from '../registers.js';
import { wantsEinvoice } from './index.js';

export const DELIVERED_EVENT = 'EinvoiceAnswer';
export const REJECTED_EVENT = 'EinvoiceRejected';
export const NOT_SENT_EVENT = 'EinvoiceNotSent';
const EVENTS = new Set([DELIVERED_EVENT, REJECTED_EVENT, NOT_SENT_EVENT]);

/** Fis.EInvoice.Status while no answer is journaled. */
export const PENDING = 'pending';
export const REJECTED = 'rejected';
export const NOT_SENT = 'not sent';

export interface EinvoiceAnswer {
  /** the SQ of the invoice answered */
  rsq: number;
  /** the provider's status word (accepted, delivered, …), `rejected` or `not sent` */
  status: string;
  id?: string;
  reason?: string;
  /** sent to (or meant for) the test system */
  test: boolean;
  later: boolean;
  ts: string;
}

export function einvoiceRef(rsq: number): string {
  return `EIN:${rsq}`;
}

/** Whether a journaled record (its data) is a transaction that asks for an e-invoice. */
export function asksEinvoice(data: Obj): boolean {
  const esr = data.ESR;
  // the journaled flags first: /find asks this of every record it shows
  if (!journaledFlags(data).includes('einvoice')) return false;
  return str(data, '_') === 'Tra' && isObj(esr) && wantsEinvoice(esr, classify(esr));
}

/** What is journaled of one delivery (or of an e-invoice not sent). */
export interface Outcome {
  event: typeof DELIVERED_EVENT | typeof REJECTED_EVENT | typeof NOT_SENT_EVENT;
  status: string;
  id?: string;
  reason?: string;
  httpStatus?: number;
  /** the endpoint's attribute (no URL: it may carry credentials) */
  attribute?: string;
  test: boolean;
  later: boolean;
}

/** Journals the answer to invoice `rsq` (FN `fn`, DD `dd`). */
export async function journalEinvoiceAnswer(ctx: ServiceContext, reg: Register, invoice: { rsq: number; fn: string; dd: string }, outcome: Outcome): Promise<void> {
  const d = formatLocalDateTime(ctx.clock.now());
  const data: Obj = { TS: d, Event: outcome.event, RSQ: String(invoice.rsq), FN: invoice.fn, DD: invoice.dd, Status: outcome.status };
  if (outcome.id !== undefined) data.Id = outcome.id;
  if (outcome.reason !== undefined) data.Reason = outcome.reason;
  if (outcome.httpStatus !== undefined) data.HttpStatus = String(outcome.httpStatus);
  if (outcome.attribute !== undefined) data.Endpoint = outcome.attribute;
  if (outcome.test) data.Test = '1';
  if (outcome.later) data.Later = '1';
  // the content does not depend on the register's state: sealed again when another process wrote meanwhile
  await appendRecord(ctx, reg, { type: 'log', data, index: { d, ref: einvoiceRef(invoice.rsq) } }, undefined, true);
  // GET /last answers the invoice with its delivery from now on
  reg.last.delete('Tra');
  reg.last.delete('any');
}

/** The answer in a journaled log record, if it is one. */
export function einvoiceAnswerOf(data: Obj): EinvoiceAnswer | undefined {
  const event = str(data, 'Event');
  const rsq = Number(str(data, 'RSQ'));
  if (event === undefined || !EVENTS.has(event) || !Number.isSafeInteger(rsq)) return undefined;
  const answer: EinvoiceAnswer = { rsq, status: str(data, 'Status') ?? '', test: str(data, 'Test') === '1', later: str(data, 'Later') === '1', ts: str(data, 'TS') ?? '' };
  const id = str(data, 'Id');
  if (id !== undefined) answer.id = id;
  const reason = str(data, 'Reason');
  if (reason !== undefined) answer.reason = reason;
  return answer;
}

/** The last answer journaled for invoice `rsq`; undefined while none. */
export async function findEinvoiceAnswer(ctx: ServiceContext, reg: Register, rsq: number): Promise<EinvoiceAnswer | undefined> {
  const records: JournalRecord[] = await ctx.store.byRef(reg.state.rid, einvoiceRef(rsq));
  const answers = records.filter((r) => r.type === 'log').sort((a, b) => a.sq - b.sq).map((r) => einvoiceAnswerOf(JSON.parse(r.data) as Obj)).filter((a): a is EinvoiceAnswer => a !== undefined && a.rsq === rsq);
  return answers[answers.length - 1];
}

/** Fis.EInvoice: the delivery's status, the provider's id, the reason of a rejection or of not sending. */
export function einvoiceFis(answer: EinvoiceAnswer | undefined): Obj {
  if (!answer) return { Status: PENDING };
  const out: Obj = { Status: answer.status };
  if (answer.id !== undefined) out.Id = answer.id;
  if (answer.reason !== undefined) out.Reason = answer.reason;
  if (answer.test) out.Test = '1';
  return out;
}

/** A journaled invoice's data (as /find and /render show it) with its e-invoice's delivery in Fis; unchanged for other records. */
export async function withEinvoiceAnswer(ctx: ServiceContext, reg: Register, sq: number, data: Obj): Promise<Obj> {
  const fis = obj(data, 'Fis');
  if (!fis || !asksEinvoice(data)) return data;
  return { ...data, Fis: { ...fis, EInvoice: einvoiceFis(await findEinvoiceAnswer(ctx, reg, sq)) } };
}
