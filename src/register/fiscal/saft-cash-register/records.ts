/**
 * SAF-T Cash Register: how a journal record reads for the file: its fields as text and amounts, the signed
 * cash transaction it is (if any), whether it is an X or Z report, and its lines' VAT, quantity, type and
 * article group. All amounts are exact (src/shared/money.ts); TaxA entries with TTY (consumption taxes)
 * are not VAT.
 */
import { type Dec, ZERO, abs, add, dec, fmt, parseDec, rescale, sign, sub, taxOfGross } from '../../../shared/money.js';
import { type Obj, lines, obj } from '../../codec/index.js';
import { OTHER_ART_GROUP } from './codes.js';
import { isMod, isPos } from '../../esr/tax.js';

/** A record field as text (numbers too: SQ may be a JSON number). */
export function text(o: Obj | undefined, key: string): string | undefined {
  const v = o?.[key] as unknown;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return undefined;
}

/** A decimal text as Dec, 0 when absent or not a decimal. */
export function amount(v: string | undefined): Dec {
  return (v === undefined ? undefined : parseDec(v.trim())) ?? ZERO;
}

/** Exactly two decimals, rounded half away from zero when the value has more. */
export function money2(d: Dec): string {
  return fmt(rescale(d, 2), 2);
}

/** How a journal record reads as a signed cash transaction. */
export interface CashTx {
  record: Obj;
  sq: string;
  bc: string;
  esr: Obj;
  fis: Obj;
  fn: string;
  /** ESR.T (else Fis.AmntIn) */
  total: Dec;
  training: boolean;
  void: boolean;
  ret: boolean;
  payin: boolean;
  payout: boolean;
  /** counts as a cash sale (or return): not training, not a pay-in or pay-out */
  sale: boolean;
}

/** The signed cash transaction a record is, or undefined (events, Audit, log, Cfg, unsigned Tra). */
export function cashTxOf(record: Obj): CashTx | undefined {
  if (record._ !== 'Tra') return undefined;
  const fis = obj(record, 'Fis');
  if (!fis || !text(fis, 'Signature') || !text(fis, 'FN')) return undefined;
  const esr = obj(record, 'ESR') ?? {};
  const bc = (text(record, 'BC') ?? '').toLowerCase();
  const flags = (text(record, 'BCF') ?? '').split(/\s+/);
  const training = flags.includes('test') || bc === 'training' || text(esr, 'Test') === '1' || text(fis, 'Training') === '1';
  const isVoid = bc === 'void' || text(esr, 'Void') === '1';
  const payin = bc === 'payin';
  const payout = bc === 'payout';
  const total = amount(text(esr, 'T') ?? text(fis, 'AmntIn'));
  const ret = !isVoid && !payin && !payout && (bc === 'return' || sign(total) < 0);
  return {
    record, sq: text(record, 'SQ') ?? '', bc, esr, fis, fn: text(fis, 'FN') ?? '', total,
    training, void: isVoid, ret, payin, payout, sale: !training && !payin && !payout,
  };
}

/** A training record (Test=1): never a report of the day, whatever its kind. */
function isTraining(record: Obj): boolean {
  return (text(record, 'BCF') ?? '').split(/\s+/).includes('test');
}

export function isZ(record: Obj): boolean {
  return record._ === 'Tra' && (text(record, 'BC') ?? '').toLowerCase() === 'closing' && !isTraining(record);
}

export function isX(record: Obj): boolean {
  return record._ === 'Tra' && (text(record, 'BC') ?? '').toLowerCase() === 'xreport' && !isTraining(record);
}

/** A Pos or Mod line's VAT: the rate of its TaxA entry (TaxG link), else a 'NN%' TaxG, else the only TaxA entry. */
export interface LineVat {
  rate: Dec;
  gross: Dec;
  vat: Dec;
  net: Dec;
}

export function rateOf(line: Obj, taxA: readonly Obj[]): Dec {
  const groups = (text(line, 'TaxG') ?? '').split(/\s+/).filter(Boolean);
  for (const g of groups) {
    const t = taxA.find((x) => text(x, 'TaxG') === g);
    if (t) return amount(text(t, 'Prc'));
    const pct = /^(\d+(?:\.\d+)?)%$/.exec(g);
    if (pct) return dec(pct[1] as string);
  }
  if (taxA.length === 1) return amount(text(taxA[0], 'Prc'));
  return ZERO;
}

export function lineVat(line: Obj, taxA: readonly Obj[]): LineVat {
  const rate = rateOf(line, taxA);
  const gross = rescale(amount(text(line, 'Amt')), 2);
  const vat = taxOfGross(gross, rate, 2);
  return { rate, gross, vat, net: sub(gross, vat) };
}

/** A position's quantity, the sign of its amount when Qty is absent. */
export function qtyOf(line: Obj): Dec {
  const q = text(line, 'Qty');
  const parsed = q === undefined ? undefined : parseDec(q.trim());
  if (parsed) return parsed;
  return { v: sign(amount(text(line, 'Amt'))) < 0 ? -1n : 1n, s: 0 };
}

/** A Pos.Cat as an article-group basicID: a predefined 04xxx code as it is, any other with the prefix `AG-`
 * (so that a Cat like 'SAL' or 'CASH' never collides with a built-in basicID). */
export function artGroupId(cat: string): string {
  return /^04\d{3}$/.test(cat) ? cat : `AG-${cat}`.slice(0, 35);
}

/** The article group (basicID) of each Pos/Mod line: Pos.Cat, a Mod's Cat or its position's, else 04999. */
export function artGroupsOf(posA: readonly Obj[]): string[] {
  const byPn = new Map<string, string>();
  let previous = OTHER_ART_GROUP;
  return posA.map((line) => {
    if (isMod(line)) {
      const own = text(line, 'Cat');
      if (own) return artGroupId(own);
      const pn = (text(line, 'PN') ?? '').trim();
      return byPn.get(pn) ?? previous;
    }
    const cat = text(line, 'Cat');
    const g = cat ? artGroupId(cat) : OTHER_ART_GROUP;
    byPn.set((text(line, 'PN') ?? '').trim(), g);
    previous = g;
    return g;
  });
}

/** A Pos/Mod line's type, decided once from its amount rounded to 2 decimals: RET (a negative position), DSC (a negative modifier), else SAL. */
export function lineTypeOf(line: Obj): 'SAL' | 'RET' | 'DSC' {
  const negative = sign(rescale(amount(text(line, 'Amt')), 2)) < 0;
  if (!negative) return 'SAL';
  return isMod(line) ? 'DSC' : 'RET';
}

/** The VAT entries of a receipt's TaxA: those without TTY (a TTY entry is a consumption tax, not VAT). */
export function vatTaxA(esr: Obj): Obj[] {
  return lines(esr, 'TaxA').filter((t) => !text(t, 'TTY'));
}

/** The positions returned on a sales receipt (RET lines of a receipt that is not itself a return or void): how many and their amount. */
export function returnedOnSale(tx: CashTx): Dec {
  if (tx.void || tx.ret || tx.payin || tx.payout) return ZERO;
  let total = ZERO;
  for (const line of lines(tx.esr, 'PosA')) {
    if (!isPos(line) || text(line, 'Void') === '1' || lineTypeOf(line) !== 'RET') continue;
    total = add(total, abs(rescale(amount(text(line, 'Amt')), 2)));
  }
  return total;
}
