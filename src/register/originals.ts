/**
 * Rule 10 and parking: what a transaction says about other transactions. A void or return names its
 * original: an original is voided once, not after a return and not returned after its void, and all
 * returns of it together cannot give back more than it sold. A reprint names the receipt it repeats;
 * ResumeFN names the parked receipt it resumes (resumed once).
 * Lookups are made before the synchronous section, across the registers of the same company (a void at
 * one POS of a sale at another counts); `check` runs inside the section on the normalized ESR.
 */
import { FiscalError } from '../shared/errors.js';
import { type Dec, ZERO, abs, add, cmp, fmt, parseDec, sign } from '../shared/money.js';
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
  /** the original's journal record, when it is in a journal of this company */
  original?: JournalRecord;
  /** how often the original was reprinted before (NFS=DUP records naming it), for a reprint */
  reprints?: number;
  /** the checks that need the normalized transaction */
  check(esr: Obj, bc: BusinessCase): void;
}

/** The registers whose originals this register may name: those of the same company (TaxId$...), else itself. */
export function companyRids(ctx: ServiceContext, reg: Register): number[] {
  const cut = reg.state.rn.indexOf('$');
  if (cut < 0) return [reg.state.rid];
  const prefix = reg.state.rn.slice(0, cut + 1);
  return ctx.registers.list().filter((r) => r.state.rn.startsWith(prefix)).map((r) => r.state.rid);
}

