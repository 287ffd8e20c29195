/**
 * Framing of the UDP interface: one request per datagram, one answer per datagram, UTF-8 JSON or XML
 * as the body of POST /register. Neither may be larger than 65,507 bytes, the most one UDP datagram
 * carries over IPv4.
 */
import { type Obj, type Value, decodeBody, encode, isObj, obj, str } from '../codec/index.js';
import type { Reply } from '../respond.js';

export const MAX_DATAGRAM = 65_507;

function warningsOf(result: Obj): string[] {
  const w = result.Warning;
  if (typeof w === 'string') return [w];
  return Array.isArray(w) ? w.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * The answer's bytes, made to fit into one datagram. The transaction is registered whatever its answer's
 * size, so the answer keeps its result: first Fis.QR goes (the POS can make the image from Fis.Code), then,
 * if it still does not fit, everything but SQ, ESR (D, TN, FN) and Result, with a warning naming the
 * limit and where the whole answer is (GET /tra with TL, TT and TN).
 */
export function fitDatagram(reply: Reply, max = MAX_DATAGRAM): Buffer {
  const whole = Buffer.from(reply.body, 'utf8');
  if (whole.length <= max) return whole;
  // the service's own encoding of the answer: it decodes
  const doc = decodeBody(reply.body, reply.contentType, 'TraC');
  const format = doc.format;
  const body: Obj = { ...doc.body };
  const result: Obj = { ...(obj(body, 'Result') ?? { RC: 'OK' }) };
  const note = (what: string): Value[] => [...warningsOf(result), `the answer is larger than one datagram (${whole.length} > ${max} bytes): ${what}`];
  const fis = obj(body, 'Fis');
  if (fis && fis.QR !== undefined) {
    const { QR: _qr, ...rest } = fis;
    const smaller = Buffer.from(encode(format, doc.root, { ...body, Fis: rest, Result: { ...result, Warning: note('Fis.QR left out') } }), 'utf8');
    if (smaller.length <= max) return smaller;
  }
  const sq = str(body, 'SQ');
  const minimal: Obj = {};
  if (sq !== undefined) minimal.SQ = sq;
  if (isObj(body.ESR)) minimal.ESR = body.ESR;
  minimal.Result = { ...result, Warning: note('only SQ, ESR and Result are sent; GET /tra with TL, TT and TN gives the whole transaction') };
  return Buffer.from(encode(format, doc.root, minimal), 'utf8');
}
