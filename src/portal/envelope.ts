/**
 * The result envelope of every portal answer: success, errorCode, errorMessage (English),
 * errorMessageTranslated (the caller's language), validationErrors (field -> messages).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type Lang, type PortalErrorCode, errorText, fieldText, langOf } from './messages.js';

export interface Envelope {
  success: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  errorMessageTranslated: string | null;
  validationErrors: Record<string, string[]>;
}

/** One violated bound of one field, translated when the answer is written. */
export interface FieldIssue {
  field: string;
  key: string;
  params?: Record<string, string | number>;
}

/** A failure that becomes an envelope with its HTTP status. */
export class PortalError extends Error {
  constructor(
    readonly code: PortalErrorCode,
    readonly params: Record<string, string | number> = {},
    readonly issues: FieldIssue[] = [],
  ) {
    super(errorText(code, 'en', params));
    this.name = 'PortalError';
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const invalid = (issues: FieldIssue[]): PortalError => new PortalError('VALIDATION_FAILED', {}, issues);
export const notFound = (what: string): PortalError => new PortalError('NOT_FOUND', { what });

/** Collects field issues; `throwIfAny` fails with all of them at once. */
export class Issues {
  readonly list: FieldIssue[] = [];
  add(field: string, key: string, params?: Record<string, string | number>): void {
    this.list.push({ field, key, ...(params ? { params } : {}) });
  }
  has(field: string): boolean {
    return this.list.some((i) => i.field === field);
  }
  throwIfAny(): void {
    if (this.list.length) throw invalid(this.list);
  }
}

export function translateIssues(issues: readonly FieldIssue[], lang: Lang): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of issues) {
    const text = fieldText(i.key, lang, i.params);
    const list = (out[i.field] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return out;
}

export function okEnvelope<T extends object>(data: T): Envelope & T {
  return { success: true, errorCode: null, errorMessage: null, errorMessageTranslated: null, validationErrors: {}, ...data };
}

export function failureEnvelope(e: PortalError, lang: Lang): Envelope {
  return {
    success: false,
    errorCode: e.code,
    errorMessage: e.message,
    errorMessageTranslated: errorText(e.code, lang, e.params),
    validationErrors: translateIssues(e.issues, lang),
  };
}

export function sendFailure(req: FastifyRequest, reply: FastifyReply, e: PortalError): FastifyReply {
  return reply.code(e.status).type('application/json; charset=utf-8').send(failureEnvelope(e, langOf(req.headers['accept-language'])));
}
