/**
 * A fake CIS (the Croatian Tax Administration's fiscalization service) for tests, never part of the product:
 * an HTTP server at POST /FiskalizacijaService that takes the SOAP request, validates its RacunZahtjev against
 * the official schema (test/vectors/hr-cis/FiskalizacijaSchema.xsd) with xmllint, verifies the enveloped XML
 * signature with the certificate in its KeyInfo, checks that the certificate belongs to the Oib of the request
 * when its subject names one, and answers like the CIS: a RacunOdgovor with the echoed IdPoruke and a new JIR,
 * or its Greske (s001 schema, s004 signature, s005 OIB, s006 system error). Mode 'down' never answers (and
 * drops the connection), 'error' answers every request with the configured error.
 * Also makes the test certificates: a self-signed RSA "Demo" certificate exported to PKCS#12 with openssl.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { vectorPath } from '../src/shared/testing.js';
import { freePort, tempDir } from './helpers.js';

export const CIS_SCHEMA = vectorPath('hr-cis', 'FiskalizacijaSchema.xsd');
const CIS_NS = 'http://www.apis-it.hr/fin/2012/types/f73';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

export type FakeCisMode = 'ok' | 'down' | 'error';

export interface ReceivedRacun {
  /** the RacunZahtjev element as received */
  xml: string;
  messageId: string;
  oib: string;
  later: boolean;
  zki: string;
  total: string;
  /** the JIR answered, or the error code */
  jir?: string;
  error?: string;
}

export interface FakeCis {
  url: string;
  port: number;
  /** requests handled (answered or refused), after the delay */
  received: ReceivedRacun[];
  /** requests read, counted before the delay: a slow CIS has them while the service still waits for its answer */
  arrived: number;
  mode: FakeCisMode;
  /** milliseconds the fake waits before it handles a request (a slow CIS) */
  delayMs: number;
  setMode(mode: FakeCisMode, error?: { code: string; message: string }): void;
  close(): Promise<void>;
}

