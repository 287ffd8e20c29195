/**
 * Step 4 of the pipeline: the business case of a transaction, derived from NFS/NF, Void,
 * Pos.PTY, DD/DT and Ctm, as the spec describes. It is recorded on the journal record.
 */
import { parseDec, sign } from '../../shared/money.js';
import { type Obj, isObj, lines, str } from '../codec/index.js';
import { isPos } from './tax.js';

export type BusinessKind =
  | 'sale' | 'return' | 'void' | 'invoice' | 'voucher' | 'deposit' | 'tip' | 'nonfiscal'
  | 'closing' | 'training' | 'payment' | 'login' | 'logout' | 'payin' | 'payout' | 'reprint' | 'xreport';

export interface BusinessCase {
  kind: BusinessKind;
  /** further facts: invoice, einvoice, test, lineVoid, voucher, deposit, tip, advance, foc, resume */
  flags: string[];
  /** fiscal transactions enter the turnover; NF and NFS ones do not */
  fiscal: boolean;
}

const NFS_KIND: Readonly<Record<string, BusinessKind>> = {
  Z: 'closing', TRAINING: 'training', PAY: 'payment', LOGIN: 'login', LOGOUT: 'logout',
  PAYIN: 'payin', PAYOUT: 'payout', DUP: 'reprint', X: 'xreport',
};

const PTY_FLAG: Readonly<Record<string, string>> = { Vou: 'voucher', Dep: 'deposit', Tip: 'tip', Adv: 'advance', FoC: 'foc' };

function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The business case flags a journaled record carries (`BCF`, written by the pipeline as the flags joined by spaces). */
export function journaledFlags(record: Obj): string[] {
  return (str(record, 'BCF') ?? '').split(/\s+/).filter(Boolean);
}

export function classify(esr: Obj): BusinessCase {
  const flags = new Set<string>();
  const positions = lines(esr, 'PosA').filter(isPos);
  for (const p of positions) {
    const flag = own(PTY_FLAG, str(p, 'PTY') ?? '');
    if (flag) flags.add(flag);
    if (str(p, 'Void') === '1') flags.add('lineVoid');
    if (str(p, 'Resume') === '1') flags.add('resume');
  }
  if (isObj(esr.Ctm) || /invoice/i.test(str(esr, 'DT') ?? '')) flags.add('invoice');
  if (str(esr, 'DD')) flags.add('einvoice');
  if (str(esr, 'Test') === '1') flags.add('test');

  const nfs = str(esr, 'NFS');
  if (nfs) return { kind: own(NFS_KIND, nfs.toUpperCase()) ?? 'nonfiscal', flags: [...flags], fiscal: false };
  if (str(esr, 'NF')) return { kind: 'nonfiscal', flags: [...flags], fiscal: false };
  if (str(esr, 'Void') === '1') return { kind: 'void', flags: [...flags], fiscal: true };

  const t = parseDec(str(esr, 'T') ?? '0');
  const refersToOriginal = Boolean(str(esr, 'RFN') || str(esr, 'RTN'));
  if ((t && sign(t) < 0) || (refersToOriginal && positions.length > 0 && positions.every((p) => (parseDec(str(p, 'Amt') ?? '0')?.v ?? 0n) <= 0n))) {
    return { kind: 'return', flags: [...flags], fiscal: true };
  }
  if (flags.has('invoice')) return { kind: 'invoice', flags: [...flags], fiscal: true };
  const only = (flag: string): boolean => positions.length > 0 && positions.every((p) => own(PTY_FLAG, str(p, 'PTY') ?? '') === flag);
  if (only('voucher')) return { kind: 'voucher', flags: [...flags], fiscal: true };
  if (only('deposit')) return { kind: 'deposit', flags: [...flags], fiscal: true };
  if (only('tip')) return { kind: 'tip', flags: [...flags], fiscal: true };
  return { kind: 'sale', flags: [...flags], fiscal: true };
}
