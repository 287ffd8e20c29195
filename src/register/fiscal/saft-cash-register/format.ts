/** How the SAF-T Cash Register files write dates, signs, rates and quantities. */
import { type Dec, fmt, rescale, sign, significantScale } from '../../../shared/money.js';

/** `n` with leading zeros to `w` digits. */
export const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `yyyymmddhhmmss` of `created` (local time), as the file names carry it. */
export function fileStamp(c: Date): string {
  return `${c.getFullYear()}${pad(c.getMonth() + 1)}${pad(c.getDate())}${pad(c.getHours())}${pad(c.getMinutes())}${pad(c.getSeconds())}`;
}

/** `yyyy-mm-dd` of `d` (local time). */
export function isoDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The amount type of an amount: D (debit) for a negative one, else C (credit). */
export function tp(d: Dec): 'C' | 'D' {
  return sign(d) < 0 ? 'D' : 'C';
}

/** A VAT rate as the files write it: 2 or 3 decimals. */
export function percent(rate: Dec): string {
  return fmt(rescale(rate, Math.min(3, Math.max(2, significantScale(rate)))));
}

/** A quantity or unit price with at most 6 decimals, and no trailing zeros. */
export function decimal6(d: Dec): string {
  const r = rescale(d, Math.min(6, d.s));
  return fmt(r, significantScale(r));
}
