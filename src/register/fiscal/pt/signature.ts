/**
 * The document signature of the Portuguese certification (Portaria 363/2010, Despacho 8632/2014):
 * RSA-SHA1 (PKCS#1 v1.5) over `InvoiceDate;SystemEntryDate;InvoiceNo;GrossTotal;PreviousHash`, base64.
 * The previous hash is the one of the document before in the same series (empty for the first). The
 * receipt prints four characters of it (the 1st, 11th, 21st and 31st) with the certificate number.
 */
import { type KeyObject, sign, verify } from 'node:crypto';

export interface HashFields {
  /** YYYY-MM-DD */
  invoiceDate: string;
  /** YYYY-MM-DDThh:mm:ss */
  systemEntryDate: string;
  /** e.g. "FS A/12" */
  invoiceNo: string;
  /** two decimals with a point, e.g. "12.30" */
  grossTotal: string;
  previousHash: string;
}

export function hashMessage(f: HashFields): string {
  return `${f.invoiceDate};${f.systemEntryDate};${f.invoiceNo};${f.grossTotal};${f.previousHash}`;
}

/** The document's hash: the base64 RSA-SHA1 signature of the message (UTF-8). */
export function signMessage(key: KeyObject, message: string): string {
  return sign('sha1', Buffer.from(message, 'utf8'), key).toString('base64');
}

export function verifyMessage(key: KeyObject, message: string, hash: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(hash)) return false;
  return verify('sha1', Buffer.from(message, 'utf8'), key, Buffer.from(hash, 'base64'));
}

/** Characters 1, 11, 21 and 31 of the hash. */
export function hashChars(hash: string): string {
  return [0, 10, 20, 30].map((i) => hash.charAt(i)).join('');
}

/** What the receipt prints under the document: `abcd-Processado por programa certificado n.º 1234/AT`. */
export function printedHash(hash: string, certificate: string): string {
  return `${hashChars(hash)}-Processado por programa certificado n.º ${certificate}/AT`;
}