async function across<T>(rids: readonly number[], f: (rid: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (const rid of rids) out.push(...(await f(rid)));
  return out;
}

/** A reference as the operator reads it: `1/5/17 of 2026`, or the FN. */
export function displayRef(ref: string): string {
  return ref.slice(3).replace('@', ' of ');
}

function refOf(tl: string, tt: string, tn: string, year: string | undefined): string {
  return `TN:${tl}/${tt}/${tn}${year ? `@${year}` : ''}`;
}

/**
 * The original a void or return names, as one key whichever way it is named: `TN:TL/TT/TN@year`
 * (RTL and RTT default to the request's own; the year from the original in this journal, else from RD),
 * or for an RFN of this register the TL/TT/TN of that FN, else `FN:<RFN>`.
 */
export async function referenceOf(ctx: ServiceContext, reg: Register, esr: Obj): Promise<{ ref?: string; original?: JournalRecord }> {
  const rfn = str(esr, 'RFN')?.trim();
  const rtn = str(esr, 'RTN')?.trim();
  const rdYear = /^\d{4}/.exec(str(esr, 'RD')?.trim() ?? '')?.[0];
  if (rtn) {
    const rids = companyRids(ctx, reg);
    const own = identityOf(esr);
    const tl = str(esr, 'RTL')?.trim() || own.tl;
    const tt = str(esr, 'RTT')?.trim() || own.tt;
    const candidates = (await across(rids, (rid) => ctx.store.byTn(rid, tl, tt, rtn)))
      .filter((r) => r.type === 'Tra' && r.bc !== 'void' && (!rdYear || r.d.startsWith(rdYear)))
      .sort((a, b) => b.d.localeCompare(a.d));
    const original = candidates[0];
    return { ref: refOf(tl, tt, rtn, original ? original.d.slice(0, 4) : rdYear), ...(original ? { original } : {}) };
  }
  if (!rfn) return {};
  // an FN is allocated per register: an RFN names a receipt of this register
  const original = (await ctx.store.byFn(reg.state.rid, rfn)).find((r) => r.type === 'Tra');
  if (!original) return { ref: `FN:${rfn}` };
  return { ref: refOf(original.tl ?? '', original.tt ?? '', original.tn ?? '', original.d.slice(0, 4)), original };
}

/** Quantities taken back by a transaction, per article: positions with a negative amount. */
function takenBack(positions: readonly Obj[]): Map<string, { qty: Dec; index: number }> {
  const out = new Map<string, { qty: Dec; index: number }>();
  positions.forEach((p, i) => {
    if (!isPos(p) || str(p, 'Void') === '1') return;
    const amt = parseDec(str(p, 'Amt') ?? '0') ?? ZERO;
    if (sign(amt) >= 0) return;
    const key = articleKey(p);
    const prev = out.get(key);
    out.set(key, { qty: add(prev?.qty ?? ZERO, abs(qtyOf(p))), index: prev?.index ?? i });
  });
  return out;
}

function positionsOf(record: JournalRecord): Obj[] {
  const data = JSON.parse(record.data) as Obj;
  const esr = data.ESR;
  return typeof esr === 'object' && !Array.isArray(esr) ? lines(esr, 'PosA').filter(isPos) : [];
}

/** Quantities per article the original sold (line voids netted out), less what earlier returns took back. */
function remainingQuantities(original: JournalRecord, earlier: JournalRecord[]): Map<string, Dec> {
  const left = new Map<string, Dec>();
  for (const p of positionsOf(original)) {
    const amt = parseDec(str(p, 'Amt') ?? '0') ?? ZERO;
    const q = abs(qtyOf(p));
    left.set(articleKey(p), add(left.get(articleKey(p)) ?? ZERO, sign(amt) < 0 ? { v: -q.v, s: q.s } : q));
  }
  for (const r of earlier) {
    for (const [key, { qty }] of takenBack(positionsOf(r))) left.set(key, add(left.get(key) ?? ZERO, { v: -qty.v, s: qty.s }));
  }
  return left;
}

/** What a transaction that names no other transaction needs: only the check that no position says Resume. */
const NO_REFERENCES: References = {
  check(esr: Obj): void {
    lines(esr, 'PosA').forEach((p, i) => {
      if (isPos(p) && str(p, 'Resume') === '1') throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${i}].Resume`, detail: 'a resumed position needs ESR.ResumeFN' });
    });
  },
};

export async function loadReferences(ctx: ServiceContext, reg: Register, esrIn: Obj): Promise<References> {
  // the common case, a sale naming nothing: no lookups
  if (!str(esrIn, 'RFN') && !str(esrIn, 'RTN') && !str(esrIn, 'ResumeFN') && str(esrIn, 'Void') !== '1') return NO_REFERENCES;
  const rid = reg.state.rid;
  const { ref, original } = await referenceOf(ctx, reg, esrIn);
  const isVoid = str(esrIn, 'Void') === '1';
  const isReprint = str(esrIn, 'NFS')?.toUpperCase() === 'DUP';
  const earlier = ref ? await across(companyRids(ctx, reg), (r) => ctx.store.byRef(r, ref)) : [];
  const reprints = isReprint ? earlier.filter((r) => r.bc === 'reprint').length : undefined;
  const earlierVoid = earlier.find((r) => r.bc === 'void');
  const earlierReturns = earlier.filter((r) => r.bc !== 'void' && r.bc !== 'reprint');
  if (isVoid) {
    if (!ref) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN (or ESR.RTL, ESR.RTT and ESR.RTN)' });
    if (earlierVoid) throw new FiscalError('#ALREADY_VOIDED', { value: displayRef(ref), sq: earlierVoid.sq });
    const returned = earlierReturns.find((r) => takenBack(positionsOf(r)).size > 0);
    if (returned) throw new FiscalError('#ALREADY_RETURNED', { value: displayRef(ref), sq: returned.sq });
  }
  let remaining: Map<string, Dec> | undefined;
  if (ref && !isVoid && !isReprint) {
    if (earlierVoid) throw new FiscalError('#ALREADY_VOIDED', { value: displayRef(ref), sq: earlierVoid.sq });
    if (original) remaining = remainingQuantities(original, earlierReturns);
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
    ...(original ? { original } : {}),
    ...(reprints !== undefined ? { reprints } : {}),
    check(esr: Obj, bc: BusinessCase): void {
      const positions = lines(esr, 'PosA');
      positions.forEach((p, i) => {
        if (isPos(p) && str(p, 'Resume') === '1' && !resume) {
          throw new FiscalError('#INVALID_VALUE', { field: `ESR.PosA[${i}].Resume`, detail: 'a resumed position needs ESR.ResumeFN' });
        }
      });
      // returns and exchanges: every position taken back counts against the original
      if (bc.kind === 'void' || !remaining) return;
      for (const [key, { qty, index }] of takenBack(positions)) {
        const left = remaining.get(key) ?? ZERO;
        if (cmp(qty, left) > 0) {
          throw new FiscalError('#RETURN_EXCEEDS', { field: `ESR.PosA[${index}]`, value: key.slice(key.indexOf(':') + 1), asked: fmt(qty), left: fmt(cmp(left, ZERO) < 0 ? ZERO : left) });
        }
      }
    },
  };
}

/** A record naming the same original (at any register of the company) or parked receipt that is still being committed. */
export function stale(ctx: ServiceContext, reg: Register, refs: References): Promise<void> | undefined {
  if (refs.resume) {
    const sq = reg.pendingResume.get(refs.resume);
    if (sq !== undefined) return reg.pending.get(sq) ?? Promise.resolve();
  }
  if (refs.ref) {
    for (const rid of companyRids(ctx, reg)) {
      const other = ctx.registers.byId(rid);
      const sq = other?.pendingRef.get(refs.ref);
      if (other && sq !== undefined) return other.pending.get(sq) ?? Promise.resolve();
    }
  }
  return undefined;
}
