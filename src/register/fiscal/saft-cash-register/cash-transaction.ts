/**
 * What Norway's and Denmark's signatures and SAF-T files say of a cash transaction the same way: its amounts
 * incl. and excl. VAT (ESR.T, and T minus the VAT of TaxA; consumption taxes are no VAT) and its transaction
 * type (a basicID of the export's basics).
 */
import { type Dec, add, dec, fmt, neg, parseDec, round, sign } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';

function amountOf(text: string | undefined): Dec {
  return (text !== undefined ? parseDec(text) : undefined) ?? dec('0');
}

/** ESR.T and the amounts signed: incl. and excl. VAT, two decimals with a point. */
export function signedAmounts(esr: Obj): { total: Dec; amntIn: string; amntEx: string } {
  const total = amountOf(str(esr, 'T'));
  let vat = dec('0');
  for (const tax of lines(esr, 'TaxA')) if (!str(tax, 'TTY')) vat = add(vat, amountOf(str(tax, 'TAmt')));
  return { total, amntIn: fmt(round(total, 2), 2), amntEx: fmt(round(add(total, neg(vat)), 2), 2) };
}

/** The transaction type of a cash transaction of business case `kind`. */
export function cashTransType(kind: string, training: boolean, total: Dec): string {
  if (kind === 'payin') return 'PAYIN';
  if (kind === 'payout') return 'PAYOUT';
  if (['sale', 'return', 'void', 'training', ''].includes(kind) || training) return sign(total) < 0 ? 'RETURNSAL' : 'CASHSAL';
  return 'OTHERTRANS';
}
