/**
 * POST /register/void and /register/void/last: the service builds the void from the original —
 * amounts and quantities inverted, the original named by RTL/RTT/RTN (and RD, RFN), the void under this
 * register's own TL/TT with a new TN (or SESR.TN) — and registers it like any transaction, so rule 10
 * refuses a second void.
 */
import { FiscalError } from '../shared/errors.js';
import { type Doc, type Obj, isObj, lines, obj, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import type { JournalRecord } from './journal/types.js';
import type { BuiltRequest } from './pipeline.js';
import { rnOfQuery } from './register-number.js';

/** "1.50" -> "-1.50", "-2" -> "2", "0.00" stays: the exact text, no reformatting. */
export function negateText(v: string): string {
  if (v.startsWith('-')) return v.slice(1);
  if (/^\+?0*\.?0*$/.test(v)) return v;
  return `-${v.replace(/^\+/, '')}`;
}

const DROP = ['D', 'D0', 'TN', 'FN', 'ResumeFN', 'TID', 'Void', 'RD', 'RTL', 'RTT', 'RTN', 'RFN', 'RFiscal', 'SQ', 'RN'];
const INVERT: Readonly<Record<string, readonly string[]>> = {
  Pos: ['Amt', 'Qty'],
  Mod: ['Amt'],
  Pay: ['Amt', 'FAmt'],
  Tax: ['Net', 'TAmt', 'Amt', 'Base'],
};

export interface VoidOptions {
  tl: string;
  tt: string;
  /** the original's FN, when known */
  fn?: string;
  tn?: string;
  rsn?: string;
}

/** The void transaction of an original ESR. */
export function invertForVoid(original: Obj, o: VoidOptions): Obj {
  const esr: Obj = structuredClone(original);
  for (const k of DROP) delete esr[k];
  const t = str(esr, 'T');
  if (t !== undefined) esr.T = negateText(t);
  for (const container of ['PosA', 'PayA', 'TaxA']) {
    if (esr[container] === undefined) continue;
    esr[container] = lines(esr, container).map((line) => {
      const out: Obj = { ...line };
      // the void takes back the whole receipt: line-level void and resume marks no longer apply
      delete out.Void;
      delete out.Resume;
      for (const k of INVERT[str(line, '_') === 'Pos' && str(line, 'PTY') === 'Mod' ? 'Mod' : (str(line, '_') ?? '')] ?? []) {
        const v = str(line, k);
        if (v !== undefined) out[k] = negateText(v);
      }
      return out;
    });
  }
  esr.Void = '1';
  esr.RTL = str(original, 'TL') ?? '';
  esr.RTT = str(original, 'TT') ?? '1';
  const tn = str(original, 'TN');
  if (tn) esr.RTN = tn;
  const d = str(original, 'D');
  if (d) esr.RD = d;
  if (o.fn) esr.RFN = o.fn;
  esr.TL = o.tl;
  esr.TT = o.tt;
  if (o.tn) esr.TN = o.tn;
  if (o.rsn) esr.Rsn = o.rsn;
  return esr;
}

function originalOf(record: JournalRecord): { esr: Obj; fn?: string; bc?: string } {
  const data = JSON.parse(record.data) as Obj;
  const fn = str(obj(data, 'Fis') ?? {}, 'FN');
  return { esr: obj(data, 'ESR') ?? {}, ...(fn ? { fn } : {}), ...(record.bc ? { bc: record.bc } : {}) };
}

/** This register's own TL/TT: from the register number in Multi POS, else its Cfg, else the defaults (no TL, TT 1). */
function ownIdentity(ctx: ServiceContext, rn: string): { tl: string; tt: string } {
  if (ctx.profiles.multiPos()) {
    const m = /^[^$]*\$([^_]*)_(.*)$/.exec(rn);
    if (m) return { tl: m[1] as string, tt: m[2] as string };
  }
  const cfg = ctx.registers.get(rn)?.state.cfg ?? {};
  return { tl: str(obj(cfg, 'Loc') ?? {}, 'TL') ?? '', tt: str(obj(cfg, 'Trm') ?? {}, 'TT') ?? '1' };
}

/** Business cases that are not sales: they are not voided (a reprint, a Z, a login...). */
const NOT_VOIDABLE = new Set(['nonfiscal', 'closing', 'training', 'payment', 'login', 'logout', 'payin', 'payout', 'reprint', 'xreport']);

function refuseNonFiscal(esr: Obj, where: string): void {
  if (str(esr, 'NF') || str(esr, 'NFS')) {
    throw new FiscalError('#INVALID_VALUE', { field: where, detail: 'only fiscal transactions are voided; this one is non-fiscal (NF or NFS)' });
  }
}

/** Builds the void request of POST /register/void (the original in the body) or /register/void/last. */
export function buildVoid(ctx: ServiceContext, query: Readonly<Record<string, string>>, last: boolean): (given: Doc | undefined) => Promise<BuiltRequest> {
  return async (given) => {
    const rn = rnOfQuery(ctx, query);
    const reg = ctx.registers.get(rn);
    if (given && given.root !== 'Tra' && !(last && given.root === 'SESR')) throw new FiscalError('#UNKNOWN_ROOT', { field: given.root, expected: last ? 'Tra or SESR' : 'Tra' });
    const sesr = given ? (given.root === 'SESR' ? given.body : obj(given.body, 'SESR')) : undefined;
    let original: { esr: Obj; fn?: string; bc?: string };
    if (last) {
      // the last fiscal transaction: reprints, closings, logins and the like are passed over
      let record: JournalRecord | undefined;
      if (reg) {
        for await (const r of ctx.store.find(reg.state.rid, { type: 'Tra', sort: 'desc' }, 50)) {
          if (!NOT_VOIDABLE.has(r.bc ?? '')) {
            record = r;
            break;
          }
        }
      }
      if (!record) throw new FiscalError('#NOT_FOUND', { value: `a transaction of ${rn} to void` });
      original = originalOf(record);
      if (original.bc === 'void') throw new FiscalError('#INVALID_VALUE', { field: 'last transaction', detail: `SQ ${record.sq} is itself a void` });
    } else {
      const esr = given ? obj(given.body, 'ESR') : undefined;
      if (!esr || !isObj(esr)) throw new FiscalError('#MISSING_FIELD', { field: 'Tra.ESR (the original transaction)' });
      original = { esr };
      const fn = str(obj(given?.body ?? {}, 'Fis') ?? {}, 'FN');
      if (fn) original.fn = fn;
      // the journal's copy is authoritative when this register holds the same TL/TT/TN (and FN, if given)
      const tn = str(esr, 'TN');
      if (reg && tn) {
        const found = (await ctx.store.byTn(reg.state.rid, str(esr, 'TL') ?? '', str(esr, 'TT') ?? '1', tn))
          .reverse()
          .find((r) => r.type === 'Tra' && r.bc !== 'void' && (fn === undefined || r.fn === fn) && (!str(esr, 'D') || r.d === str(esr, 'D')));
        if (found) original = originalOf(found);
      }
    }
    refuseNonFiscal(original.esr, last ? 'last transaction' : 'Tra.ESR');
    const own = ownIdentity(ctx, rn);
    const tn = sesr ? str(sesr, 'TN') : undefined;
    const esr = invertForVoid(original.esr, { ...own, ...(original.fn ? { fn: original.fn } : {}), ...(tn ? { tn } : {}), ...(query.rsn ? { rsn: query.rsn } : {}) });
    return { doc: { root: 'Tra', body: { ESR: esr }, format: given?.format ?? 'json' }, rn };
  };
}
