/**
 * The TSE export of TR-03153: a TAR of the log messages named as TR-03153 names them
 * (`Unixt_<time>_Sig-<counter>_Log-Tra_No-<n>_<Start|Update|Finish>_Client-<client id>.log`,
 * `Unixt_<time>_Sig-<counter>_Log-Sys_<operationType>.log`, `Unixt_<time>_Sig-<counter>_Log-Aud.log`),
 * the TSE's certificate (`<serial hex>_X509.cer`, DER) and `info.csv`, read from the journal where the log
 * messages are kept.
 */
import { X509Certificate, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { writeFileAtomic } from '../../../shared/files.js';
import { x509Module } from '../../../shared/lazy-modules.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { JournalStore } from '../../journal/types.js';
import { OID, type ParsedLog, parseLog } from './log-message.js';
import { openTse, tseDir } from './tse.js';

/**
 * The subject of the TSE's certificate: its serial (hex SHA-256 of the public key) as common name and
 * serialNumber, as certified TSEs name theirs and as TAR checkers compare with the certificate's file name.
 */
export function tseSubject(serialHex: string): string {
  return `CN=${serialHex}, 2.5.4.5=${serialHex}, O=efr, OU=software TSE`;
}

/** The common name of a certificate's subject (the first CN). */
const commonName = (cert: X509Certificate): string | undefined => /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];

/**
 * The TSE's self-issued certificate (DER), created once beside its key. A certificate whose subject does
 * not name the serial is issued again from the same key (the serial, the key's hash, stays); the earlier
 * one is kept beside it as `tse.cert.<first 16 hex of its SHA-256>.der`, as exports made with it embed it.
 */
export async function tseCertificate(dataDir: string, rn: string): Promise<Buffer> {
  const dir = tseDir(dataDir, rn);
  const file = join(dir, 'tse.cert.der');
  const tse = openTse(dataDir, rn);
  const serialHex = tse.serial.toString('hex');
  if (existsSync(file)) {
    const old = readFileSync(file);
    if (commonName(new X509Certificate(old)) === serialHex) return old;
    writeFileAtomic(join(dir, `tse.cert.${createHash('sha256').update(old).digest('hex').slice(0, 16)}.der`), old);
  }
  const pkcs8 = createPrivateKey(readFileSync(join(dir, 'tse.key.pem'))).export({ type: 'pkcs8', format: 'der' });
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, alg, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('raw', tse.publicKey, alg, true, ['verify']);
  const x509 = await x509Module();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `01${tse.serial.subarray(0, 15).toString('hex')}`,
    name: tseSubject(serialHex),
    notBefore: new Date(2000, 0, 1),
    notAfter: new Date(2100, 0, 1),
    signingAlgorithm: alg,
    keys: { privateKey, publicKey } as CryptoKeyPair,
    // a signing key, not a CA's: checkers tell the TSE's certificate from its CA chain by keyCertSign
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
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
        const name = logFileName(p);
        tar.entry({ name, mtime: new Date(Number(p.signatureCreationTime) * 1000) }, message);
        count += 1;
      }
    }
    tar.entry({ name: `${serialHex}_X509.cer` }, cert);
    tar.entry({ name: 'info.csv' }, `"description:","efr software TSE";"manufacturer:","efr";"version:","${TSE_VERSION}";"serial number:","${serialHex}";"signature algorithm:","ecdsa-plain-SHA256";"log time format:","unixTime";"log messages:","${count}"\r\n`);
    tar.finalize();
  })().catch((e: unknown) => tar.destroy(e instanceof Error ? e : new Error(String(e))));
  return tar as unknown as NodeJS.ReadableStream;
}

/** The software TSE's version in info.csv: its log messages in the TR-03151 layout of system logs. */
const TSE_VERSION = '2';

const safe = (s: string): string => s.replace(/[^A-Za-z0-9-]/g, '-');

/** A log message's file name in the TAR (TR-03153): time, signature counter, kind and its parts. */
export function logFileName(p: ParsedLog): string {
  const head = `Unixt_${p.signatureCreationTime}_Sig-${p.signatureCounter}`;
  if (p.certifiedDataType === OID.auditLog) return `${head}_Log-Aud.log`;
  if (p.certifiedDataType === OID.systemLog) return `${head}_Log-Sys_${safe(p.operationType ?? '')}.log`;
  const op = (p.operationType ?? '').replace('Transaction', '');
  return `${head}_Log-Tra_No-${p.transactionNumber ?? 0}_${op}_Client-${safe(p.clientId ?? '')}.log`;
}
