/**
 * A fake eKasa (the Slovak financial administration's receipt registration) for tests, never part of the
 * product: an HTTP server that takes the SOAP request and checks it as eKasa would: its RegisterReceiptRequest
 * against the request schema (test/vectors/sk-ekasa/ekasa-request.xsd, written by this project: see its
 * README) with xmllint, the WS-Security signature of the SOAP body with the certificate of its
 * BinarySecurityToken (RSA-SHA256, SHA-256, exclusive c14n, the reference naming the body), the PKP as the
 * signature of the receipt's fields by that certificate's key, the OKP as the SHA-1 of the PKP, and the cash
 * register code against the one the certificate names. It answers a RegisterReceiptResponse with the echoed
 * Uuid and a new receipt id `O-` + 32 hex digits, or an Error with a code. Mode 'down' drops the connection,
 * 'error' answers every request with the configured error.
 * Also makes the test certificates: a self-signed RSA 2048 certificate naming a cash register code,
 * exported to PKCS#12 with openssl.
 */
import { X509Certificate, createHash, createVerify, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { escapeAttr } from '../src/register/codec/xml-text.js';
import { vectorPath } from '../src/shared/testing.js';
import { freePort, tempDir } from './helpers.js';

export const EKASA_SCHEMA = vectorPath('sk-ekasa', 'ekasa-request.xsd');
const EKASA_NS = 'http://financnasprava.sk/ekasa/schema/v2';
const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';

export type FakeEkasaMode = 'ok' | 'down' | 'error';

export interface ReceivedReceipt {
  /** the RegisterReceiptRequest element as received */
  xml: string;
  uuid: string;
  sendingCount: number;
  cashRegisterCode: string;
  receiptNumber: string;
  receiptType: string;
  amount: string;
  paragon: boolean;
  pkp: string;
  okp: string;
  /** the receipt id answered, or the error code */
  uid?: string;
  error?: string;
}

export interface FakeEkasa {
  url: string;
  received: ReceivedReceipt[];
  mode: FakeEkasaMode;
  /** waits this long before answering */
  delayMs: number;
  /** answers in the name of this message instead of the request's (an answer that reaches the wrong sender) */
  answerUuid?: string;
  setMode(mode: FakeEkasaMode, error?: { code: string; message: string }): void;
  close(): Promise<void>;
}

/** Validates a file against the request schema with xmllint; the messages when it fails. */
export function xmllintEkasa(file: string): { ok: boolean; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', EKASA_SCHEMA, file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

function pemOf(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/\s+/g, '').match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}

/**
 * Verifies the WS-Security signature of an eKasa SOAP request: the certificate of its BinarySecurityToken,
 * the eKasa algorithms, one reference, to the body, and the signature itself.
 */
export function verifyEkasaEnvelope(xml: string): { valid: boolean; certificate?: X509Certificate; detail: string } {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const security = doc.getElementsByTagNameNS(WSSE_NS, 'Security')[0];
  const signature = security?.getElementsByTagNameNS(DSIG_NS, 'Signature')[0];
  if (!security || !signature) return { valid: false, detail: 'no signature in the WS-Security header' };
  const token = security.getElementsByTagNameNS(WSSE_NS, 'BinarySecurityToken')[0];
  if (!token) return { valid: false, detail: 'no BinarySecurityToken' };
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pemOf(token.textContent ?? ''));
  } catch (e) {
    return { valid: false, detail: `unreadable certificate: ${(e as Error).message}` };
  }
  const methods = [
    signature.getElementsByTagNameNS(DSIG_NS, 'SignatureMethod')[0]?.getAttribute('Algorithm'),
    signature.getElementsByTagNameNS(DSIG_NS, 'DigestMethod')[0]?.getAttribute('Algorithm'),
    signature.getElementsByTagNameNS(DSIG_NS, 'CanonicalizationMethod')[0]?.getAttribute('Algorithm'),
  ];
  if (methods[0] !== 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' || methods[1] !== 'http://www.w3.org/2001/04/xmlenc#sha256' || methods[2] !== 'http://www.w3.org/2001/10/xml-exc-c14n#') {
    return { valid: false, certificate, detail: `not the eKasa algorithms: ${methods.join(', ')}` };
  }
  const references = signature.getElementsByTagNameNS(DSIG_NS, 'Reference');
  const body = doc.getElementsByTagNameNS(SOAP_NS, 'Body')[0];
  const bodyId = body?.getAttributeNS(WSU_NS, 'Id') ?? '';
  if (references.length !== 1 || references[0]?.getAttribute('URI') !== `#${bodyId}`) return { valid: false, certificate, detail: `the signature does not cover the body #${bodyId}` };
  const tokenRef = signature.getElementsByTagNameNS(WSSE_NS, 'Reference')[0]?.getAttribute('URI');
  if (tokenRef !== `#${token.getAttributeNS(WSU_NS, 'Id') ?? ''}`) return { valid: false, certificate, detail: 'KeyInfo does not name the BinarySecurityToken' };
  const check = new SignedXml({ publicCert: certificate.toString(), getCertFromKeyInfo: () => null });
  check.loadSignature(signature);
  try {
    const valid = check.checkSignature(xml);
    return { valid, certificate, detail: valid ? 'valid' : 'the signature does not verify' };
  } catch (e) {
    return { valid: false, certificate, detail: (e as Error).message };
  }
}

