/**
 * The answer (TraC/TraSC/AuditC/CfgC and its Fis) of a sealed record, rebuilt from the record alone: for the
 * registration, #DUPLICATE and GET /last, the journal's views of a record and the portal's receipt page. It is
 * pure (the record in, the answer out) and imports neither the service's context nor its disk checks, so that
 * what renders an archived receipt outside the service does not load them.
 */
import type { ErrorCode } from '../shared/errors.js';
import { type Obj, isObj, obj, str } from './codec/index.js';
import { signingPayload } from './journal/chain.js';
import type { JournalRecord } from './journal/types.js';
import type { CachedResponse } from './registers.js';

const ANSWER_ROOT: Readonly<Record<string, string>> = { Tra: 'TraC', TraS: 'TraSC', TraU: 'TraUC', TraV: 'TraVC', Audit: 'AuditC', Cfg: 'CfgC' };

export function answerRoot(requestRoot: string | undefined): string {
  return (requestRoot && Object.hasOwn(ANSWER_ROOT, requestRoot) && ANSWER_ROOT[requestRoot]) || 'TraC';
}

/** A record's content with its chain hash and signature. */
export interface Sealed {
  data: Obj;
  hash: Buffer;
  sig: Buffer;
}

export function sealedOf(record: JournalRecord): Sealed {
  return { data: JSON.parse(record.data) as Obj, hash: record.hash, sig: record.sig };
}

/**
 * The answer to a registered record, rebuilt from the record (also for #DUPLICATE and GET /last).
 * When the country module did not sign the receipt itself, the journal signature is its Fis.Signature.
 */
export function answerOf(sealed: Sealed, extra: { errorCode?: ErrorCode; warnings?: readonly string[] } = {}): CachedResponse {
  const { data } = sealed;
  const type = str(data, '_') ?? 'Tra';
  const result: Obj = { RC: 'OK' };
  if (extra.errorCode) result.ErrorCode = extra.errorCode;
  const warnings = [...(Array.isArray(data.Warning) ? (data.Warning.filter((w) => typeof w === 'string')) : []), ...(extra.warnings ?? [])];
  if (warnings.length) result.Warning = warnings;
  const body: Obj = { SQ: str(data, 'SQ') ?? '0', Result: result };
  const esr = obj(data, 'ESR');
  if (esr && ['Tra', 'TraS', 'TraU', 'TraV'].includes(type)) {
    const out: Obj = {};
    for (const k of ['D', 'TN']) {
      const v = str(esr, k);
      if (v !== undefined) out[k] = v;
    }
    const fis = obj(data, 'Fis');
    const fn = fis ? str(fis, 'FN') : undefined;
    if (fn) out.FN = fn;
    body.ESR = out;
  }
  if (isObj(data.Z)) body.Z = data.Z;
  if (type === 'Cfg') {
    // the result record of POST /cfg (SQ, Result, ESR, Fis): when it was recorded, and the journal's signature of it
    const ts = str(data, 'TS');
    if (ts !== undefined) body.ESR = { D: ts };
    const payload = signingPayload(data, sealed.hash.toString('hex'));
    body.Fis = { Payload: payload, Signature: sealed.sig.toString('base64') };
  }
  const fis = data.Fis;
  if (isObj(fis)) {
    if (fis.Signature === undefined && fis.Code === undefined && type === 'Tra') {
      const payload = signingPayload(data, sealed.hash.toString('hex'));
      const signature = sealed.sig.toString('base64');
      body.Fis = { ...fis, Payload: payload, Signature: signature, Code: `${payload};${signature}` };
    } else {
      // the TSE's log messages stay in the journal (and its exports); the POS gets the printed data
      const { LogInit: _init, LogSystem: _system, LogTime: _time, LogAudit: _audit, LogStart: _start, LogUpdate: _update, LogFinish: _finish, ...printed } = fis;
      body.Fis = printed;
    }
  }
  return { root: answerRoot(type), body };
}
