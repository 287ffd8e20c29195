/**
 * A request that arrives as text outside HTTP (a `.req` file, a UDP datagram): the query parameters
 * RN and TaxId come as attributes of the request data, and the text goes through registerTransaction
 * like the body of POST /register.
 *
 * RN and TaxId (names case-insensitive) are attributes of the root element in XML
 * (`<Tra RN="r1" TaxId="ATU1"><ESR .../></Tra>`) and, the same thing in JSON, fields of the root
 * object (`{"Tra":{"RN":"r1","TaxId":"ATU1","ESR":{...}}}`). `ESR.RN` and `ESR.TaxId` keep working
 * as they do over HTTP.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Doc, decodeBody, isObj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { registerTransaction } from '../pipeline.js';
import { rnOfQuery, rnOfTransaction } from '../register-number.js';
import type { Reply } from '../respond.js';

export interface TextRequest {
  /** the text without a leading byte order mark */
  text: string;
  /** the decoded document, when the text is one */
  doc?: Doc;
  /** why it is none */
  error?: unknown;
  /** `rn` and `taxid` from the root's attributes, as the pipeline takes query parameters */
  query: Record<string, string>;
}

const QUERY_ATTRIBUTES: Readonly<Record<string, string>> = { rn: 'rn', taxid: 'taxid' };

/** Decodes the text once to find RN and TaxId; a text that is no document is left to the pipeline to refuse. */
export function readRequestText(raw: string): TextRequest {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const query: Record<string, string> = {};
  try {
    const doc = decodeBody(text, undefined, 'Tra, TraS or Audit');
    for (const [key, value] of Object.entries(doc.body)) {
      const name = QUERY_ATTRIBUTES[key.toLowerCase()];
      if (name && typeof value === 'string' && value.trim() !== '') query[name] = value.trim();
    }
    return { text, doc, query };
  } catch (error) {
    return { text, error, query };
  }
}

/**
 * True when the text is not (yet) a whole document: empty, or not well-formed JSON or XML. A file
 * still being written looks like this; a complete but wrong document does not.
 */
export function looksIncomplete(request: TextRequest): boolean {
  const e = request.error;
  if (!(e instanceof FiscalError) || (e.code !== '#MALFORMED' && e.code !== '#EMPTY_BODY')) return false;
  if (e.code === '#MALFORMED' && !request.text.trimStart().startsWith('<')) {
    // well-formed JSON of the wrong shape (an array, two roots) is whole
    try {
      JSON.parse(request.text);
      return false;
    } catch {
      return true;
    }
  }
  return true;
}

/** The register the request is for, when it can be told (for the profile's Fis_QR); undefined otherwise. */
export function registerOfRequest(ctx: ServiceContext, request: TextRequest): string | undefined {
  const doc = request.doc;
  if (!doc) return undefined;
  try {
    if (doc.root === 'Audit') return rnOfQuery(ctx, request.query);
    const esr = doc.body.ESR;
    return rnOfTransaction(ctx, isObj(esr) ? esr : undefined, request.query);
  } catch {
    return undefined;
  }
}

/** Registers the request as POST /register does; never throws. The answer is in the request's format. */
export function registerText(ctx: ServiceContext, request: TextRequest): Promise<Reply> {
  return registerTransaction(ctx, { text: request.text, query: request.query, mode: 'register' });
}

/** Fis.Code of an answer (JSON or XML), if it has one. */
export function fisCodeOf(reply: Reply): string | undefined {
  try {
    const doc = decodeBody(reply.body, reply.contentType, 'TraC');
    const fis = doc.body.Fis;
    return isObj(fis) ? str(fis, 'Code') : undefined;
  } catch {
    return undefined;
  }
}
