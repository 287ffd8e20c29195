/**
 * The tax authority's answer to a receipt (its JIR or EOR, or its refusal), journaled as a `log` record of its
 * own: the receipt's record is never changed. The answer names the receipt by its SQ (RSQ) and is indexed by
 * `ref` = `ANS:<RSQ>`, so that /find, /render, GET /last and a duplicate's answer find it with one lookup.
 */
import { type Obj, isObj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { JournalRecord } from '../../journal/types.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { type Sealed, sealedOf } from '../../record-answer.js';
import type { AuthorityPort, DeliveryResult } from '../authority.js';
import { moduleFor } from '../registry.js';

export const ANSWER_EVENT = 'FiscalAnswer';
export const REFUSAL_EVENT = 'FiscalRefusal';

export interface AuthorityAnswer {
  /** the SQ of the receipt answered */
  rsq: number;
  /** the authority's id (JIR, EOR), absent for a refusal */
  id?: string;
  code?: string;
  message?: string;
  /** delivered later (subsequent delivery) */
  later: boolean;
  /** when the answer was journaled */
  ts: string;
}

export function answerRef(rsq: number): string {
  return `ANS:${rsq}`;
}

/** The authority a register's receipts are reported to, if its country has one. */
export function authorityOf(reg: Register): AuthorityPort | undefined {
  return moduleFor(reg.state.cfg).authority;
}

/** Journals the authority's answer to receipt `rsq` (FN `fn`). */
export async function journalAnswer(ctx: ServiceContext, reg: Register, port: AuthorityPort, receipt: { rsq: number; fn: string }, result: DeliveryResult, later: boolean): Promise<void> {
  const d = formatLocalDateTime(ctx.clock.now());
  const data: Obj = { TS: d, Event: result.ok ? ANSWER_EVENT : REFUSAL_EVENT, RSQ: String(receipt.rsq), FN: receipt.fn, Authority: port.name };
  if (result.ok) data[port.idName] = result.id;
  else {
    data.Code = result.code;
    data.Message = result.message;
  }
  if (later) data.Later = '1';
  // the content does not depend on the register's state: sealed again when another process wrote meanwhile
  await appendRecord(ctx, reg, { type: 'log', data, index: { d, ref: answerRef(receipt.rsq) } }, undefined, true);
  // GET /last answers the receipt with its answer from now on
  reg.last.delete('Tra');
}

/** The answer in a journaled log record, if it is one. */
export function answerOfRecord(port: AuthorityPort, data: Obj): AuthorityAnswer | undefined {
  const event = str(data, 'Event');
  const rsq = Number(str(data, 'RSQ'));
  if ((event !== ANSWER_EVENT && event !== REFUSAL_EVENT) || !Number.isSafeInteger(rsq)) return undefined;
  const answer: AuthorityAnswer = { rsq, later: str(data, 'Later') === '1', ts: str(data, 'TS') ?? '' };
  const id = str(data, port.idName);
  if (event === ANSWER_EVENT && id) answer.id = id;
  const code = str(data, 'Code');
  if (code !== undefined) answer.code = code;
  const message = str(data, 'Message');
  if (message !== undefined) answer.message = message;
  return answer;
}

/** The answer to receipt `rsq`: the id when one arrived, else the last refusal; undefined while none. */
export async function findAnswer(ctx: ServiceContext, reg: Register, port: AuthorityPort, rsq: number): Promise<AuthorityAnswer | undefined> {
  const records: JournalRecord[] = await ctx.store.byRef(reg.state.rid, answerRef(rsq));
  const answers = records.filter((r) => r.type === 'log').map((r) => answerOfRecord(port, JSON.parse(r.data) as Obj)).filter((a): a is AuthorityAnswer => a !== undefined && a.rsq === rsq);
  // the online answer is the one printed for the customer; else the first id that arrived later
  return answers.find((a) => a.id !== undefined && !a.later) ?? answers.find((a) => a.id !== undefined) ?? answers[answers.length - 1];
}

/** A receipt's Fis with the authority's answer in it: the id (and what the country prints with it), or the refusal. */
export function fisWithAnswer(port: AuthorityPort, data: Obj, fis: Obj, answer: AuthorityAnswer | undefined): Obj {
  if (!answer) return fis;
  if (answer.id !== undefined) return port.withId(fis, answer.id, data);
  return { ...fis, AuthorityRefusal: `${answer.code ?? ''} ${answer.message ?? ''}`.trim() };
}

/**
 * A journaled receipt's data (as /find and /render show it) with the authority's answer merged into Fis;
 * unchanged for records of countries without an authority or not reported.
 */
export async function withAuthorityAnswer(ctx: ServiceContext, reg: Register, sq: number, data: Obj): Promise<Obj> {
  const port = authorityOf(reg);
  if (!port || !isObj(data.Fis) || !port.reports(data)) return data;
  const answer = await findAnswer(ctx, reg, port, sq);
  return answer ? { ...data, Fis: fisWithAnswer(port, data, data.Fis, answer) } : data;
}

/**
 * A record as GET /last answers it on a register with an authority: a receipt with its answer merged, and
 * for an answer record (the newest record right after a receipt) the receipt it answers, since that is what
 * the POS asks for.
 */
export async function lastWithAnswer(ctx: ServiceContext, reg: Register, record: JournalRecord): Promise<Sealed> {
  const port = authorityOf(reg);
  let target = record;
  if (port && record.type === 'log') {
    const answer = answerOfRecord(port, JSON.parse(record.data) as Obj);
    const receipt = answer ? await ctx.registers.record(reg, answer.rsq) : undefined;
    if (receipt) target = receipt;
  }
  const sealed = sealedOf(target);
  if (!port || target.type !== 'Tra') return sealed;
  return { ...sealed, data: await withAuthorityAnswer(ctx, reg, target.sq, sealed.data) };
}
