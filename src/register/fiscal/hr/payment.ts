/**
 * The CIS payment method (NacinPlac) of a receipt from its payments (PayA/PayG): G gotovina (cash), K kartice
 * (cards), C ček (cheque), T transakcijski račun (bank transfer), O ostalo (other). A receipt paid in more than
 * one way is O, as the schema prescribes. Change and rounding lines are part of the cash payment; a national code
 * (G, K, C, T, O) is taken as it is. docs/countries/hr.md.
 */
import { type Obj, lines, str } from '../../codec/index.js';

export type NacinPlac = 'G' | 'K' | 'C' | 'T' | 'O';

const BY_PAYG: Readonly<Record<string, NacinPlac>> = {
  cash: 'G', foreign: 'G', refund: 'G',
  atm: 'K', debitcard: 'K', creditcard: 'K', mobile: 'K',
  check: 'C',
  open: 'O', creditnote: 'O', loyalty: 'O', title: 'O',
};

/** The payment method of one PayG; undefined for lines that are no payment of their own (change, rounding). */
export function methodOf(payG: string): NacinPlac | undefined {
  if (/^[GKCTO]$/.test(payG)) return payG as NacinPlac;
  const g = payG.toLowerCase();
  if (g === 'change' || g === 'rounding') return undefined;
  return Object.hasOwn(BY_PAYG, g) ? BY_PAYG[g] : 'O';
}

/** NacinPlac of a receipt: the one method of all its payments, O when they are several (or none). */
export function nacinPlacOf(esr: Obj): NacinPlac {
  const methods = new Set<NacinPlac>();
  for (const pay of lines(esr, 'PayA')) {
    const m = methodOf(str(pay, 'PayG') ?? '');
    if (m) methods.add(m);
  }
  if (methods.size === 1) return [...methods][0] as NacinPlac;
  return 'O';
}
