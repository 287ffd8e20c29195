/**
 * Our own verifier of an RKSV DEP export: for every receipt in order, the JWS header, the chain value,
 * the signature with its group's certificate (unless the device had failed), and the turnover counter
 * (decrypted and compared with the running sum of the amounts; training receipts do not count).
 * It names the first receipt that fails.
 */
import { X509Certificate, verify } from 'node:crypto';
import { FAILED, JWS_HEADER, STORNO_MARK, TRAINING_MARK, chainValue, decryptTurnover, parseMachineCode, signingInput } from './rksv.js';
import type { DepExport } from './dep.js';
import { openPromise } from 'yauzl';

export interface DepReport {
  ok: boolean;
  count: number;
  broken?: { index: number; receiptId: string; reason: string };
}

export function verifyDep(dep: DepExport['dep'], container: DepExport['container']): DepReport {
  const key = Buffer.from(container.base64AESKey, 'base64');
  let previous: string | undefined;
  let turnover = 0n;
  let index = 0;
  let cashboxId: string | undefined;
  for (const group of dep['Belege-Gruppe'] ?? []) {
    let cert: X509Certificate | undefined;
    try {
      cert = group.Signaturzertifikat ? new X509Certificate(Buffer.from(group.Signaturzertifikat, 'base64')) : undefined;
    } catch {
      cert = undefined;
    }
    for (const jws of group['Belege-kompakt'] ?? []) {
      index += 1;
      const fail = (receiptId: string, reason: string): DepReport => ({ ok: false, count: index - 1, broken: { index, receiptId, reason } });
      const [header, payloadB64, sigB64] = jws.split('.');
      if (header !== JWS_HEADER || payloadB64 === undefined || sigB64 === undefined) return fail('?', 'not a compact JWS with the ES256 header');
      const payload = Buffer.from(payloadB64, 'base64url').toString('utf8');
      let f: ReturnType<typeof parseMachineCode>;
      try {
        f = parseMachineCode(payload);
      } catch {
        return fail('?', 'the payload is not an RKSV machine-readable code');
      }
      cashboxId ??= f.cashboxId;
      if (f.cashboxId !== cashboxId) return fail(f.receiptId, `cashbox ${f.cashboxId} in an export of ${cashboxId}`);
      if (f.chain !== chainValue(previous ?? cashboxId)) return fail(f.receiptId, 'the chain value does not match the previous receipt');
      const signature = Buffer.from(sigB64, 'base64url');
      const failed = signature.toString('utf8') === FAILED;
      if (!failed) {
        if (!cert) return fail(f.receiptId, 'no certificate for its group');
        if (cert.serialNumber.toUpperCase() !== f.certSerial.toUpperCase()) return fail(f.receiptId, `signed by ${f.certSerial}, group certificate ${cert.serialNumber}`);
        if (!verify('sha256', Buffer.from(signingInput(payload)), { key: cert.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) return fail(f.receiptId, 'the signature does not verify');
      }
      const sum = f.amounts.reduce((a, b) => a + b, 0n);
      if (f.turnover === TRAINING_MARK) {
        // training: the counter stays
      } else if (f.turnover === STORNO_MARK) {
        turnover += sum;
      } else {
        turnover += sum;
        let counter: bigint;
        try {
          counter = decryptTurnover(key, f.cashboxId, f.receiptId, f.turnover);
        } catch {
          return fail(f.receiptId, 'the turnover counter cannot be decrypted');
        }
        if (counter !== turnover) return fail(f.receiptId, `the turnover counter is ${counter} cents, the receipts add up to ${turnover}`);
      }
      previous = jws;
    }
  }
  return { ok: true, count: index };
}

/** Reads a DEP export zip (dep-export.json and cryptographicMaterialContainer.json) and verifies it. */
export async function verifyDepZip(path: string): Promise<DepReport> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const texts = new Map<string, string>();
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name !== 'dep-export.json' && name !== 'cryptographicMaterialContainer.json') continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      texts.set(name, Buffer.concat(chunks).toString('utf8'));
    }
    const dep = texts.get('dep-export.json');
    const container = texts.get('cryptographicMaterialContainer.json');
    if (!dep || !container) return { ok: false, count: 0, broken: { index: 0, receiptId: '', reason: 'the zip needs dep-export.json and cryptographicMaterialContainer.json' } };
    return verifyDep(JSON.parse(dep) as DepExport['dep'], JSON.parse(container) as DepExport['container']);
  } finally {
    zip.close();
  }
}

export function describeDepReport(r: DepReport): string {
  return r.ok ? `OK: ${r.count} receipts, chain, signatures and turnover counter verify` : `BROKEN at receipt ${r.broken?.index ?? 0} (${r.broken?.receiptId ?? ''}): ${r.broken?.reason ?? ''}`;
}
