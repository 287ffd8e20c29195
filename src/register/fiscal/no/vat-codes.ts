/**
 * Norway's VAT codes in the SAF-T Cash Register file: a rate's code and its standard VAT code (SAF-T
 * standard tax codes), and the rates every file declares and every report lists.
 */
import { type Dec, cmp, dec, fmt, rescale, significantScale } from '../../../shared/money.js';

/** A VAT rate's code in this file and its Norwegian standard VAT code (SAF-T standard tax codes). */
export interface VatCode {
  code: string;
  standard: string;
  desc: string;
  rate: Dec;
}

const STANDARD_RATES: ReadonlyArray<[string, string]> = [
  ['25', '3'],
  ['15', '31'],
  ['12', '33'],
  ['11.11', '32'],
  ['0', '5'],
];

/** The four rates every file declares (and every report lists): 0, 12, 15 and 25 %. */
export const REPORT_RATES: readonly Dec[] = ['0', '12', '15', '25'].map(dec);

export function vatCodeOf(rate: Dec): VatCode {
  const r = rescale(rate, Math.max(2, significantScale(rate)));
  const pct = fmt(r);
  const known = STANDARD_RATES.find(([p]) => cmp(dec(p), rate) === 0);
  // an unknown rate gets its own code in the file; its standard code is 0 (no VAT treatment) [to confirm]
  return known
    ? { code: known[1], standard: known[1], desc: `VAT ${pct} %`, rate }
    : { code: `R${pct}`.slice(0, 20), standard: '0', desc: `VAT ${pct} %`, rate };
}
