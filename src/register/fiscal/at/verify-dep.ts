/**
 * Our own verifier of an RKSV DEP export. For every receipt in order: the JWS form (header, unpadded
 * base64url), one cashbox, unique receipt numbers, dates that do not go back, the key named by the code
 * (for AT0 a public key of the container; else the group's certificate), the chain value, the signature
 * over the literal signing input (unless the device had failed), the first receipt a signed null
 * receipt, a signed null receipt after a failure, and, when the container holds the AES key, the
 * decrypted turnover counter against the running sum of the amounts. It names the first receipt that fails.
 */
import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { openPromise } from 'yauzl';
import { readText } from '../../journal/export/verify-zip.js';
import { FAILED, JWS_HEADER, STORNO_MARK, TRAINING_MARK, chainValue, decryptTurnover, parseMachineCode } from './rksv.js';
import type { DepExport } from './dep.js';

export interface DepReport {
  ok: boolean;
  count: number;
  /** whether the turnover counter was decrypted (the container held the AES key) */
  counterChecked: boolean;
  broken?: { index: number; receiptId: string; reason: string };
}

export function verifyDep(dep: DepExport['dep'], container: DepExport['container']): DepReport {
  const aes = container.base64AESKey ? Buffer.from(container.base64AESKey, 'base64') : undefined;
  const counterChecked = aes !== undefined && aes.length === 32;
  const keys = new Map<string, KeyObject>();
  for (const [id, entry] of Object.entries(container.certificateOrPublicKeyMap ?? {})) {
    try {
      const der = Buffer.from(entry.signatureCertificateOrPublicKey, 'base64');
      keys.set(id, entry.signatureDeviceType === 'PUBLIC_KEY' ? createPublicKey({ key: der, format: 'der', type: 'spki' }) : new X509Certificate(der).publicKey);
    } catch {
      // an unreadable entry: receipts naming it fail below
    }
  }
  let previous: string | undefined;
  let turnover = 0n;
  let index = 0;
  let cashboxId: string | undefined;
  let lastDate = '';
  let failing = false;
  const ids = new Set<string>();
  for (const group of dep['Belege-Gruppe'] ?? []) {
    let groupCert: X509Certificate | undefined;
    if (group.Signaturzertifikat) {
      try {
        groupCert = new X509Certificate(Buffer.from(group.Signaturzertifikat, 'base64'));
      } catch {
        groupCert = undefined;
      }
    }
    for (const jws of group['Belege-kompakt'] ?? []) {
      index += 1;
      const fail = (receiptId: string, reason: string): DepReport => ({ ok: false, count: index - 1, counterChecked, broken: { index, receiptId, reason } });
      const [header, payloadB64, sigB64, ...rest] = jws.split('.');
      if (header !== JWS_HEADER || payloadB64 === undefined || sigB64 === undefined || rest.length) return fail('?', 'not a compact JWS with the ES256 header');
      if (!/^[A-Za-z0-9_-]+$/.test(payloadB64) || !/^[A-Za-z0-9_-]+$/.test(sigB64)) return fail('?', 'not unpadded base64url');
      const payload = Buffer.from(payloadB64, 'base64url').toString('utf8');
      let f: ReturnType<typeof parseMachineCode>;
      try {
        f = parseMachineCode(payload);
      } catch {
        return fail('?', 'the payload is not an RKSV machine-readable code');
      }
      cashboxId ??= f.cashboxId;
      if (f.cashboxId !== cashboxId) return fail(f.receiptId, `cashbox ${f.cashboxId} in an export of ${cashboxId}`);
      if (ids.has(f.receiptId)) return fail(f.receiptId, 'the receipt number was used before in this cashbox');
      ids.add(f.receiptId);
      if (f.date < lastDate) return fail(f.receiptId, `dated ${f.date}, before the receipt before it (${lastDate})`);
      lastDate = f.date;
      if (f.chain !== chainValue(previous ?? cashboxId)) return fail(f.receiptId, 'the chain value does not match the previous receipt');
      let key: KeyObject | undefined;
      if (f.zda === 'AT0') {
        key = keys.get(f.certSerial);
        if (!key) return fail(f.receiptId, `key id ${f.certSerial} is not in the cryptographic material container`);
      } else {
        if (!groupCert || groupCert.serialNumber.toUpperCase() !== f.certSerial.toUpperCase()) return fail(f.receiptId, `certificate ${f.certSerial} is not its group's certificate`);
        key = groupCert.publicKey;
      }
      const signature = Buffer.from(sigB64, 'base64url');
      const failed = signature.toString('utf8') === FAILED;
      const sum = f.amounts.reduce((a, b) => a + b, 0n);
      const isNull = sum === 0n && f.amounts.every((a) => a === 0n) && f.turnover !== TRAINING_MARK && f.turnover !== STORNO_MARK;
      if (index === 1 && (failed || !isNull)) return fail(f.receiptId, 'the first receipt of a cashbox must be a signed start receipt (a null receipt)');
      if (!failed) {
        if (!verify('sha256', Buffer.from(`${header}.${payloadB64}`), { key, dsaEncoding: 'ieee-p1363' }, signature)) return fail(f.receiptId, 'the signature does not verify');
        if (failing && !isNull) return fail(f.receiptId, 'after a failure of the signature device the first signed receipt must be a null receipt');
      }
      failing = failed;
      if (f.turnover === TRAINING_MARK) {
        // training: the counter stays
      } else if (f.turnover === STORNO_MARK) {
        turnover += sum;
      } else {
        turnover += sum;
        const bytes = Buffer.from(f.turnover, 'base64').length;
        if (bytes < 5 || bytes > 16) return fail(f.receiptId, `the turnover counter has ${bytes} bytes (5 to 16)`);
        if (aes && counterChecked) {
          const counter = decryptTurnover(aes, f.cashboxId, f.receiptId, f.turnover);
          if (counter !== turnover) return fail(f.receiptId, `the turnover counter is ${counter} cents, the receipts add up to ${turnover}`);
        }
      }
      previous = jws;
    }
  }
  if (index === 0) return { ok: false, count: 0, counterChecked, broken: { index: 0, receiptId: '', reason: 'the export holds no receipt' } };
  return { ok: true, count: index, counterChecked };
}

/** Reads a DEP export zip (dep-export.json and cryptographicMaterialContainer.json) and verifies it. */
export async function verifyDepZip(path: string): Promise<DepReport> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const texts = new Map<string, string>();
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name !== 'dep-export.json' && name !== 'cryptographicMaterialContainer.json') continue;
      texts.set(name, await readText(zip, entry));
    }
    const dep = texts.get('dep-export.json');
    const container = texts.get('cryptographicMaterialContainer.json');
    const broken = (reason: string): DepReport => ({ ok: false, count: 0, counterChecked: false, broken: { index: 0, receiptId: '', reason } });
    if (!dep || !container) return broken('the zip needs dep-export.json and cryptographicMaterialContainer.json');
    try {
      return verifyDep(JSON.parse(dep) as DepExport['dep'], JSON.parse(container) as DepExport['container']);
    } catch (e) {
      return broken(`the export cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
  } finally {
    zip.close();
  }
}

export function describeDepReport(r: DepReport): string {
  if (!r.ok) return `BROKEN at receipt ${r.broken?.index ?? 0} (${r.broken?.receiptId ?? ''}): ${r.broken?.reason ?? ''}`;
  return `OK: ${r.count} receipts, chain and signatures verify; turnover counter ${r.counterChecked ? 'verifies' : 'not checked (the container holds no AES key)'}`;
}
