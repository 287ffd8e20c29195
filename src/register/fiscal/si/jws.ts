/**
 * FURS's message envelope (technical specification, chapter on the JWS): every request is a compact JWS
 * (RFC 7515) signed RS256 with the fiscal certificate, posted as `{"token":"<jws>"}`. Its protected header
 * names the certificate: `alg` RS256, `subject_name` and `issuer_name` (the distinguished names as
 * `C=SI,O=...,CN=...`) and `serial` (the serial number as a decimal JSON number, written exactly: it may be
 * longer than a JS number holds, so the header text is built here rather than by a JOSE library). FURS answers
 * `{"token":"<jws>"}` signed with its own certificate; the payload is an InvoiceResponse or a
 * BusinessPremiseResponse with the id (UniqueInvoiceID, the EOR) or an Error {ErrorCode, ErrorMessage}.
 */
import { type KeyObject, X509Certificate, createPublicKey, sign, verify } from 'node:crypto';
import type { AuthorityCertificate, DeliveryResult } from '../authority.js';

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** A certificate's distinguished name (Node's multi-line form) as one line `C=SI,O=...,CN=...`. */
export function nameLine(name: string): string {
  return name.split('\n').filter(Boolean).join(',');
}

/** The leaf certificate of a certificate's PEM chain. */
export function leafOf(cert: AuthorityCertificate): X509Certificate {
  const pem = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(cert.certPem);
  if (!pem) throw new Error('the fiscal certificate has no certificate');
  return new X509Certificate(pem[0]);
}

/** The protected header's JSON text. */
export function fursHeaderText(cert: AuthorityCertificate): string {
  const leaf = leafOf(cert);
  if (!/^\d+$/.test(cert.serialDecimal)) throw new Error(`not a decimal serial number: ${cert.serialDecimal}`);
  return `{"alg":"RS256","subject_name":${JSON.stringify(nameLine(leaf.subject))},"issuer_name":${JSON.stringify(nameLine(leaf.issuer))},"serial":${cert.serialDecimal}}`;
}

/** The compact JWS of a payload's JSON text, signed RS256 by the certificate's key. */
export function signFursJws(payloadText: string, cert: AuthorityCertificate): string {
  const input = `${b64url(fursHeaderText(cert))}.${b64url(payloadText)}`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), cert.keyPem))}`;
}

/** The request body FURS expects. */
export function tokenBody(jws: string): string {
  return JSON.stringify({ token: jws });
}

export interface DecodedJws {
  headerText: string;
  payloadText: string;
  header: Record<string, unknown>;
  payload: unknown;
}

/** Splits and decodes a compact JWS (no verification); throws when it is not one. */
export function decodeJws(token: string): DecodedJws {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) throw new Error('not a compact JWS');
  const headerText = Buffer.from(parts[0] as string, 'base64url').toString('utf8');
  const payloadText = Buffer.from(parts[1] as string, 'base64url').toString('utf8');
  const header: unknown = JSON.parse(headerText);
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('the JWS header is not an object');
  return { headerText, payloadText, header: header as Record<string, unknown>, payload: JSON.parse(payloadText) };
}

/** Whether an RS256 compact JWS verifies with the public key (a key, or a PEM key or certificate). */
export function verifyJws(token: string, key: KeyObject | string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const publicKey = typeof key === 'string' ? createPublicKey(key) : key;
  return verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2] as string, 'base64url'));
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * FURS's answer (the HTTP body): the EOR, or the refusal. Throws when it is not a FURS answer (no token, an
 * undecodable token, neither id nor error) and, when `verifyKey` (FURS's signing certificate or key) is
 * given, when the token's signature does not verify with it.
 */
export function parseFursAnswer(text: string, verifyKey?: KeyObject | string): DeliveryResult {
  let body: Record<string, unknown> | undefined;
  try {
    body = record(JSON.parse(text));
  } catch {
    body = undefined;
  }
  const token = body?.token;
  if (typeof token !== 'string') throw new Error(`not a FURS answer: ${text.slice(0, 200)}`);
  if (verifyKey !== undefined && !verifyJws(token, verifyKey)) throw new Error('the signature of the FURS answer does not verify with the configured FURS certificate');
  const payload = record(decodeJws(token).payload);
  const answer = record(payload?.InvoiceResponse) ?? record(payload?.BusinessPremiseResponse);
  if (!answer) throw new Error('the FURS answer has neither InvoiceResponse nor BusinessPremiseResponse');
  const error = record(answer.Error);
  if (error) {
    const code = String(error.ErrorCode ?? '');
    // S100 "Sistemska napaka": FURS's own failure, not the request's; the receipt is sent again later
    if (/^S1\d\d$/i.test(code)) throw new Error(`FURS system error ${code}: ${String(error.ErrorMessage ?? '')}`);
    return { ok: false, code, message: String(error.ErrorMessage ?? '') };
  }
  const id = answer.UniqueInvoiceID;
  if (typeof id === 'string' && id) return { ok: true, id };
  // a business premise registration answers with its header only
  if (payload?.BusinessPremiseResponse) return { ok: true, id: '' };
  throw new Error('the FURS answer has neither an EOR nor an error');
}
