/**
 * The DEP export of Austria (Datenerfassungsprotokoll, DEP7 format): the cashbox's signed receipts as
 * compact JWS. As a closed system (AT0) they form one group without a signature certificate; the
 * cryptographic material container maps each device's key id to its public key (the form the BMF test
 * tool reads). The AES key is added only when asked for: it stays with the cashbox otherwise.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ZipFile } from 'yazl';
import { type Obj, obj, str } from '../../codec/index.js';
import type { JournalStore } from '../../journal/types.js';
import { cashboxDir, deviceStore } from './devices.js';
import { parseMachineCode, signingInput } from './rksv.js';

export interface DepExport {
  dep: { 'Belege-Gruppe': Array<{ Signaturzertifikat: string; Zertifizierungsstellen: string[]; 'Belege-kompakt': string[] }> };
  container: { base64AESKey?: string; certificateOrPublicKeyMap: Record<string, { id: string; signatureDeviceType: 'CERTIFICATE' | 'PUBLIC_KEY'; signatureCertificateOrPublicKey: string }> };
  cashboxId: string;
  count: number;
}

export async function buildDep(store: JournalStore, dataDir: string, rid: number, cashboxId: string, companyId: string, withAesKey: boolean): Promise<DepExport> {
  const receipts: string[] = [];
  for await (const r of store.find(rid, { type: 'Tra', sort: 'asc' }, 500)) {
    const fis = obj(JSON.parse(r.data) as Obj, 'Fis');
    const payload = fis ? str(fis, 'Payload') : undefined;
    const signature = fis ? str(fis, 'Signature') : undefined;
    if (!payload?.startsWith('_R1-AT') || signature === undefined) continue;
    let fields;
    try {
      fields = parseMachineCode(payload);
    } catch {
      continue; // not a receipt of this format
    }
    if (fields.cashboxId !== cashboxId) continue;
    receipts.push(`${signingInput(payload)}.${signature}`);
  }
  // every device of the cashbox, by key id, with its public key
  const map: DepExport['container']['certificateOrPublicKeyMap'] = {};
  const dir = cashboxDir(dataDir, cashboxId);
  const devices = existsSync(dir) ? readdirSync(dir).filter((n) => /^device-\d+$/.test(n)) : [];
  for (const name of devices) {
    const index = Number(name.slice('device-'.length));
    if (!existsSync(join(dir, name, 'key.pem')) && !deviceStore(dataDir).opened(cashboxId, index)) continue;
    const device = await deviceStore(dataDir).device(cashboxId, companyId, index);
    map[device.keyId] = { id: device.keyId, signatureDeviceType: 'PUBLIC_KEY', signatureCertificateOrPublicKey: device.publicKey.toString('base64') };
  }
  const container: DepExport['container'] = { certificateOrPublicKeyMap: map };
  if (withAesKey) container.base64AESKey = deviceStore(dataDir).aesKey(cashboxId).toString('base64');
  return {
    dep: { 'Belege-Gruppe': receipts.length ? [{ Signaturzertifikat: '', Zertifizierungsstellen: [], 'Belege-kompakt': receipts }] : [] },
    container,
    cashboxId,
    count: receipts.length,
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
