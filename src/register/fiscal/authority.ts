/**
 * Real-time reporting to a tax authority (Croatia's CIS, Slovenia's FURS). The receipt is
 * journaled first, with the protective code the module computed offline (ZKI, ZOI); then the pipeline
 * hands it to the country's AuthorityPort, within Fiscal_Timeout. The authority's id (JIR, EOR) is added
 * to the journal as a record of its own when it arrives (online, or later from the delivery queue with the
 * "subsequent delivery" mark the law prescribes) and merged into the receipt wherever it is shown.
 */
import type { Obj } from '../codec/index.js';

/** The fiscal certificate of a register: the key that signs requests and protective codes, and its certificate. */
export interface AuthorityCertificate {
  /** PKCS#8 PEM of the private key */
  keyPem: string;
  /** PEM of the certificate, then the rest of its chain as found in the uploaded file */
  certPem: string;
  /** the subject and issuer as one line each (`CN=..., O=...`), the serial number as uppercase hex */
  subject: string;
  issuer: string;
  serial: string;
  /** the serial number in decimal (FURS names it so in its JWS header) */
  serialDecimal: string;
  notAfter: Date;
  /** a test certificate (Croatia: "Demo" in its subject; Slovenia: a test CA issued it) */
  test: boolean;
}

export interface DeliveryInput {
  rn: string;
  /** the journaled receipt as sealed: {_, SQ, RN, TS, BC, ESR, Fis} */
  data: Obj;
  /** the register's configuration (Cfg) */
  cfg: Obj;
  /** the register's profile attributes, names lower-cased */
  attributes: ReadonlyMap<string, string>;
  certificate: AuthorityCertificate;
  /** delivered after the online attempt failed: the law's subsequent delivery mark (HR NakDost, SI SubsequentSubmit) */
  later: boolean;
  /** aborts the request when Fiscal_Timeout (online) or the queue's own limit (later) is reached */
  signal: AbortSignal;
  /** the time of sending (message headers) */
  now: Date;
}

/** The authority's answer: its id, or a refusal. A network failure or timeout is thrown (then the receipt is queued). */
export type DeliveryResult =
  | { ok: true; id: string }
  /** refused by the authority: `code` is its error code (e.g. s005), `message` its text; not retried */
  | { ok: false; code: string; message: string };

export interface AuthorityPort {
  /** the authority's name for logs and messages: CIS, FURS */
  readonly name: string;
  /** the name of the id it returns: JIR, EOR */
  readonly idName: string;
  /** the name of the protective code the receipt carries until then: ZKI, ZOI */
  readonly codeName?: string;
  /** Fiscal_Timeout when the profile does not set it, where the law limits the authority's answer (Slovakia: 2 s) */
  readonly defaultTimeoutMs?: number;
  /** how long after its issue the law allows a receipt to be delivered later (Slovakia: 48 hours); /state counts those waiting longer */
  readonly laterLimitMs?: number;
  /** false where a certificate does not tell test from production (Slovakia): Fiscal_Test alone chooses, no warning compares them */
  readonly certificateNamesSystem?: boolean;
  /** whether this journaled record is reported to the authority (receipts; not Z, training or non-fiscal records) */
  reports(data: Obj): boolean;
  /** sends one receipt; resolves the id or the refusal, throws on a network failure, a timeout or an unreadable answer */
  deliver(input: DeliveryInput): Promise<DeliveryResult>;
  /** the receipt's Fis once the id is known: the id as a field and as a printed Tag, a QR code that names it */
  withId(fis: Obj, id: string, data: Obj): Obj;
}

/** Fiscal_Timeout when the profile does not set it: how long the POS waits for the authority's id. */
const DEFAULT_FISCAL_TIMEOUT_MS = 3000;

/** How long the POS waits for the authority (profile attribute Fiscal_Timeout, ms, at least 100; else the authority's default). */
export function fiscalTimeoutOf(attributes: ReadonlyMap<string, string>, fallbackMs: number = DEFAULT_FISCAL_TIMEOUT_MS): number {
  const v = attributes.get('fiscal_timeout');
  const n = v !== undefined && /^\d{1,7}$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 100 ? n : fallbackMs;
}
