/**
 * The service-provider API this version speaks: one HTTPS POST of the UBL document, one JSON answer.
 *
 * Request: `POST <endpoint>` with the UBL XML as body, `Content-Type: application/xml; charset=utf-8`,
 * `Accept: application/json`, `Authorization: Bearer <token>` when a token is configured, `X-EFR-Destination`
 * (ESR.DD as journaled), `X-EFR-Receiver` (ESR.DDto, when given: the receiver's id, also in the document as
 * BT-49), `X-EFR-Invoice` (BT-1), `Idempotency-Key` (the same on every attempt of one invoice: the register, the
 * record's SQ and a digest of the instance's key id and the record's journal hash, so that a provider answers a
 * repeated delivery with its first answer instead of sending the invoice twice, and no other shop's invoice of
 * the same RN and SQ is taken for it).
 *
 * Answer: `2xx` with `{"id": "<the provider's id of the document>", "status": "accepted" | "delivered" | …}`
 * (any status word but `rejected` is an acceptance and kept as given), or `{"status": "rejected", "reason":
 * "…"}`; `400`, `409` and `422` are a rejection of the document (its `reason`, else the body's text). Anything
 * else (no answer in time, a network failure, 401/403/404 (set-up), 408, 429, 5xx, an unreadable 2xx, an
 * answer larger than 64 KiB, an id or status word that is no short one-line text) is no answer: the e-invoice
 * waits and is sent again.
 */
import { type Endpoint, checkEndpointUrl } from './endpoint.js';

export type ProviderAnswer =
  | { ok: true; id: string; status: string }
  | { ok: false; status: 'rejected'; reason: string; id?: string; httpStatus: number };

export interface ProviderRequest {
  endpoint: Endpoint;
  xml: string;
  /** ESR.DD as journaled */
  dd: string;
  /** ESR.DDto */
  receiver?: string | undefined;
  invoiceNumber: string;
  idempotencyKey: string;
  signal: AbortSignal;
}

const REJECTING = new Set([400, 409, 422]);
/** what of a rejection's reason is kept: it is journaled, printed on the receipt and shown to the POS */
const REASON_CHARS = 500;
/** an id or status word longer than this, or with a line break or control character, is no readable answer */
const ID_CHARS = 200;
const STATUS_CHARS = 40;
/** an answer is a few hundred bytes of JSON: one larger is not read further */
const ANSWER_BYTES = 64 * 1024;
/** control characters (a printer's escape sequences, line breaks) are not kept from the provider's text */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

function jsonOf(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function textField(o: Record<string, unknown> | undefined, name: string): string | undefined {
  const v = o?.[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
}

/** An id or status word as given, when it is short text on one line; throws (no readable answer) otherwise. */
function wordField(o: Record<string, unknown> | undefined, name: string, max: number): string | undefined {
  const v = textField(o, name);
  if (v !== undefined && (v.length > max || CONTROL.test(v))) throw new Error(`the delivery system's answer has no readable ${name} (at most ${max} characters on one line)`);
  return v;
}

/** A reason as one line of at most REASON_CHARS characters. */
function reasonText(v: string): string {
  return v.replace(CONTROLS, ' ').replace(/ {2,}/g, ' ').trim().slice(0, REASON_CHARS);
}

/** The answer's text, read up to ANSWER_BYTES; throws beyond that (the rest is not read). */
async function boundedText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the delivery system's answer is larger than ${ANSWER_BYTES} bytes (HTTP ${res.status})`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Header values are Latin-1: anything else is sent percent-encoded. */
function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) ? v : encodeURIComponent(v);
}

/** Sends one e-invoice; resolves the provider's answer, throws when there is none (network, timeout, status, unreadable). */
export async function postEinvoice(req: ProviderRequest): Promise<ProviderAnswer> {
  const url = checkEndpointUrl(req.endpoint.url, req.endpoint.attribute);
  const headers: Record<string, string> = {
    'content-type': 'application/xml; charset=utf-8',
    accept: 'application/json',
    'x-efr-destination': headerValue(req.dd),
    'x-efr-invoice': headerValue(req.invoiceNumber),
    'idempotency-key': headerValue(req.idempotencyKey),
  };
  if (req.receiver) headers['x-efr-receiver'] = headerValue(req.receiver);
  if (req.endpoint.token) headers.authorization = `Bearer ${req.endpoint.token}`;
  const res = await fetch(url, { method: 'POST', headers, body: req.xml, signal: req.signal, redirect: 'error' });
  const text = await boundedText(res);
  const body = jsonOf(text);
  const excerpt = reasonText(text).slice(0, 200);
  if (REJECTING.has(res.status)) {
    const reason = reasonText(textField(body, 'reason') ?? text) || `HTTP ${res.status}`;
    const id = wordField(body, 'id', ID_CHARS);
    return { ok: false, status: 'rejected', reason, httpStatus: res.status, ...(id ? { id } : {}) };
  }
  if (res.status < 200 || res.status > 299) throw new Error(`the delivery system answered HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`);
  if (!body) throw new Error(`the delivery system's answer is no JSON object: ${excerpt}`);
  const status = wordField(body, 'status', STATUS_CHARS) ?? '';
  const id = wordField(body, 'id', ID_CHARS);
  if (status.toLowerCase() === 'rejected') return { ok: false, status: 'rejected', reason: reasonText(textField(body, 'reason') ?? '') || 'rejected without a reason', httpStatus: res.status, ...(id ? { id } : {}) };
  if (!id) throw new Error(`the delivery system's answer has no id: ${excerpt}`);
  return { ok: true, id, status: status || 'accepted' };
}
