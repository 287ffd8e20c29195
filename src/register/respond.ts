/**
 * Step 7 of the pipeline: the answer. Builds TraC/TraSC/AuditC/CfgC from a journal record,
 * and the error answers, in the negotiated format with the HTTP status of the result code.
 */
import { type ErrorCode, type Lang, type RC, FiscalError, errorDef, message } from '../shared/errors.js';
import { type Format, type Obj, type Value, contentType, encode, isObj, obj, str } from './codec/index.js';
import type { CachedResponse } from './registers.js';
import { signingPayload } from './journal/chain.js';
import type { JournalRecord } from './journal/types.js';
import { isDiskFull } from './maintenance/disk-quota.js';

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

const ANSWER_ROOT: Readonly<Record<string, string>> = { Tra: 'TraC', TraS: 'TraSC', TraU: 'TraUC', TraV: 'TraVC', Audit: 'AuditC', Cfg: 'CfgC' };

export function answerRoot(requestRoot: string | undefined): string {
  return (requestRoot && Object.hasOwn(ANSWER_ROOT, requestRoot) && ANSWER_ROOT[requestRoot]) || 'TraC';
}

export function statusOf(rc: RC, respond200: boolean, errorStatus?: number): number {
  if (respond200) return 200;
  if (rc === 'OK') return 200;
  if (rc === 'NO') return 406;
  return errorStatus ?? 400;
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

export function reply(format: Format, cached: CachedResponse, status = 200): Reply {
  return { status, contentType: contentType(format), body: encode(format, cached.root, cached.body) };
}

export interface Failure {
  rc: RC;
  code: ErrorCode;
  userMessage: string;
  status: number;
}

export function failureOf(e: unknown, lang: Lang): Failure {
  if (e instanceof FiscalError) return { rc: e.rc, code: e.code, userMessage: e.localized(lang), status: e.status };
  // a write that found the disk full (a new register's row, a file): RC NO, #DISK_FULL
  if (isDiskFull(e)) return failureOf(new FiscalError('#DISK_FULL'), lang);
  const def = errorDef('#INTERNAL');
  return { rc: def.rc, code: '#INTERNAL', userMessage: message('#INTERNAL', lang), status: def.status };
}

const LAYOUT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['#FILE_NOT_FOUND', '#MISSING_FILE', '#PUG_SYNTAX_ERROR', '#FILE_EXISTS']);

export function failureReply(format: Format, root: string, f: Failure, respond200: boolean, warnings: readonly string[] = []): Reply {
  const result: Obj = { RC: f.rc, ErrorCode: f.code, UserMessage: f.userMessage };
  // the spec's layout errors name a `Message` (the parser's message for a syntax error): the same text
  if (LAYOUT_CODES.has(f.code)) result.Message = f.userMessage;
  if (warnings.length) result.Warning = warnings as Value[];
  return { status: statusOf(f.rc, respond200, f.status), contentType: contentType(format), body: encode(format, root, root === 'Result' ? result : { Result: result }) };
}
