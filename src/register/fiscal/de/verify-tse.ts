/**
 * Our own verifier of a TSE export TAR (TR-03153; ours or a certified TSE's): the certificates (DER or PEM,
 * the TSE's found by the serial of its key, its chain as far as the TAR holds it), every log message parsed
 * by its certifiedDataType (transaction, system with its operation's systemOperationData, audit) and its
 * signature verified with the key of its TSE, the signature counters of each TSE without a gap inside the
 * export's range, each transaction started before it is finished. Names the first failing file; says when
 * an export starts in the middle of a TSE's series (a backup since the last one, a period).
 */
import { verify } from 'node:crypto';
import { basename } from 'node:path';
import { OID, type ParsedLog, hashOfAlgorithm, parseLog } from './log-message.js';
import { decodeSystemOperationData } from './system-operations.js';
import { type TarCertificate, checkChain, isCa, readCertificates } from './tse-certificates.js';

export interface TseReport {
  ok: boolean;
  count: number;
  broken?: { file: string; reason: string };
  /** what a reader should know of an export that verifies: each TSE's range, its chain, older layouts */
  notes: string[];
}

interface Log {
  name: string;
  p: ParsedLog;
}

const TRANSACTION_OPERATIONS = new Set(['StartTransaction', 'UpdateTransaction', 'FinishTransaction']);

