/**
 * The cryptography of the Austrian cash register security regulation (RKSV, Detailspezifikation):
 * the machine-readable code, the AES-256-ICM encrypted turnover counter, the chain value and the
 * compact JWS (ES256), exactly to the byte.
 */
import { createCipheriv, createHash } from 'node:crypto';
import { base32 } from '../../../shared/base32.js';

/** Algorithm suite R1: ES256 with SHA-256, 8 bytes of chain value. */
export const SUITE = 'R1';
/** The text signed in place of a signature when the signature device has failed. */
export const FAILED = 'Sicherheitseinrichtung ausgefallen';
/** Marks of training and cancellation receipts in place of the encrypted turnover counter. */
export const TRAINING_MARK = Buffer.from('TRA').toString('base64');
export const STORNO_MARK = Buffer.from('STO').toString('base64');

/** The five tax rates of the code, in their order in it. */
export const RATES = ['20', '10', '13', '0', '19'] as const;
export type RateAmounts = readonly [bigint, bigint, bigint, bigint, bigint];

/** IV of the turnover counter: the first 16 bytes of SHA-256(cashbox id ‖ receipt id). */
export function turnoverIv(cashboxId: string, receiptId: string): Buffer {
  return createHash('sha256').update(cashboxId, 'utf8').update(receiptId, 'utf8').digest().subarray(0, 16);
}

/** The turnover counter (cents) as a signed big-endian integer of `bytes` bytes. */
function counterBytes(cents: bigint, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let v = BigInt.asUintN(bytes * 8, cents);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** AES-256 in counter mode (ICM) over the counter; base64. `bytes` 5 to 16 (8 by default). */
export function encryptTurnover(key: Buffer, cashboxId: string, receiptId: string, cents: bigint, bytes = 8): string {
  if (bytes < 5 || bytes > 16) throw new Error('turnover counter length must be 5 to 16 bytes');
  const cipher = createCipheriv('aes-256-ctr', key, turnoverIv(cashboxId, receiptId));
  return Buffer.concat([cipher.update(counterBytes(cents, bytes)), cipher.final()]).toString('base64');
}

/** The inverse: the turnover counter (cents) from its encrypted form. */
export function decryptTurnover(key: Buffer, cashboxId: string, receiptId: string, encrypted: string): bigint {
  const data = Buffer.from(encrypted, 'base64');
  const decipher = createCipheriv('aes-256-ctr', key, turnoverIv(cashboxId, receiptId));
  const plain = Buffer.concat([decipher.update(data), decipher.final()]);
  let v = 0n;
  for (const b of plain) v = (v << 8n) | BigInt(b);
  return BigInt.asIntN(plain.length * 8, v);
}

/** Chain value: the first 8 bytes of SHA-256 of the previous receipt's compact JWS (of the cashbox id for the first); base64. */
export function chainValue(previousJwsOrCashboxId: string): string {
  return createHash('sha256').update(previousJwsOrCashboxId, 'utf8').digest().subarray(0, 8).toString('base64');
}

/** Cents as the code writes amounts: a decimal comma, two decimals (`-12,30`). */
export function formatAmount(cents: bigint): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const text = `${abs / 100n},${String(abs % 100n).padStart(2, '0')}`;
  return neg ? `-${text}` : text;
}

export function parseAmount(text: string): bigint {
  const m = /^(-?)(\d+),(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an RKSV amount: ${text}`);
  const v = BigInt(m[2] as string) * 100n + BigInt(m[3] as string);
  return m[1] === '-' ? -v : v;
}

export interface ReceiptFields {
  /** ZDA id, e.g. AT0 for a signature device without a trust service provider's certificate */
  zda: string;
  cashboxId: string;
  receiptId: string;
  /** local date-time YYYY-MM-DDThh:mm:ss */
  date: string;
  amounts: RateAmounts;
  /** the encrypted turnover counter, or the TRA/STO mark */
  turnover: string;
  /** serial of the signature certificate (hex) or key id */
  certSerial: string;
  chain: string;
}

/** The machine-readable code without the signature: the JWS payload. */
export function machineCode(f: ReceiptFields): string {
  return [`_${SUITE}-${f.zda}`, f.cashboxId, f.receiptId, f.date, ...f.amounts.map(formatAmount), f.turnover, f.certSerial, f.chain].join('_');
}

export function parseMachineCode(code: string): ReceiptFields & { signature?: string } {
  const parts = code.split('_');
  if (parts.length < 13 || parts[0] !== '' || !/^R1-AT\d+$/.test(parts[1] ?? '')) throw new Error('not an RKSV machine-readable code');
  const [, suite, cashboxId, receiptId, date, a0, a1, a2, a3, a4, turnover, certSerial, chain, signature] = parts as string[];
  return {
    zda: (suite as string).slice(3),
    cashboxId: cashboxId as string,
    receiptId: receiptId as string,
    date: date as string,
    amounts: [a0, a1, a2, a3, a4].map((a) => parseAmount(a as string)) as unknown as RateAmounts,
    turnover: turnover as string,
    certSerial: certSerial as string,
    chain: chain as string,
    ...(signature !== undefined ? { signature } : {}),
  };
}

const b64url = (b: Buffer): string => b.toString('base64url');
export const JWS_HEADER = b64url(Buffer.from('{"alg":"ES256"}'));

/** The input the signature device signs: base64url(header).base64url(payload). */
export function signingInput(payload: string): string {
  return `${JWS_HEADER}.${b64url(Buffer.from(payload, 'utf8'))}`;
}

/** The compact JWS; `signature` is r‖s (64 bytes), or undefined when the device failed. */
export function compactJws(payload: string, signature: Buffer | undefined): string {
  return `${signingInput(payload)}.${b64url(signature ?? Buffer.from(FAILED, 'utf8'))}`;
}

/** The QR code's text: the machine-readable code and the signature (base64, not base64url). */
export function qrText(jws: string): string {
  const [, payload, sig] = jws.split('.');
  return `${Buffer.from(payload ?? '', 'base64url').toString('utf8')}_${Buffer.from(sig ?? '', 'base64url').toString('base64')}`;
}

/** The OCR form (Fis_OCR): the base64 fields of the QR text in BASE32. */
export function ocrText(jws: string): string {
  const parts = qrText(jws).split('_');
  // fields 10 (turnover), 12 (chain) and 13 (signature) are base64: written BASE32 for OCR
  for (const i of [10, 12, 13]) {
    const v = parts[i];
    if (v !== undefined) parts[i] = base32(Buffer.from(v, 'base64'), true);
  }
  return parts.join('_');
}

