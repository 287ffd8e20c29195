/**
 * Rule 10 and parking: what a transaction says about other transactions. A void or return names its
 * original (an original is voided once; returns cannot give back more than it sold), a reprint names
 * the receipt it repeats, and ResumeFN names the parked receipt it resumes (resumed once).
 * The lookups are made before the synchronous section; `check` runs inside it on the normalized ESR.
 */
import { FiscalError } from '../shared/errors.js';
import { type Dec, ZERO, abs, add, cmp, fmt, sign } from '../shared/money.js';
import { type Obj, lines, str } from './codec/index.js';
import type { ServiceContext } from './context.js';
import type { BusinessCase } from './esr/business-case.js';
import { identityOf } from './esr/normalize.js';
import { articleKey, isPos, qtyOf } from './esr/tax.js';
import type { JournalRecord } from './journal/types.js';
import type { Register } from './registers.js';

/** NF value of a parked receipt. */
export const PARKED = 'PARK';

export interface References {
  /** the original named (void, return, reprint) */
  ref?: string;
  /** the FN of the parked receipt resumed */
  resume?: string;
  /** the checks that need the normalized transaction */
  check(esr: Obj, bc: BusinessCase): void;
}

/**
 * The original a void or return names, as one key whichever way it is named: `TN:TL/TT/TN` (RTL and RTT
 * default to the request's own), or for an RFN the TL/TT/TN of that FN when this journal has it, else `FN:<RFN>`.
 */
export async function referenceOf(ctx: ServiceContext, reg: Register, esr: Obj): Promise<{ ref?: string; original?: JournalRecord }> {
  const rfn = str(esr, 'RFN')?.trim();
  const rtn = str(esr, 'RTN')?.trim();
  if (rtn) {
    const own = identityOf(esr);
    const tl = str(esr, 'RTL')?.trim() || own.tl;
    const tt = str(esr, 'RTT')?.trim() || own.tt;
    const candidates = await ctx.store.byTn(reg.state.rid, tl, tt, rtn);
    const original = candidates.reverse().find((r) => r.type === 'Tra' && r.bc !== 'void');
    return { ref: `TN:${tl}/${tt}/${rtn}`, ...(original ? { original } : {}) };
  }
  if (!rfn) return {};
  const original = (await ctx.store.byFn(reg.state.rid, rfn)).find((r) => r.type === 'Tra');
  if (!original) return { ref: `FN:${rfn}` };
  return { ref: `TN:${original.tl ?? ''}/${original.tt ?? ''}/${original.tn ?? ''}`, original };
}


function positionsOf(record: JournalRecord): Obj[] {
  const data = JSON.parse(record.data) as Obj;
  const esr = data.ESR;
  return typeof esr === 'object' && !Array.isArray(esr) ? lines(esr, 'PosA').filter(isPos) : [];
}

/** Quantities per article of the original (line voids netted out), less what earlier returns gave back. */
function remainingQuantities(original: JournalRecord, earlier: JournalRecord[]): Map<string, Dec> {
  const left = new Map<string, Dec>();
  for (const p of positionsOf(original)) left.set(articleKey(p), add(left.get(articleKey(p)) ?? ZERO, qtyOf(p)));
  for (const r of earlier) {
    for (const p of positionsOf(r)) {
      const q = qtyOf(p);
      if (sign(q) < 0) left.set(articleKey(p), add(left.get(articleKey(p)) ?? ZERO, q));
    }
  }
  return left;
}

export async function loadReferences(ctx: ServiceContext, reg: Register, esrIn: Obj): Promise<References> {
  const rid = reg.state.rid;
  const { ref, original } = await referenceOf(ctx, reg, esrIn);
  const isVoid = str(esrIn, 'Void') === '1';
  if (isVoid) {
    if (!ref) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN (or ESR.RTL, ESR.RTT and ESR.RTN)' });
    const earlier = (await ctx.store.byRef(rid, ref)).find((r) => r.bc === 'void');
    if (earlier) throw new FiscalError('#ALREADY_VOIDED', { value: ref.slice(3), sq: earlier.sq });
  }
  let remaining: Map<string, Dec> | undefined;
  if (ref && original && !isVoid) {
    const earlierReturns = (await ctx.store.byRef(rid, ref)).filter((r) => r.bc === 'return');
    remaining = remainingQuantities(original, earlierReturns);
  }
  const resume = str(esrIn, 'ResumeFN')?.trim() || undefined;
  if (resume) {
    const parked = (await ctx.store.byFn(rid, resume)).find((r) => r.type === 'Tra');
    const parkedNf = parked ? str((JSON.parse(parked.data) as { ESR?: Obj }).ESR ?? {}, 'NF') : undefined;
    if (!parked || parkedNf?.toUpperCase() !== PARKED) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.ResumeFN', detail: `"${resume}" is not the FN of a parked receipt (NF=${PARKED}) of this register` });
    }
    const resumed = await ctx.store.byResume(rid, resume);
    if (resumed.length) throw new FiscalError('#ALREADY_RESUMED', { value: resume, sq: (resumed[0] as JournalRecord).sq });
  }
  return {
    ...(ref ? { ref } : {}),
    ...(resume ? { resume } : {}),
    check(esr: Obj, bc: BusinessCase): void {
      const positions = lines(esr, 'PosA');
      positions.forEach((p, i) => {
        if (isPos(p) && str(p, 'Resume') === '1' && !resume) {
          throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${i}].Resume`, detail: 'a resumed position needs ESR.ResumeFN' });
        }
      });
      if (bc.kind !== 'return' || !remaining) return;
      const asked = new Map<string, { qty: Dec; index: number }>();
      positions.forEach((p, i) => {
        if (!isPos(p)) return;
        const q = qtyOf(p);
        if (sign(q) >= 0) return;
        const key = articleKey(p);
        const prev = asked.get(key);
        asked.set(key, { qty: add(prev?.qty ?? ZERO, abs(q)), index: prev?.index ?? i });
      });
      for (const [key, { qty, index }] of asked) {
        const left = remaining.get(key);
        if (left === undefined) {
          throw new FiscalError('#RETURN_EXCEEDS', { field: `ESR.PosA[${index}]`, value: key.slice(key.indexOf(':') + 1), asked: fmt(qty), left: '0' });
        }
        if (cmp(qty, left) > 0) {
          throw new FiscalError('#RETURN_EXCEEDS', { field: `ESR.PosA[${index}]`, value: key.slice(key.indexOf(':') + 1), asked: fmt(qty), left: fmt(cmp(left, ZERO) < 0 ? ZERO : left) });
        }
      }
    },
  };
}

/** Whether a record naming the same original or parked receipt was submitted meanwhile (then look again). */
export function stale(reg: Register, refs: References): number | undefined {
  return (refs.ref ? reg.pendingRef.get(refs.ref) : undefined) ?? (refs.resume ? reg.pendingResume.get(refs.resume) : undefined);
}