/** What is wrong with a log message's certified data for its type; undefined when nothing. */
function certifiedDataProblem(p: ParsedLog): string | undefined {
  switch (p.certifiedDataType) {
    case OID.transactionLog:
      if (!p.operationType || !TRANSACTION_OPERATIONS.has(p.operationType)) return `operationType [0] "${p.operationType ?? ''}" is no transaction operation`;
      if (p.clientId === undefined) return 'no clientId [1]';
      if (p.transactionNumber === undefined) return 'no transactionNumber [5]';
      return undefined;
    case OID.systemLog:
      if (!p.operationType) return 'no operationType [0]';
      if (isLegacySystemLog(p)) return undefined;
      try {
        // the BSI TSE simulator leaves systemOperationData out when an operation has none
        decodeSystemOperationData(p.operationType, p.systemOperationData ?? Buffer.alloc(0));
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
      return undefined;
    case OID.auditLog:
      return p.auditData === undefined ? 'no seAuditData' : undefined;
    default:
      return `certifiedDataType ${p.certifiedDataType} is no transaction, system or audit log`;
  }
}

/** A system log of older journal records, not in TR-03151's layout: eventType [0], eventOrigin [1] `SE-API`, eventTriggeredByUser [2], eventData [3]. */
const isLegacySystemLog = (p: ParsedLog): boolean => p.certified.has(3) && p.systemOperationData?.toString('latin1') === 'SE-API';

/** The signature counter and time a file's name states (TR-03153), when it states them. */
function namedCounter(name: string): bigint | undefined {
  const m = /_Sig-(\d+)_/.exec(basename(name));
  return m ? BigInt(m[1] as string) : undefined;
}

export function verifyTse(files: ReadonlyMap<string, Buffer>): TseReport {
  const notes: string[] = [];
  const fail = (file: string, reason: string, count = 0): TseReport => ({ ok: false, count, broken: { file, reason }, notes });
  const read = readCertificates(files);
  if ('broken' in read) return fail(read.broken.file, read.broken.reason);
  // TR-03153 names a TSE's certificate by its serial: the name and the key must agree
  for (const c of read.certificates) {
    const named = /^([0-9a-f]{64})_/i.exec(basename(c.file))?.[1]?.toLowerCase();
    if (named !== undefined && !isCa(c.cert) && named !== c.keySerial) return fail(c.file, `the file is named for serial ${named}, the SHA-256 of its certificate's key is ${c.keySerial}`);
  }
  const bySerial = new Map<string, TarCertificate>();
  // the TSE's own certificate over a CA's with the same key (a CA does not sign log messages)
  for (const c of [...read.certificates].sort((a, b) => Number(isCa(b.cert)) - Number(isCa(a.cert)))) bySerial.set(c.keySerial, c);

  const logs: Log[] = [];
  for (const [name, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!name.endsWith('.log')) continue;
    let p: ParsedLog;
    try {
      p = parseLog(bytes);
    } catch (e) {
      return fail(name, `not a log message: ${e instanceof Error ? e.message : String(e)}`);
    }
    const problem = certifiedDataProblem(p);
    if (problem) return fail(name, problem);
    const named = namedCounter(name);
    if (named !== undefined && named !== p.signatureCounter) return fail(name, `the file is named for signature counter ${named}, the log message has ${p.signatureCounter}`);
    logs.push({ name, p });
  }
  if (logs.length === 0) return fail('', 'the TAR holds no log message');

  // each TSE's logs in the order of its signature counter
  const byTse = new Map<string, Log[]>();
  for (const l of logs) {
    const serial = l.p.serialNumber.toString('hex');
    byTse.set(serial, [...(byTse.get(serial) ?? []), l]);
  }
  let count = 0;
  for (const [serial, own] of byTse) {
    own.sort((a, b) => (a.p.signatureCounter < b.p.signatureCounter ? -1 : a.p.signatureCounter > b.p.signatureCounter ? 1 : 0));
    const cert = bySerial.get(serial);
    if (!cert) return fail(own[0]?.name ?? '', `no certificate in the TAR whose key has this log's serial number ${serial}`, count);
    const chain = checkChain(cert, read.certificates);
    if (!chain.ok) return fail(chain.file, chain.reason, count);
    const first = own[0]?.p.signatureCounter ?? 0n;
    const partial = first > 1n;
    const open = new Set<bigint>();
    const finished = new Set<bigint>();
    let previous: Log | undefined;
    let legacy = 0;
    const versions = new Map<bigint, number>();
    for (const l of own) {
      const { name, p } = l;
      const hash = hashOfAlgorithm(p.signatureAlgorithm);
      if (!hash) return fail(name, `signature algorithm ${p.signatureAlgorithm} is not one this verifier checks (ecdsa-plain of BSI TR-03111)`, count);
      let verified: boolean;
      try {
        verified = verify(hash, p.signed, { key: cert.cert.publicKey, dsaEncoding: 'ieee-p1363' }, p.signatureValue);
      } catch (e) {
        return fail(name, `the signature cannot be checked: ${e instanceof Error ? e.message : String(e)}`, count);
      }
      if (!verified) return fail(name, `the signature does not verify with the key of ${cert.file}`, count);
      if (previous && p.signatureCounter === previous.p.signatureCounter) return fail(name, `signature counter ${p.signatureCounter} is also in ${previous.name}`, count);
      if (previous && p.signatureCounter !== previous.p.signatureCounter + 1n) {
        return fail(name, `signature counter ${p.signatureCounter} follows ${previous.p.signatureCounter} (${previous.name}): the log messages between are missing`, count);
      }
      previous = l;
      if (p.certifiedDataType === OID.systemLog && isLegacySystemLog(p)) legacy += 1;
      if (p.version !== 2n) versions.set(p.version, (versions.get(p.version) ?? 0) + 1);
      if (p.certifiedDataType === OID.transactionLog && p.transactionNumber !== undefined) {
        const tn = p.transactionNumber;
        if (p.operationType === 'StartTransaction') open.add(tn);
        if (p.operationType === 'FinishTransaction') {
          if (finished.has(tn)) return fail(name, `transaction ${tn} is finished twice`, count);
          if (!open.has(tn) && !partial) return fail(name, `transaction ${tn} is finished but was not started`, count);
          open.delete(tn);
          finished.add(tn);
        }
      }
      count += 1;
    }
    const last = previous?.p.signatureCounter ?? first;
    notes.push(
      `TSE ${serial}: ${own.length} log messages, signature counters ${first} to ${last}` +
        (partial ? ` (the export starts in the middle of the TSE's series: counters 1 to ${first - 1n} are in earlier exports)` : ' (from the TSE\'s first log message)') +
        (previous?.p.operationType === 'exportData' ? ', ending with the export\'s own exportData log' : `, ending at counter ${last}: a later log message, if any, is in a later export`) +
        `; certificate ${cert.file}, ${chain.text}`,
    );
    for (const [v, n] of versions) notes.push(`TSE ${serial}: ${n} log message(s) of version ${v} (TR-03151 names version 2)`);
    if (legacy > 0) notes.push(`TSE ${serial}: ${legacy} system log(s) of older journal records not in TR-03151's SystemLogMessage layout (eventType, eventOrigin, eventTriggeredByUser, eventData); their signatures verify`);
  }
  return { ok: true, count, notes };
}

export function describeTseReport(r: TseReport): string {
  if (!r.ok) return `BROKEN at ${r.broken?.file ?? ''}: ${r.broken?.reason ?? ''}`;
  return [`OK: ${r.count} log messages, signatures and counters verify`, ...r.notes].join('\n');
}
