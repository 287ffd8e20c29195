/**
 * Our own verifier of a TSE export TAR (ours or a certified TSE's): every log message's signature with
 * the public key of the certificate in the TAR (whose key must be the one named by the serial), the
 * signature counter without gaps, each transaction started before it is finished. Names the first failure.
 */
import { X509Certificate, createHash, verify } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { extract } from 'tar-stream';
import { parseLog } from './log-message.js';
import { uncompressedPoint } from '../../../shared/files.js';

export interface TseReport {
  ok: boolean;
  count: number;
  broken?: { file: string; reason: string };
}

export async function readTar(path: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const ex = extract();
  createReadStream(path).pipe(ex);
  for await (const entry of ex) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    files.set(entry.header.name, Buffer.concat(chunks));
  }
  return files;
}

export function verifyTse(files: Map<string, Buffer>): TseReport {
  const certs = [...files].filter(([n]) => n.endsWith('_X509.cer')).map(([, der]) => new X509Certificate(der));
  const bySerial = new Map(certs.map((c) => [createHash('sha256').update(uncompressedPoint(c.publicKey)).digest('hex'), c]));
  const logs = [...files].filter(([n]) => n.endsWith('.log')).map(([name, der]) => ({ name, der }));
  const parsed = [];
  for (const l of logs) {
    try {
      parsed.push({ name: l.name, p: parseLog(l.der) });
    } catch (e) {
      return { ok: false, count: 0, broken: { file: l.name, reason: `not a log message: ${e instanceof Error ? e.message : String(e)}` } };
    }
  }
  parsed.sort((a, b) => (a.p.signatureCounter < b.p.signatureCounter ? -1 : 1));
  const open = new Set<bigint>();
  const finished = new Set<bigint>();
  // an export of a period (a backup since the last one) may finish transactions started before it
  const partial = (parsed[0]?.p.signatureCounter ?? 1n) > 1n;
  let expected: bigint | undefined;
  let count = 0;
  for (const { name, p } of parsed) {
    const fail = (reason: string): TseReport => ({ ok: false, count, broken: { file: name, reason } });
    const cert = bySerial.get(p.serialNumber.toString('hex'));
    if (!cert) return fail('no certificate in the TAR for its serial number');
    if (!verify('sha256', p.signed, { key: cert.publicKey, dsaEncoding: 'ieee-p1363' }, p.signatureValue)) return fail('the signature does not verify');
    if (expected !== undefined && p.signatureCounter !== expected) return fail(`signature counter ${p.signatureCounter} follows ${expected - 1n}`);
    expected = p.signatureCounter + 1n;
    if (p.operationType === 'StartTransaction' && p.transactionNumber !== undefined) open.add(p.transactionNumber);
    if (p.operationType === 'FinishTransaction' && p.transactionNumber !== undefined) {
      if (finished.has(p.transactionNumber)) return fail(`transaction ${p.transactionNumber} is finished twice`);
      if (!open.has(p.transactionNumber) && !partial) return fail(`transaction ${p.transactionNumber} is finished but was not started`);
      open.delete(p.transactionNumber);
      finished.add(p.transactionNumber);
    }
    count += 1;
  }
  if (count === 0) return { ok: false, count: 0, broken: { file: '', reason: 'the TAR holds no log message' } };
  return { ok: true, count };
}

export function describeTseReport(r: TseReport): string {
  return r.ok ? `OK: ${r.count} log messages, signatures and counters verify` : `BROKEN at ${r.broken?.file ?? ''}: ${r.broken?.reason ?? ''}`;
}
