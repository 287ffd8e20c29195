/**
 * Step 7 of the pipeline: the answer. Encodes the answer of a journal record (record-answer.ts builds it)
 * and the error answers, in the negotiated format with the HTTP status of the result code.
 */
import { type ErrorCode, type Lang, type RC, FiscalError, errorDef, message } from '../shared/errors.js';
import { type Format, type Obj, type Value, contentType, encode } from './codec/index.js';
import type { CachedResponse } from './registers.js';
import { isDiskFull } from './maintenance/disk-quota.js';

// The pipeline, its routes and the country modules take a record's answer together with its encoding from here.

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

export function statusOf(rc: RC, respond200: boolean, errorStatus?: number): number {
  if (respond200) return 200;
  if (rc === 'OK') return 200;
  if (rc === 'NO') return 406;
  return errorStatus ?? 400;
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

/**
 * An error answer. `journaled`, the answer of a record that was journaled all the same (a receipt whose
 * printout failed), lends its SQ, ESR and Fis, so that the POS knows which receipt is registered.
 */
export function failureReply(format: Format, root: string, f: Failure, respond200: boolean, warnings: readonly string[] = [], journaled?: Obj): Reply {
  const result: Obj = { RC: f.rc, ErrorCode: f.code, UserMessage: f.userMessage };
  // the spec's layout errors name a `Message` (the parser's message for a syntax error): the same text
  if (LAYOUT_CODES.has(f.code)) result.Message = f.userMessage;
  if (warnings.length) result.Warning = warnings as Value[];
  const body = root === 'Result' ? result : journaled ? { ...journaled, Result: result } : { Result: result };
  return { status: statusOf(f.rc, respond200, f.status), contentType: contentType(format), body: encode(format, root, body) };
}
