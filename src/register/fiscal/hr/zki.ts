/**
 * The ZKI (zaštitni kod izdavatelja), the issuer's protective code of a Croatian receipt: the RSA-SHA1
 * (PKCS#1 v1.5) signature, with the fiscal certificate's key, of OIB + date-time `dd.MM.yyyy HH:mm:ss` +
 * BrOznRac + OznPosPr + OznNapUr + IznosUkupno (as in the request: two decimals, a point), then the MD5 of
 * the signature bytes in lowercase hex (32 characters). Fiskalizacija - Tehnička specifikacija za korisnike,
 * "Zaštitni kod izdavatelja".
 */
import { createHash, createSign } from 'node:crypto';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { zkiDateTime } from './cis-date.js';

export interface ZkiFields {
  /** the company's OIB, 11 digits */
  oib: string;
  /** the issue time: a Date (local time), an ESR local date-time `YYYY-MM-DDThh:mm:ss`, or `dd.MM.yyyy HH:mm:ss` */
  issued: Date | string;
  /** BrOznRac: the receipt's number (TN) */
  number: string;
  /** OznPosPr: the business premise (TL) */
  premise: string;
  /** OznNapUr: the payment device (TT) */
  device: string;
  /** IznosUkupno as sent: two decimals with a point, e.g. `12.50` or `-3.00` */
  total: string;
}

/** The exact text the ZKI signs. */
export function zkiInput(f: ZkiFields): string {
  let when: string;
  if (f.issued instanceof Date) when = zkiDateTime(formatLocalDateTime(f.issued));
  else if (/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/.test(f.issued)) when = f.issued;
  else when = zkiDateTime(f.issued);
  return `${f.oib}${when}${f.number}${f.premise}${f.device}${f.total}`;
}

/** The ZKI of a receipt: MD5 (hex) of the RSA-SHA1 signature of zkiInput. */
export function zkiOf(keyPem: string, f: ZkiFields): string {
  const signature = createSign('RSA-SHA1').update(zkiInput(f), 'utf8').sign(keyPem);
  return createHash('md5').update(signature).digest('hex');
}
