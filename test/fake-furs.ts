/**
 * A fake FURS for tests (not part of the product): an HTTP server taking POST <base>/invoices and
 * <base>/invoices/register with `{"token": "<jws>"}`. It finds the signing certificate by the JWS header's
 * serial and subject_name among the certificates it knows, verifies the RS256 signature (jose), validates the
 * payload against FURS's official JSON schema (test/vectors/si-furs/FiscalVerificationSchema.json, ajv), and
 * answers like FURS: `{"token": "<jws signed by the fake's own key>"}` whose payload is an InvoiceResponse
 * with a UniqueInvoiceID (EOR), a BusinessPremiseResponse, or an Error {ErrorCode, ErrorMessage}.
 * Modes: 'ok'; 'error' (every request answered with FURS's system error S100, or the error given); 'down' (the connection is dropped unanswered).
 * Also: makeFursTestCertificate, a test certificate made with openssl.
 */
import { X509Certificate, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import AjvModule, { type Options, type ValidateFunction } from 'ajv';
import { CompactSign, compactVerify } from 'jose';
import { parse as losslessParse } from 'lossless-json';
import { vectorPath } from '../src/shared/testing.js';
import { tempDir } from './helpers.js';

const SCHEMA_FILE = vectorPath('si-furs', 'FiscalVerificationSchema.json');

/**
 * FURS's schema is written for JSON Schema draft-04, which ajv 8 does not read: the copy in memory is given
 * draft-06+ spellings of the same rules (numeric exclusiveMinimum/Maximum, no `id` keywords, no $schema).
 * FURS's date-times are local times without an offset (2015-08-13T10:13:32), so `date-time` accepts an
 * optional offset.
 */
function draft04ToCurrent(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft04ToCurrent);
  if (typeof node !== 'object' || node === null) return node;
  const src = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === '$schema' || k === 'id') continue;
    if (k === 'exclusiveMinimum' && typeof v === 'boolean') continue;
    if (k === 'exclusiveMaximum' && typeof v === 'boolean') continue;
    out[k] = k === 'properties' || k === 'definitions' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, draft04ToCurrent(s)])) : draft04ToCurrent(v);
  }
  if (src.exclusiveMinimum === true && typeof src.minimum === 'number') {
    out.exclusiveMinimum = src.minimum;
    delete out.minimum;
  }
  if (src.exclusiveMaximum === true && typeof src.maximum === 'number') {
    out.exclusiveMaximum = src.maximum;
    delete out.maximum;
  }
  return out;
}

// ajv is CommonJS: its class is the default export's default under ESM
type AjvInstance = { addFormat(name: string, re: RegExp): unknown; compile(schema: object): ValidateFunction };
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (opts: Options) => AjvInstance;
let validator: ValidateFunction | undefined;

/** The ajv validator of FURS's official schema (one object with InvoiceRequest / BusinessPremiseRequest / ...). */
export function fursSchemaValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: false, multipleOfPrecision: 8 });
    ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/);
    validator = ajv.compile(draft04ToCurrent(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))) as object);
  }
  return validator as ValidateFunction;
}

export interface Received {
  path: string;
  /** the decoded payload */
  payload: Record<string, unknown>;
  /** the JWS header as sent (serial kept exact as text) */
  headerText: string;
  /** SubsequentSubmit of an invoice */
  later: boolean;
  /** what the fake answered: the EOR, or the error code */
  answer: { eor?: string; error?: string };
}

export type FakeFursMode = 'ok' | 'down' | 'error';

export interface FakeFurs {
  /** the base URL, like http://127.0.0.1:<port>/v1/cash_registers */
  url: string;
  received: Received[];
  /** the public key (PEM) the fake signs its answers with */
  publicKeyPem: string;
  /** 'error' answers FURS's system error S100 unless another error is given (a refusal such as a wrong tax number) */
  setMode(mode: FakeFursMode, error?: { code: string; message: string }): void;
  close(): Promise<void>;
}

function fursDateTime(): string {
  return new Date().toISOString().slice(0, 19);
}

async function answerToken(key: KeyObject, payload: unknown): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RS256' }).sign(key);
}

