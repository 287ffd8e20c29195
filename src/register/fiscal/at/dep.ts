/**
 * The DEP export of Austria (Datenerfassungsprotokoll, DEP7 format): the cashbox's signed receipts as
 * compact JWS, grouped by the certificate of the signature device that signed them, with the
 * cryptographic material container (AES key and certificates) that a verifier needs.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { ZipFile } from 'yazl';
import { type Obj, obj, str } from '../../codec/index.js';
import type { JournalStore } from '../../journal/types.js';
import { cashboxDir } from './devices.js';
import { deviceStore } from './index.js';
import { JWS_HEADER, parseMachineCode } from './rksv.js';

export interface DepExport {
  dep: { 'Belege-Gruppe': Array<{ Signaturzertifikat: string; Zertifizierungsstellen: string[]; 'Belege-kompakt': string[] }> };
  container: { base64AESKey: string; certificateOrPublicKeyMap: Record<string, { id: string; signatureDeviceType: 'CERTIFICATE'; signatureCertificateOrPublicKey: string }> };
  cashboxId: string;
  count: number;
}

/** The certificates of a cashbox's devices, by serial (upper-case hex). */
function certificates(dataDir: string, cashboxId: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const dir = cashboxDir(dataDir, cashboxId);
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, 'certificate.der');
    if (!name.startsWith('device-') || !existsSync(file)) continue;
    const der = readFileSync(file);
    out.set(new X509Certificate(der).serialNumber.toUpperCase(), der);
  }
  return out;
}

export async function buildDep(store: JournalStore, dataDir: string, rid: number, cashboxId: string): Promise<DepExport> {
  const certs = certificates(dataDir, cashboxId);
  const groups: DepExport['dep']['Belege-Gruppe'] = [];
  const used = new Map<string, Buffer>();
  let count = 0;
  for await (const r of store.find(rid, { type: 'Tra', sort: 'asc' }, 500)) {
    const fis = obj(JSON.parse(r.data) as Obj, 'Fis');
    if (!fis) continue;
    const payload = str(fis, 'Payload');
    const signature = str(fis, 'Signature');
    if (!payload?.startsWith('_R1-AT') || signature === undefined) continue;
    const fields = parseMachineCode(payload);
    if (fields.cashboxId !== cashboxId) continue;
    const jws = `${JWS_HEADER}.${Buffer.from(payload, 'utf8').toString('base64url')}.${signature}`;
    const cert = certs.get(fields.certSerial.toUpperCase());
    const certText = cert ? cert.toString('base64') : '';
    if (cert) used.set(fields.certSerial.toUpperCase(), cert);
    const last = groups[groups.length - 1];
    if (last && last.Signaturzertifikat === certText) last['Belege-kompakt'].push(jws);
    else groups.push({ Signaturzertifikat: certText, Zertifizierungsstellen: [], 'Belege-kompakt': [jws] });
    count += 1;
  }
  const map: DepExport['container']['certificateOrPublicKeyMap'] = {};
  for (const [serial, der] of used) map[serial] = { id: serial, signatureDeviceType: 'CERTIFICATE', signatureCertificateOrPublicKey: der.toString('base64') };
  return {
    dep: { 'Belege-Gruppe': groups },
    container: { base64AESKey: deviceStore(dataDir).aesKey(cashboxId).toString('base64'), certificateOrPublicKeyMap: map },
    cashboxId,
    count,
  };
}

/** The DEP export as a zip: dep-export.json and cryptographicMaterialContainer.json. */
export function depZip(exp: DepExport): NodeJS.ReadableStream {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify(exp.dep, null, 2)), 'dep-export.json');
  zip.addBuffer(Buffer.from(JSON.stringify(exp.container, null, 2)), 'cryptographicMaterialContainer.json');
  zip.end();
  return zip.outputStream;
}
