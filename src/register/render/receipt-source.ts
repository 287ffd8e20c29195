/**
 * Which record /render draws and with which configuration: from the journal by RN and FN (default the
 * register's last receipt), or as posted. The header is printed from the Cfg that was in force when
 * the record was made (the last Cfg record before its SQ), so that a reprint after a change of
 * address still shows the receipt as it was; a posted record with its SQ and RN gets the same.
 */
import { FiscalError, type Lang, asLang } from '../../shared/errors.js';
import { type Obj, isObj, obj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { JournalRecord } from '../journal/types.js';
import type { Register } from '../registers.js';
import { recordView } from '../journal/record-view.js';
import { withAuthorityAnswer } from '../fiscal/delivery/answers.js';
import { withEinvoiceAnswer } from '../einvoice/answers.js';
import { RECEIPT_TYPES, type ReceiptRecord, type ReceiptType } from './receipt-view.js';

export interface ReceiptSource {
  record: ReceiptRecord;
  /** the register it belongs to (a posted record may come from another instance) */
  reg: Register | undefined;
  cfg: Obj;
  lang: Lang;
}

/** FN formats differ by country; what reaches the journal lookup is bounded and printable. */
const FN_PATTERN = /^[\p{L}\p{N} ._:/#+-]{1,64}$/u;

function isReceiptType(type: string): type is ReceiptType {
  return (RECEIPT_TYPES as readonly string[]).includes(type);
}

async function lastReceipt(ctx: ServiceContext, reg: Register): Promise<JournalRecord> {
  for await (const r of ctx.store.find(reg.state.rid, { type: 'Tra', sort: 'desc' }, 1)) return r;
  throw new FiscalError('#NOT_FOUND', { value: `a receipt of register ${reg.state.rn} (none registered yet)` });
}

async function receiptByFn(ctx: ServiceContext, reg: Register, fn: string): Promise<JournalRecord> {
  if (!FN_PATTERN.test(fn)) throw new FiscalError('#INVALID_VALUE', { field: 'FN', detail: `a fiscal number (letters, digits and . _ : / # + -, at most 64), got "${fn.slice(0, 80)}"` });
  const found = (await ctx.store.byFn(reg.state.rid, fn)).filter((r) => isReceiptType(r.type));
  // a receipt's FN is its own; should a TraS carry it too, the receipt is the one meant
  const record = [...found].reverse().find((r) => r.type === 'Tra') ?? found[found.length - 1];
  if (!record) throw new FiscalError('#NOT_FOUND', { value: `receipt FN ${fn} of register ${reg.state.rn}` });
  return record;
}

/** The register's Cfg as of SQ `sq`: the last Cfg record before it, else the current one. */
export async function cfgAt(ctx: ServiceContext, reg: Register, sq: number | undefined): Promise<Obj> {
  if (sq !== undefined) {
    for await (const r of ctx.store.find(reg.state.rid, { type: 'Cfg', sort: 'desc', afterSq: sq }, 1)) {
      const cfg = (JSON.parse(r.data) as Obj).Cfg;
      if (isObj(cfg)) return cfg;
    }
  }
  return reg.state.cfg;
}

function langOf(ctx: ServiceContext, reg: Register | undefined, cfg: Obj): Lang {
  const own = str(obj(cfg, 'Trm') ?? {}, 'Lang');
  return own ? asLang(own) : ctx.registers.lang(reg);
}

export async function journalReceipt(ctx: ServiceContext, reg: Register, fn: string | undefined): Promise<ReceiptSource> {
  return receiptOfRecord(ctx, reg, fn === undefined ? await lastReceipt(ctx, reg) : await receiptByFn(ctx, reg, fn));
}

/** Whether a journal record is one /render draws (a receipt, a TraS, an audit record). */
export function isReceiptRecord(r: JournalRecord): boolean {
  return isReceiptType(r.type);
}

/** A journal record of one of the receipt types (isReceiptRecord) as /render draws it (the journal page opens receipts by SQ). */
export async function receiptOfRecord(ctx: ServiceContext, reg: Register, r: JournalRecord): Promise<ReceiptSource> {
  // Croatia, Slovenia: the authority's answer (JIR, EOR) journaled after the receipt is printed with it
  // an invoice with an e-invoice: its delivery status, journaled after it
  const view = r.type === 'Tra' ? await withEinvoiceAnswer(ctx, reg, r.sq, await withAuthorityAnswer(ctx, reg, r.sq, recordView(r))) : recordView(r);
  const { _: _type, ...data } = view;
  const cfg = await cfgAt(ctx, reg, r.sq);
  return { record: { type: r.type as ReceiptType, data }, reg, cfg, lang: langOf(ctx, reg, cfg) };
}

/** A posted record, with the register the query names, else the one the record names, else none. */
export async function postedReceipt(ctx: ServiceContext, record: ReceiptRecord, named: Register | undefined): Promise<ReceiptSource> {
  const rn = str(record.data, 'RN');
  const reg = named ?? ctx.registers.get(rn ?? 'def');
  const sqText = str(record.data, 'SQ');
  // the SQ of a record from another register says nothing about this one's configuration
  const sameRegister = reg !== undefined && (rn === undefined || rn === reg.state.rn);
  const sq = sameRegister && sqText !== undefined && /^\d{1,15}$/.test(sqText) ? Number(sqText) : undefined;
  const cfg = reg ? await cfgAt(ctx, reg, sq) : {};
  return { record, reg, cfg, lang: langOf(ctx, reg, cfg) };
}