export async function startFakeFurs(opts: { certPems?: string[]; certPem?: string; basePath?: string } = {}): Promise<FakeFurs> {
  const basePath = opts.basePath ?? '/v1/cash_registers';
  const known = [...(opts.certPems ?? []), ...(opts.certPem ? [opts.certPem] : [])].map((pem) => new X509Certificate(pem));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let mode: FakeFursMode = 'ok';
  let error = { code: 'S100', message: 'Sistemska napaka pri obdelavi sporočila' };
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const path = req.url ?? '';
    const kind = path === `${basePath}/invoices` ? 'InvoiceResponse' : path === `${basePath}/invoices/register` ? 'BusinessPremiseResponse' : undefined;
    if (req.method !== 'POST' || !kind) {
      res.writeHead(404).end('not found');
      return;
    }
    const reply = async (payload: Record<string, unknown>, rec?: Received): Promise<void> => {
      if (rec) received.push(rec);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: await answerToken(privateKey, { [kind]: { Header: { MessageID: randomUUID(), DateTime: fursDateTime() }, ...payload } }) }));
    };
    let token: unknown;
    try {
      token = (JSON.parse(body) as { token?: unknown }).token;
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string' || token.split('.').length !== 3) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request');
      return;
    }
    const [h = '', p = ''] = token.split('.');
    const headerText = Buffer.from(h, 'base64url').toString('utf8');
    let payload: Record<string, unknown> = {};
    let header: Record<string, unknown> = {};
    try {
      header = losslessParse(headerText) as Record<string, unknown>;
      payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      await reply({ Error: { ErrorCode: 'S001', ErrorMessage: 'Sporočilo ni v skladu s shemo JSON' } });
      return;
    }
    const invoice = (payload.InvoiceRequest as { Invoice?: { SubsequentSubmit?: boolean } } | undefined)?.Invoice;
    const rec: Received = { path, payload, headerText, later: invoice?.SubsequentSubmit === true, answer: {} };
    const refuse = (code: string, message: string): Promise<void> => {
      rec.answer.error = code;
      return reply({ Error: { ErrorCode: code, ErrorMessage: message } }, rec);
    };
    if (mode === 'error') return refuse(error.code, error.message);
    // the certificate: serial (exact decimal) and subject_name must name one the fake knows
    const serial = String(header.serial ?? '');
    const cert = known.find((c) => BigInt(`0x${c.serialNumber}`).toString(10) === serial && c.subject.split('\n').join(',') === header.subject_name);
    if (header.alg !== 'RS256' || !cert) return refuse('S003', 'Digitalno potrdilo ni veljavno ali ni znano');
    try {
      await compactVerify(token, createPublicKey(cert.toString()));
    } catch {
      return refuse('S002', 'Podpis sporočila ni veljaven');
    }
    const validate = fursSchemaValidator();
    if (!validate(payload)) return refuse('S001', `Sporočilo ni v skladu s shemo JSON: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    if (kind === 'InvoiceResponse' && !payload.InvoiceRequest) return refuse('S001', 'Sporočilo ni v skladu s shemo JSON: InvoiceRequest expected');
    if (kind === 'BusinessPremiseResponse' && !payload.BusinessPremiseRequest) return refuse('S001', 'Sporočilo ni v skladu s shemo JSON: BusinessPremiseRequest expected');
    if (kind === 'InvoiceResponse') {
      const eor = randomUUID();
      rec.answer.eor = eor;
      return reply({ UniqueInvoiceID: eor }, rec);
    }
    return reply({}, rec);
  }

  const server = createServer((req, res) => {
    if (mode === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((e: unknown) => {
        res.writeHead(500).end(String(e));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    received,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    setMode(m, e) {
      mode = m;
      if (e) error = e;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A self-signed test certificate like FURS's test ones (made with openssl): key, certificate, PKCS#12 (password "test"). */
export function makeFursTestCertificate(cn = 'TESTNO PODJETJE 1', taxNumber = '12345678'): { dir: string; keyPem: string; certPem: string; keyFile: string; p12: Buffer } {
  const dir = tempDir('efr-furs-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const p12File = join(dir, 'cert.p12');
  const run = (args: string[]): void => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '30', '-subj', `/C=SI/O=state-institutions/OU=DavPotRacTEST/OU=${taxNumber}/serialNumber=1/CN=${cn}`]);
  run(['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-out', p12File, '-passout', 'pass:test']);
  return { dir, keyPem: readFileSync(keyFile, 'utf8'), certPem: readFileSync(certFile, 'utf8'), keyFile, p12: readFileSync(p12File) };
}
