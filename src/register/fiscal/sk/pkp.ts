/**
 * The protective codes of a Slovak receipt, computed offline with the register's authentication
 * certificate (docs/countries/sk.md, "PKP and OKP"):
 * - PKP (podpisový kód podnikateľa): the RSA-SHA256 (PKCS#1 v1.5) signature of the pipe-separated text
 *   `DIČ|CashRegisterCode|ReceiptNumber|ReceiptType|IssueDate dd.MM.yyyy HH:mm:ss|Amount` (UTF-8), base64;
 *   in the request `<PKP digest="SHA256" cipher="RSA2048" encoding="base64">`.
 * - OKP (overovací kód podnikateľa): the SHA-1 of the PKP's signature bytes as lowercase hex in five groups
 *   of eight separated by `-`; in the request `<OKP digest="SHA1" encoding="base16">`.
 */
import { type KeyLike, createHash, createSign, createVerify } from 'node:crypto';
import { pkpDateTime } from './ekasa-date.js';

export interface PkpFields {
  dic: string;
  cashRegisterCode: string;
  receiptNumber: string;
  /** PD, UF, ND, VK, VY */
  receiptType: string;
  /** the issue time, local `YYYY-MM-DDThh:mm:ss` */
  issued: string;
  /** the amount as in the request: two decimals with a point */
  amount: string;
}

/** The exact text the PKP signs. */
export function pkpInput(f: PkpFields): string {
  return [f.dic, f.cashRegisterCode, f.receiptNumber, f.receiptType, pkpDateTime(f.issued), f.amount].join('|');
}

/** The PKP: base64 of the RSA-SHA256 signature of pkpInput. */
export function pkpOf(keyPem: string, f: PkpFields): string {
  return createSign('RSA-SHA256').update(pkpInput(f), 'utf8').sign(keyPem).toString('base64');
}

/** The OKP of a PKP: SHA-1 of its signature bytes, `xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx-xxxxxxxx`. */
export function okpOf(pkp: string): string {
  const hex = createHash('sha1').update(Buffer.from(pkp, 'base64')).digest('hex');
  return (hex.match(/.{8}/g) ?? []).join('-');
}

/** Whether a PKP is the signature of these fields by the key of `publicKey` (a certificate or public key). */
export function pkpVerifies(publicKey: KeyLike, f: PkpFields, pkp: string): boolean {
  return createVerify('RSA-SHA256').update(pkpInput(f), 'utf8').verify(publicKey, Buffer.from(pkp, 'base64'));
}
