/**
 * The TSE export of TR-03153: a TAR of the log messages (`Unixt_<time>_Sig-<counter>_Log-Tra_No-<n>_
 * <Start|Finish>_Client-<client id>.log`), the TSE's certificate (`<serial hex>_X509.cer`) and
 * `info.csv`, read from the journal where the log messages are kept.
 */
import { readFileSync, existsSync } from 'node:fs';
import { writeFileAtomic } from '../../../shared/files.js';
import { x509Module } from '../../../shared/lazy-modules.js';
import { join } from 'node:path';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { pack } from 'tar-stream';
import { type Obj, obj, str } from '../../codec/index.js';
import type { JournalStore } from '../../journal/types.js';
import { OID, parseLog } from './log-message.js';
import { openTse, tseDir } from './tse.js';

/** The TSE's self-issued certificate (DER), created once beside its key. */
export async function tseCertificate(dataDir: string, rn: string): Promise<Buffer> {
  const file = join(tseDir(dataDir, rn), 'tse.cert.der');
  if (existsSync(file)) return readFileSync(file);
  const tse = openTse(dataDir, rn);
  const pkcs8 = createPrivateKey(readFileSync(join(tseDir(dataDir, rn), 'tse.key.pem'))).export({ type: 'pkcs8', format: 'der' });
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, alg, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('raw', tse.publicKey, alg, true, ['verify']);
  const x509 = await x509Module();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `01${tse.serial.subarray(0, 15).toString('hex')}`,
    name: `CN=efr software TSE ${tse.serial.toString('hex').slice(0, 16)}`,
    notBefore: new Date(2000, 0, 1),
    notAfter: new Date(2100, 0, 1),
    signingAlgorithm: alg,
    keys: { privateKey, publicKey } as CryptoKeyPair,
  });
  const der = Buffer.from(cert.rawData);
  writeFileAtomic(file, der);
  return der;
}

/** Where a journal record's Fis keeps the TSE's log messages, in the order they were signed. */
export const TSE_LOG_KEYS = ['LogInit', 'LogTime', 'LogAudit', 'LogSystem', 'LogStart', 'LogUpdate', 'LogFinish'] as const;

export interface TsePeriod {
  /** unix seconds, inclusive */
  from?: bigint;
  till?: bigint;
  /** only log messages with a higher signature counter (a backup since the last one) */
  afterCounter?: bigint;
  /** only log messages up to this signature counter (the export's own system log) */
  throughCounter?: bigint;
}

/** The TAR as a stream; log messages in SQ order. */
export async function tseTar(store: JournalStore, dataDir: string, rid: number, rn: string, period: TsePeriod): Promise<NodeJS.ReadableStream> {
  const tar = pack();
  const cert = await tseCertificate(dataDir, rn);
  const tse = openTse(dataDir, rn);
  const serialHex = tse.serial.toString('hex');
  (async () => {
    let count = 0;
    for await (const r of store.find(rid, { sort: 'asc' }, 500)) {
      if (!['Tra', 'TraS', 'TraU', 'TraV', 'log'].includes(r.type)) continue;
      const fis = obj(JSON.parse(r.data) as Obj, 'Fis');
      for (const key of TSE_LOG_KEYS) {
        const b64 = fis ? str(fis, key) : undefined;
        if (!b64) continue;
        const message = Buffer.from(b64, 'base64');
        const p = parseLog(message);
        if ((period.from !== undefined && p.signatureCreationTime < period.from) || (period.till !== undefined && p.signatureCreationTime > period.till)) continue;
        if (period.afterCounter !== undefined && p.signatureCounter <= period.afterCounter) continue;
        if (period.throughCounter !== undefined && p.signatureCounter > period.throughCounter) continue;
        const op = (p.operationType ?? '').replace('Transaction', '');
        const name =
          p.certifiedDataType === OID.auditLog
            ? `Unixt_${p.signatureCreationTime}_Sig-${p.signatureCounter}_Log-Aud.log`
            : p.certifiedDataType === OID.systemLog
            ? `Unixt_${p.signatureCreationTime}_Sig-${p.signatureCounter}_Log-Sys_${op.replace(/[^A-Za-z0-9-]/g, '-')}.log`
            : `Unixt_${p.signatureCreationTime}_Sig-${p.signatureCounter}_Log-Tra_No-${p.transactionNumber ?? 0}_${op}_Client-${(p.clientId ?? '').replace(/[^A-Za-z0-9-]/g, '-')}.log`;
        tar.entry({ name, mtime: new Date(Number(p.signatureCreationTime) * 1000) }, message);
        count += 1;
      }
    }
    tar.entry({ name: `${serialHex}_X509.cer` }, cert);
    tar.entry({ name: 'info.csv' }, `"description:","efr software TSE";"manufacturer:","efr";"serial number:","${serialHex}";"signature algorithm:","ecdsa-plain-SHA256";"log messages:","${count}"\r\n`);
    tar.finalize();
  })().catch((e: unknown) => tar.destroy(e instanceof Error ? e : new Error(String(e))));
  return tar as unknown as NodeJS.ReadableStream;
}
