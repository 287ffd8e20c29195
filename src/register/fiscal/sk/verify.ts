/**
 * Verifies a Slovak register's journal export (GET /export?type=jou) offline: first the journal's own hash
 * chain and signatures (verify-zip.ts), then every receipt reported to eKasa: its PKP is the RSA-SHA256
 * signature, by one of the given authentication certificates (`--key`), of the PKP text rebuilt from the
 * journaled receipt (Fis.Dic, Fis.CashRegisterCode, ESR.TN, Fis.Type, ESR.D, ESR.T; pkp.ts), and its OKP is
 * the SHA-1 of that PKP. The text names the first receipt that does not verify, and the SHA-256 fingerprint
 * of every key that signed, for the auditor to compare with the certificates the register was issued.
 */
import { fmt, parseDec, round } from '../../../shared/money.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import { describeReport } from '../../journal/export/verify-core.js';
import { verifyZip } from '../../journal/export/verify-zip.js';
import { type PinnedKey, readPinnedKeys } from '../saft-cash-register/pinned-keys.js';
import type { VerifyOutcome } from '../verifiers.js';
import { okpOf, pkpVerifies, type PkpFields } from './pkp.js';

/** The PKP fields of a journaled receipt, or why they cannot be read. */
export function pkpFieldsOfRecord(data: Obj): PkpFields | string {
  const esr = isObj(data.ESR) ? data.ESR : {};
  const fis = isObj(data.Fis) ? data.Fis : {};
  const amount = parseDec(str(esr, 'T') ?? '');
  const fields = { dic: str(fis, 'Dic'), cashRegisterCode: str(fis, 'CashRegisterCode'), receiptNumber: str(esr, 'TN'), receiptType: str(fis, 'Type'), issued: str(esr, 'D') };
  const missing = Object.entries(fields).filter(([, v]) => v === undefined).map(([k]) => k);
  if (missing.length > 0 || !amount) return `the receipt lacks ${[...missing, ...(amount ? [] : ['ESR.T'])].join(', ')}`;
  return { ...(fields as Omit<PkpFields, 'amount'>), issued: (fields.issued as string).slice(0, 19), amount: fmt(round(amount, 2), 2) };
}

/** Checks one journaled receipt's PKP (by one of the keys) and OKP; the key that signed, or why not. */
export function checkReceipt(data: Obj, keys: readonly PinnedKey[]): PinnedKey | string {
  const fis = isObj(data.Fis) ? data.Fis : {};
  const pkp = str(fis, 'PKP') ?? '';
  const okp = str(fis, 'OKP') ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(pkp)) return 'the PKP is not base64';
  if (okpOf(pkp) !== okp) return `the OKP ${okp} is not the SHA-1 of the PKP (${okpOf(pkp)})`;
  const fields = pkpFieldsOfRecord(data);
  if (typeof fields === 'string') return fields;
  const signer = keys.find((k) => pkpVerifies(k.key, fields, pkp));
  return signer ?? 'the PKP is not the signature of the receipt by any of the given certificates';
}

export async function verifySlovakJournal(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const keys = readPinnedKeys(options.keys ?? []);
  if (typeof keys === 'string') return { ok: false, text: keys };
  if (keys.length === 0) return { ok: false, text: "give the register's authentication certificate with --key <certificate.pem>: the PKPs are checked with its public key" };
  let receipts = 0;
  const used = new Map<string, PinnedKey>();
  /** the first receipt that fails, named after the journal's own check */
  let broken: string | undefined;
  let chain;
  try {
    chain = await verifyZip(path, (r) => {
      if (broken !== undefined || r._ !== 'Tra') return;
      let data: Obj;
      try {
        data = JSON.parse(r.data) as Obj;
      } catch {
        return;
      }
      if (!isObj(data.Fis) || str(data.Fis, 'PKP') === undefined) return;
      const result = checkReceipt(data, keys);
      if (typeof result === 'string') broken = `BROKEN at SQ ${r.SQ} (receipt ${str(data.Fis, 'FN') ?? '?'}): ${result}`;
      else {
        used.set(result.fingerprint, result);
        receipts += 1;
      }
    });
  } catch (e) {
    return { ok: false, text: `cannot read ${path} as a zip: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!chain.ok) return { ok: false, text: describeReport(chain) };
  if (broken !== undefined) return { ok: false, text: broken };
  const signers = [...used.values()].map((k) => `  ${k.label}: SHA-256 ${k.fingerprint}`).join('\n');
  return { ok: true, text: `${describeReport(chain)}\nOK: ${receipts} eKasa receipts, every PKP verifies and every OKP is the SHA-1 of its PKP${signers ? `\nsigned by:\n${signers}` : ''}` };
}