/** The PKP text of a request's ReceiptData, rebuilt independently of the service's code. */
export function pkpTextOfRequest(data: Element): string {
  const a = (n: string): string => data.getAttribute(n) ?? '';
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2}:\d{2})/.exec(a('IssueDate'));
  const issued = m ? `${m[3]}.${m[2]}.${m[1]} ${m[4]}` : '';
  return [a('Dic'), a('CashRegisterCode'), a('ReceiptNumber'), a('ReceiptType'), issued, a('Amount')].join('|');
}

function answer(uuid: string, body: string): string {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}"><soapenv:Body><ekasa:RegisterReceiptResponse xmlns:ekasa="${EKASA_NS}"><ekasa:Header Uuid="${uuid}" ProcessDate="${now}"/>${body}</ekasa:RegisterReceiptResponse></soapenv:Body></soapenv:Envelope>`;
}

function errorXml(code: string, message: string): string {
  return `<ekasa:Error Code="${escapeAttr(code)}" Message="${escapeAttr(message.slice(0, 500))}"/>`;
}

export async function startFakeEkasa(opts: { mode?: FakeEkasaMode; error?: { code: string; message: string } } = {}): Promise<FakeEkasa> {
  const port = await freePort();
  const dir = tempDir('fake-ekasa-');
  const sockets = new Set<Socket>();
  let error = opts.error ?? { code: '-1', message: 'Interná chyba systému e-kasa.' };
  let closed = false;
  const state: FakeEkasa = {
    url: `http://127.0.0.1:${port}/ekasa/services/EkasaService`,
    received: [],
    mode: opts.mode ?? 'ok',
    delayMs: 0,
    setMode(mode, err) {
      state.mode = mode;
      if (err) error = err;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const s of sockets) s.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    // a delayed answer after the fake was closed
    if (closed) return;
    if (state.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const reply = (status: number, xml: string): void => {
      res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' });
      res.end(xml);
    };
    if (req.method !== 'POST' || !req.url?.startsWith('/ekasa/services/EkasaService')) {
      reply(404, '<error>not found</error>');
      return;
    }
    const doc = new DOMParser({ errorHandler: { warning: () => undefined } }).parseFromString(body, 'text/xml');
    const request = doc.getElementsByTagNameNS(EKASA_NS, 'RegisterReceiptRequest')[0];
    const header = request?.getElementsByTagNameNS(EKASA_NS, 'Header')[0];
    const data = request?.getElementsByTagNameNS(EKASA_NS, 'ReceiptData')[0];
    if (!request || !header || !data) {
      reply(500, answer('00000000-0000-0000-0000-000000000000', errorXml('-2', 'Dátová správa nie je v súlade s XSD: chýba RegisterReceiptRequest')));
      return;
    }
    const xml = new XMLSerializer().serializeToString(request);
    const uuid = header.getAttribute('Uuid') ?? '';
    const text = (name: string): string => (request.getElementsByTagNameNS(EKASA_NS, name)[0]?.textContent ?? '').trim();
    const entry: ReceivedReceipt = {
      xml, uuid, sendingCount: Number(header.getAttribute('SendingCount')), cashRegisterCode: data.getAttribute('CashRegisterCode') ?? '',
      receiptNumber: data.getAttribute('ReceiptNumber') ?? '', receiptType: data.getAttribute('ReceiptType') ?? '', amount: data.getAttribute('Amount') ?? '',
      paragon: data.getAttribute('Paragon') === 'true', pkp: text('PKP'), okp: text('OKP'),
    };
    state.received.push(entry);
    const refuse = (code: string, message: string): void => {
      entry.error = code;
      reply(500, answer(uuid || '00000000-0000-0000-0000-000000000000', errorXml(code, message)));
    };
    if (state.mode === 'error') {
      refuse(error.code, error.message);
      return;
    }
    const file = join(dir, `${state.received.length}.xml`);
    writeFileSync(file, xml);
    const lint = xmllintEkasa(file);
    if (!lint.ok) {
      refuse('-2', `Dátová správa nie je v súlade s XSD: ${lint.output}`);
      return;
    }
    const sig = verifyEkasaEnvelope(body);
    if (!sig.valid || !sig.certificate) {
      refuse('-10', `Chyba v podpise dátovej správy: ${sig.detail}`);
      return;
    }
    const named = /(?:^|[^\d])(\d{17})(?:[^\d]|$)/.exec(sig.certificate.subject)?.[1];
    if (named !== undefined && named !== entry.cashRegisterCode) {
      refuse('-12', 'Kód pokladnice nezodpovedá certifikátu.');
      return;
    }
    const pkpOk = createVerify('RSA-SHA256').update(pkpTextOfRequest(data), 'utf8').verify(sig.certificate.publicKey, Buffer.from(entry.pkp, 'base64'));
    if (!pkpOk) {
      refuse('-11', 'Nesprávny podpisový kód podnikateľa (PKP).');
      return;
    }
    const okp = (createHash('sha1').update(Buffer.from(entry.pkp, 'base64')).digest('hex').match(/.{8}/g) ?? []).join('-');
    if (okp !== entry.okp) {
      refuse('-13', 'Nesprávny overovací kód podnikateľa (OKP).');
      return;
    }
    entry.uid = `O-${randomBytes(16).toString('hex').toUpperCase()}`;
    reply(200, answer(state.answerUuid ?? uuid, `<ekasa:Receipt Id="${entry.uid}"/>`));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (state.delayMs > 0) setTimeout(() => handle(req, res, body), state.delayMs);
      else handle(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return state;
}

export interface EkasaCertificateFiles {
  dir: string;
  keyPem: string;
  keyFile: string;
  certFile: string;
  /** PKCS#12 with the password `demo` */
  p12: Buffer;
  password: string;
}

/** A self-signed RSA 2048 certificate naming the cash register code, its key as a file and both as PKCS#12 (openssl). */
export function makeEkasaCertificate(cashRegisterCode: string, dir: string = tempDir('sk-cert-')): EkasaCertificateFiles {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const p12File = join(dir, 'cert.p12');
  const run = (args: string[]): void => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0] ?? ''}: ${r.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '365', '-subj', `/C=SK/O=Predajna s.r.o./CN=${cashRegisterCode}`]);
  run(['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-out', p12File, '-passout', 'pass:demo']);
  return { dir, keyPem: readFileSync(keyFile, 'utf8'), keyFile, certFile, p12: readFileSync(p12File), password: 'demo' };
}
