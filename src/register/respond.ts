/**
 * Step 7 of the pipeline: the answer. Builds TraC/TraSC/AuditC/CfgC from a journal record,
 * and the error answers, in the negotiated format with the HTTP status of the result code.
 */
import { type ErrorCode, type Lang, type RC, FiscalError, errorDef, message } from '../shared/errors.js';
import { type Format, type Obj, type Value, contentType, encode, isObj, obj, str } from './codec/index.js';
import type { CachedResponse } from './registers.js';

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

const ANSWER_ROOT: Readonly<Record<string, string>> = { Tra: 'TraC', TraS: 'TraSC', Audit: 'AuditC', Cfg: 'CfgC' };

export function answerRoot(requestRoot: string | undefined): string {
  return (requestRoot && ANSWER_ROOT[requestRoot]) || 'TraC';
}

export function statusOf(rc: RC, respond200: boolean, errorStatus?: number): number {
  if (respond200) return 200;
  if (rc === 'OK') return 200;
  if (rc === 'NO') return 406;
  return errorStatus ?? 400;
}

/** The answer to a registered record, rebuilt from the record's data (also for #DUPLICATE). */
export function answerOf(data: Obj, extra: { errorCode?: ErrorCode; warnings?: readonly string[] } = {}): CachedResponse {
  const type = str(data, '_') ?? 'Tra';
  const result: Obj = { RC: 'OK' };
  if (extra.errorCode) result.ErrorCode = extra.errorCode;
  const warnings = [...(Array.isArray(data.Warning) ? (data.Warning.filter((w) => typeof w === 'string')) : []), ...(extra.warnings ?? [])];
  if (warnings.length) result.Warning = warnings;
  const body: Obj = { SQ: str(data, 'SQ') ?? '0', Result: result };
  const esr = obj(data, 'ESR');
  if (esr && (type === 'Tra' || type === 'TraS')) {
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
  const fis = data.Fis;
  if (isObj(fis)) body.Fis = fis;
  return { root: ANSWER_ROOT[type] ?? 'TraC', body };
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
  const def = errorDef('#INTERNAL');
  return { rc: def.rc, code: '#INTERNAL', userMessage: message('#INTERNAL', lang), status: def.status };
}

export function failureReply(format: Format, root: string, f: Failure, respond200: boolean, warnings: readonly string[] = []): Reply {
  const result: Obj = { RC: f.rc, ErrorCode: f.code, UserMessage: f.userMessage };
  if (warnings.length) result.Warning = warnings as Value[];
  return { status: statusOf(f.rc, respond200, f.status), contentType: contentType(format), body: encode(format, root, root === 'Result' ? result : { Result: result }) };
}
