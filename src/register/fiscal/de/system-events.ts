/**
 * The TSE's own log messages around the transactions: the system logs (initialize, updateTime, and the
 * operations the service asks for: selfTest, exportData), each a TR-03151 SystemLogMessage with its
 * operation's systemOperationData (system-operations.ts), and the audit log written when the TSE answers
 * again after a failure; with the counters and times they advance in the register's country state.
 */
import type { Obj } from '../../codec/index.js';
import { OID, auditLog, auditSignedPart, systemLog, systemSignedPart } from './log-message.js';
import { type SystemOperation, encodeSystemOperationData } from './system-operations.js';
import type { Tse } from './tse.js';

/** What the TSE names itself in its initialization (initialize's description) and its self test. */
export const TSE_DESCRIPTION = 'efr software TSE';

/**
 * The logs the TSE writes before a transaction or system event when due: the system log of its initialization (once,
 * signature counter 1); `updateTime` when its clock is set (at its first use after the service
 * started, and when the host's clock went back behind its last log); and, when it answers again
 * after a failure, an audit log saying since when and for how many operations it did not answer.
 */
export function preambleLogs(c: Record<string, string>, tse: Tse, now: bigint): Obj {
  const out: Obj = {};
  if (c['de|initialized'] !== '1') {
    const log = systemEvent(c, tse, now, { operationType: 'initialize', description: TSE_DESCRIPTION });
    if (!log) return out; // tried again with the next transaction
    c['de|initialized'] = '1';
    out.LogInit = log.toString('base64');
  }
  const last = BigInt(c['de|lastTime'] ?? '0');
  if (!clockSet.has(tse) || now < last) {
    // the software TSE reads the host's clock: before the update its time is the last it logged (0 before any)
    const log = systemEvent(c, tse, now, { operationType: 'updateTime', timeBeforeUpdate: last, timeAfterUpdate: now });
    if (!log) return out;
    clockSet.add(tse);
    out.LogTime = log.toString('base64');
  }
  const since = c['de|failedSince'];
  if (since !== undefined) {
    const text = `TSE did not answer from unixTime ${since} to ${now}: ${c['de|failedCount'] ?? '1'} operation(s) registered without it`;
    const counter = BigInt(c['de|sigCnt'] ?? '0') + 1n;
    const env = { certifiedDataType: OID.auditLog, serialNumber: tse.serial, signatureCounter: counter, signatureCreationTime: now };
    const signature = tse.sign(auditSignedPart(env, Buffer.from(text, 'utf8')));
    if (!signature) return out;
    signedNow(c, counter, now);
    delete c['de|failedSince'];
    delete c['de|failedCount'];
    out.LogAudit = auditLog(env, Buffer.from(text, 'utf8'), signature).toString('base64');
  }
  return out;
}

/** A system operation with the logs due before it, as a record's Fis; `Failed` when the TSE does not answer. */
export function systemEventFis(c: Record<string, string>, tse: Tse, now: bigint, op: SystemOperation): Obj {
  const pre = preambleLogs(c, tse, now);
  const log = c['de|initialized'] === '1' ? systemEvent(c, tse, now, op) : undefined;
  return { ...pre, ...(log ? { LogSystem: log.toString('base64') } : { Failed: 'TSE ausgefallen' }) };
}

/** Signs the system log of an operation with the next signature counter; undefined when the TSE does not answer. */
export function systemEvent(c: Record<string, string>, tse: Tse, now: bigint, op: SystemOperation): Buffer | undefined {
  const counter = BigInt(c['de|sigCnt'] ?? '0') + 1n;
  const env = { certifiedDataType: OID.systemLog, serialNumber: tse.serial, signatureCounter: counter, signatureCreationTime: now };
  const event = { operationType: op.operationType, systemOperationData: encodeSystemOperationData(op) };
  const signature = tse.sign(systemSignedPart(env, event));
  if (!signature) {
    noteFailure(c, now);
    return undefined;
  }
  signedNow(c, counter, now);
  return systemLog(env, event, signature);
}

/** TSEs whose clock was set by this process (the set happens at their first use after the start). */
const clockSet = new WeakSet<Tse>();

export function signedNow(c: Record<string, string>, counter: bigint, now: bigint): void {
  c['de|sigCnt'] = counter.toString();
  c['de|lastTime'] = now.toString();
}

/** The TSE did not answer: remembered for the audit log written when it answers again. */
export function noteFailure(c: Record<string, string>, now: bigint): void {
  c['de|failedSince'] ??= now.toString();
  c['de|failedCount'] = String(Number(c['de|failedCount'] ?? '0') + 1);
}

