/**
 * The ZOI ("zaščitna oznaka izdajatelja računa", protective mark of the invoice issuer; FURS technical
 * specification, chapter on the ZOI): the tax number, the issue date-time `dd.MM.yyyy HH:mm:ss`, the invoice
 * number, the business premise id, the electronic device id and the invoice amount (with a decimal point and
 * two decimals) are concatenated without separators, signed with RSA-SHA256 (PKCS#1 v1.5) by the fiscal
 * certificate's key, and the MD5 of the signature bytes is written as 32 lowercase hex digits.
 */
import { createHash, sign } from 'node:crypto';

export interface ZoiFields {
  /** the issuer's 8-digit tax number */
  taxNumber: string;
  /** the issue time: local wall-clock `YYYY-MM-DDThh:mm:ss` (ESR.D) or a Date read in local time */
  issued: Date | string;
  /** the sequential invoice number (TN) */
  number: string;
  /** BusinessPremiseID (TL) */
  premise: string;
  /** ElectronicDeviceID (TT) */
  device: string;
  /** InvoiceAmount with two decimals, e.g. 19.15 or -3.00 */
  amount: string;
}

const p2 = (n: number): string => String(n).padStart(2, '0');

/** Year, month, day, hour, minute, second of a local date-time text or a Date (read in local time). */
export function timeParts(issued: Date | string): [number, number, number, number, number, number] {
  if (typeof issued === 'string') {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(issued);
    if (!m) throw new Error(`not a local date-time: ${issued}`);
    return m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  }
  return [issued.getFullYear(), issued.getMonth() + 1, issued.getDate(), issued.getHours(), issued.getMinutes(), issued.getSeconds()];
}

/** `dd.MM.yyyy HH:mm:ss` */
export function zoiDateTime(issued: Date | string): string {
  const [y, mo, d, h, mi, s] = timeParts(issued);
  return `${p2(d)}.${p2(mo)}.${y} ${p2(h)}:${p2(mi)}:${p2(s)}`;
}

/** The text that is signed. */
export function zoiInput(f: ZoiFields): string {
  return `${f.taxNumber}${zoiDateTime(f.issued)}${f.number}${f.premise}${f.device}${f.amount}`;
}

/** The ZOI: MD5 (lowercase hex) of the RSA-SHA256 signature of zoiInput under the given private key (PEM). */
export function zoiOf(keyPem: string, f: ZoiFields): string {
  const signature = sign('sha256', Buffer.from(zoiInput(f), 'utf8'), keyPem);
  return createHash('md5').update(signature).digest('hex');
}
