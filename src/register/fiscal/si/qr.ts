/**
 * The 60-digit code FURS prescribes for the QR code (or PDF417 / Code 128) on the receipt (technical
 * specification, chapter on printing): the ZOI converted from hex to decimal and left-padded with zeros to
 * 39 digits, the issuer's 8-digit tax number, the issue date-time `yyMMddHHmmss` (12 digits), and a control
 * digit: the sum of the 59 digits before it, modulo 10.
 */
import { timeParts } from './zoi.js';

const p2 = (n: number): string => String(n).padStart(2, '0');

/** `yyMMddHHmmss` */
export function qrDateTime(issued: Date | string): string {
  const [y, mo, d, h, mi, s] = timeParts(issued);
  return `${p2(y % 100)}${p2(mo)}${p2(d)}${p2(h)}${p2(mi)}${p2(s)}`;
}

/** The control digit: the sum of all digits modulo 10. */
export function controlDigit(digits: string): string {
  let total = 0;
  for (const c of digits) total += c.charCodeAt(0) - 48;
  return String(total % 10);
}

/** The 60 digits for a ZOI (32 hex digits), a tax number (8 digits) and the issue time. */
export function zoiQrCode(zoi: string, taxNumber: string, issued: Date | string): string {
  if (!/^[0-9a-fA-F]{32}$/.test(zoi)) throw new Error(`not a ZOI: ${zoi}`);
  if (!/^\d{8}$/.test(taxNumber)) throw new Error(`not a tax number: ${taxNumber}`);
  const body = BigInt(`0x${zoi}`).toString(10).padStart(39, '0') + taxNumber + qrDateTime(issued);
  return body + controlDigit(body);
}