/** Validates an XML file against the CIS schema with xmllint; the messages when it fails. */
export function xmllintCis(file: string): { ok: boolean; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', CIS_SCHEMA, file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

function greske(code: string, message: string): string {
  return `<tns:Greske><tns:Greska><tns:SifraGreske>${code}</tns:SifraGreske><tns:PorukaGreske>${message.replace(/&/g, '&amp;').replace(/</g, '&lt;').slice(0, 500)}</tns:PorukaGreske></tns:Greska></tns:Greske>`;
}

function cisNow(): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getDate())}.${p(d.getMonth() + 1)}.${d.getFullYear()}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function answer(messageId: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tns:RacunOdgovor xmlns:tns="${CIS_NS}" Id="${randomUUID()}"><tns:Zaglavlje><tns:IdPoruke>${messageId}</tns:IdPoruke><tns:DatumVrijeme>${cisNow()}</tns:DatumVrijeme></tns:Zaglavlje>${body}</tns:RacunOdgovor></soap:Body></soap:Envelope>`;
}

function text(parent: Element, name: string): string {
  return (parent.getElementsByTagNameNS(CIS_NS, name)[0]?.textContent ?? '').trim();
}

/** Verifies the enveloped signature of a RacunZahtjev with the certificate of its KeyInfo; the certificate when valid. */
export function verifyRacunZahtjev(xml: string): { valid: boolean; certificate?: X509Certificate; detail: string } {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signature = doc.getElementsByTagNameNS(DSIG_NS, 'Signature')[0];
  if (!signature) return { valid: false, detail: 'no signature' };
  const certText = signature.getElementsByTagNameNS(DSIG_NS, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '');
  if (!certText) return { valid: false, detail: 'no X509Certificate in KeyInfo' };
  const pem = `-----BEGIN CERTIFICATE-----\n${certText.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch (e) {
    return { valid: false, detail: `unreadable certificate: ${(e as Error).message}` };
  }
  const check = new SignedXml({ publicCert: pem, getCertFromKeyInfo: () => null });
  check.loadSignature(signature);
  const methods = [
    signature.getElementsByTagNameNS(DSIG_NS, 'SignatureMethod')[0]?.getAttribute('Algorithm'),
    signature.getElementsByTagNameNS(DSIG_NS, 'DigestMethod')[0]?.getAttribute('Algorithm'),
    signature.getElementsByTagNameNS(DSIG_NS, 'CanonicalizationMethod')[0]?.getAttribute('Algorithm'),
  ];
  if (methods[0] !== `${DSIG_NS}rsa-sha1` || methods[1] !== `${DSIG_NS}sha1` || methods[2] !== 'http://www.w3.org/2001/10/xml-exc-c14n#') {
    return { valid: false, certificate, detail: `not the CIS algorithms: ${methods.join(', ')}` };
  }
  try {
    const valid = check.checkSignature(xml);
    // the signature must cover the request itself (its Id), not some other element
    const root = doc.documentElement;
    const id = root?.getAttribute('Id') ?? '';
    const uri = signature.getElementsByTagNameNS(DSIG_NS, 'Reference')[0]?.getAttribute('URI');
    if (valid && uri !== `#${id}`) return { valid: false, certificate, detail: `the reference ${uri ?? ''} is not the request #${id}` };
    return { valid, certificate, detail: valid ? 'valid' : 'the signature does not verify' };
  } catch (e) {
    return { valid: false, certificate, detail: (e as Error).message };
  }
}

/** The OIB a certificate's subject names (FINA writes it into O, serialNumber or organizationIdentifier), if any. */
export function oibOfCertificate(cert: X509Certificate): string | undefined {
  return /(?:^|[^\d])(\d{11})(?:[^\d]|$)/.exec(cert.subject)?.[1];
}

export async function startFakeCis(opts: { mode?: FakeCisMode; error?: { code: string; message: string } } = {}): Promise<FakeCis> {
  const port = await freePort();
  const dir = tempDir('fake-cis-');
  const sockets = new Set<Socket>();
  const delayed = new Set<NodeJS.Timeout>();
  let error = opts.error ?? { code: 's005', message: 'OIB iz poruke zahtjeva nije jednak OIB-u iz certifikata.' };
  const state: FakeCis = {
    url: `http://127.0.0.1:${port}/FiskalizacijaService`,
    port,
    received: [],
    arrived: 0,
    mode: opts.mode ?? 'ok',
    delayMs: 0,
    setMode(mode, err) {
      state.mode = mode;
      if (err) error = err;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // requests held back by delayMs are dropped with their connections
        for (const t of delayed) clearTimeout(t);
        delayed.clear();
        for (const s of sockets) s.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    if (state.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const reply = (status: number, xml: string): void => {
      res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' });
      res.end(xml);
    };
    if (req.method !== 'POST' || !req.url?.startsWith('/FiskalizacijaService')) {
      reply(404, '<error>not found</error>');
      return;
    }
    const doc = new DOMParser({ errorHandler: { warning: () => undefined } }).parseFromString(body, 'text/xml');
    const zahtjev = doc.getElementsByTagNameNS(CIS_NS, 'RacunZahtjev')[0];
    if (!zahtjev) {
      reply(500, answer('', greske('s001', 'Poruka nije u skladu s XML shemom: no RacunZahtjev')));
      return;
    }
    const xml = new XMLSerializer().serializeToString(zahtjev);
    const messageId = text(zahtjev, 'IdPoruke');
    const entry: ReceivedRacun = { xml, messageId, oib: text(zahtjev, 'Oib'), later: text(zahtjev, 'NakDost') === 'true', zki: text(zahtjev, 'ZastKod'), total: text(zahtjev, 'IznosUkupno') };
    state.received.push(entry);
    const refuse = (code: string, message: string): void => {
      entry.error = code;
      reply(500, answer(messageId, greske(code, message)));
    };
    if (state.mode === 'error') {
      refuse(error.code, error.message);
      return;
    }
    const file = join(dir, `${state.received.length}.xml`);
    writeFileSync(file, xml);
    const lint = xmllintCis(file);
    if (!lint.ok) {
      refuse('s001', `Poruka nije u skladu s XML shemom: ${lint.output}`);
      return;
    }
    const sig = verifyRacunZahtjev(xml);
    if (!sig.valid || !sig.certificate) {
      refuse('s004', `Neispravan digitalni potpis: ${sig.detail}`);
      return;
    }
    const certOib = oibOfCertificate(sig.certificate);
    if (certOib !== undefined && certOib !== entry.oib) {
      refuse('s005', 'OIB iz poruke zahtjeva nije jednak OIB-u iz certifikata.');
      return;
    }
    entry.jir = randomUUID();
    reply(200, answer(messageId, `<tns:Jir>${entry.jir}</tns:Jir>`));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.arrived += 1;
      if (state.delayMs > 0) {
        const t = setTimeout(() => {
          delayed.delete(t);
          handle(req, res, body);
        }, state.delayMs);
        delayed.add(t);
      } else handle(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return state;
}

export interface DemoCertificateFiles {
  dir: string;
  keyPem: string;
  keyFile: string;
  certFile: string;
  /** PKCS#12 with the password `demo` */
  p12: Buffer;
  password: string;
}

/**
 * A self-signed RSA 2048 certificate like FINA's demo certificates (subject with "Demo" and the OIB),
 * its key as a file and both exported to PKCS#12 with openssl.
 */
export function makeDemoCertificate(oib: string, dir: string = tempDir('hr-cert-')): DemoCertificateFiles {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const p12File = join(dir, 'cert.p12');
  const run = (args: string[]): void => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0] ?? ''}: ${r.stderr}`);
  };
  // a serial of 9 digits: libxml2 (xmllint) reads xs:integer only up to 24 digits, openssl's random serials have ~48
  const serial = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '30', '-set_serial', serial, '-subj', `/C=HR/O=Demo Trgovina d.o.o. HR${oib}/CN=FISKAL 1 Demo`]);
  run(['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-out', p12File, '-passout', 'pass:demo']);
  return { dir, keyPem: readFileSync(keyFile, 'utf8'), keyFile, certFile, p12: readFileSync(p12File), password: 'demo' };
}
