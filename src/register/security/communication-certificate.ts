/**
 * The communication certificate: an X.509 certificate for the instance's signing key
 * (signer.ts), issued by the instance itself, kept in `<data>/cer/communication.pem` and made on first
 * use (again when the key changed or it expired). GET /authorization answers a JWT signed with that key
 * (ES256), with the certificate in its `x5c` header and its serial number as `kid`, so that a receiver
 * can check it with GET /cer/<serial> or the header alone.
 */
import { X509Certificate, createHash, randomBytes, webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/files.js';
import { x509Module } from '../../shared/lazy-modules.js';
import type { ServiceContext } from '../context.js';
import { obj, str } from '../codec/index.js';
import { cerDir } from './tls-certificate.js';
import type { Signer } from './signer.js';

const crypto = webcrypto as unknown as Crypto;
const VALID_YEARS = 10;
/** lifetime of an /authorization token */
export const AUTHORIZATION_SECONDS = 3600;

export function communicationFile(dataDir: string): string {
  return join(cerDir(dataDir), 'communication.pem');
}

/** A serial number as GET /cer/<serial> compares it: hex, lower case, without leading zeros. */
export function normalSerial(serial: string): string {
  return serial.replace(/[:\s]/g, '').toLowerCase().replace(/^0+(?=.)/, '');
}

/** The bytes of the TBSCertificate inside a DER certificate (the first element of the outer SEQUENCE). */
function tbsOf(der: Uint8Array): Uint8Array {
  const header = (at: number): { len: number; start: number } => {
    const first = der[at + 1] ?? 0;
    if (first < 0x80) return { len: first, start: at + 2 };
    const n = first & 0x7f;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (der[at + 2 + i] ?? 0);
    return { len, start: at + 2 + n };
  };
  const outer = header(0);
  const inner = header(outer.start);
  return der.subarray(outer.start, inner.start + inner.len);
}

function spkiOf(signer: Signer): Buffer {
  return signer.publicKey.export({ type: 'spki', format: 'der' });
}

/** Issues the certificate: built once with a placeholder signature to learn the signed bytes, then with the signer's signature. */
async function issue(signer: Signer, now: Date): Promise<X509Certificate> {
  const x509 = await x509Module();
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  if (serial[0] === 0) serial[0] = 0x40;
  const spki = new Uint8Array(spkiOf(signer));
  const name = `CN=EFR communication ${signer.keyId}, O=EFR register service`;
  const params = {
    serialNumber: serial.toString('hex'),
    subject: name,
    issuer: name,
    notBefore: new Date(now.getTime() - 5 * 60_000),
    notAfter: new Date(now.getTime() + VALID_YEARS * 365 * 86_400_000),
    publicKey: spki,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(spki, false, crypto),
    ],
  };
  const draft = await x509.X509CertificateGenerator.create({ ...params, signature: new Uint8Array(64) }, crypto);
  const signature = new Uint8Array(signer.sign(Buffer.from(tbsOf(new Uint8Array(draft.rawData)))));
  const cert = await x509.X509CertificateGenerator.create({ ...params, signature }, crypto);
  const made = new X509Certificate(Buffer.from(cert.rawData));
  if (!made.verify(signer.publicKey)) throw new Error('the communication certificate does not verify with the instance key');
  return made;
}

function usable(cert: X509Certificate, signer: Signer, now: Date): boolean {
  return cert.publicKey.export({ type: 'spki', format: 'der' }).equals(spkiOf(signer)) && now.getTime() < Date.parse(cert.validTo) - 86_400_000;
}

const made = new WeakMap<ServiceContext, Promise<X509Certificate>>();

async function loadOrIssue(ctx: ServiceContext): Promise<X509Certificate> {
  const file = communicationFile(ctx.dataDir);
  const now = ctx.clock.now();
  if (existsSync(file)) {
    try {
      const cert = new X509Certificate(readFileSync(file));
      if (usable(cert, ctx.signer, now)) return cert;
    } catch {
      // damaged: issued again
    }
  }
  const cert = await issue(ctx.signer, now);
  mkdirSync(cerDir(ctx.dataDir), { recursive: true });
  writeFileAtomic(file, cert.toString());
  return cert;
}

/** The communication certificate, read or made once per service (again when it expires). */
export async function communicationCertificate(ctx: ServiceContext): Promise<X509Certificate> {
  let pending = made.get(ctx);
  if (pending) {
    const cert = await pending.catch(() => undefined);
    if (cert && usable(cert, ctx.signer, ctx.clock.now())) return cert;
  }
  pending = loadOrIssue(ctx);
  made.set(ctx, pending);
  pending.catch(() => made.delete(ctx));
  return pending;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The TaxId of a register: its Cfg (Cmp.TaxId), else the profile. */
function taxIdOf(ctx: ServiceContext, rn: string): string | undefined {
  const cfg = ctx.registers.get(rn)?.state.cfg;
  const fromCfg = cfg ? str(obj(cfg, 'Cmp') ?? {}, 'TaxId') : undefined;
  return fromCfg || ctx.profiles.effective(rn).TaxId || undefined;
}

/**
 * A JWT (ES256) signed with the instance key: iss = the key id, sub = the register number, taxId, iat,
 * nbf, exp (1 hour), jti; header kid = the serial number of the communication certificate, x5c = it.
 */
export async function authorizationJwt(ctx: ServiceContext, rn: string): Promise<string> {
  const cert = await communicationCertificate(ctx);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const header = {
    alg: 'ES256',
    typ: 'JWT',
    kid: normalSerial(cert.serialNumber),
    x5c: [cert.raw.toString('base64')],
    'x5t#S256': createHash('sha256').update(cert.raw).digest('base64url'),
  };
  const taxId = taxIdOf(ctx, rn);
  const payload = {
    iss: ctx.signer.keyId,
    sub: rn,
    ...(taxId ? { taxId } : {}),
    iat: now,
    nbf: now,
    exp: now + AUTHORIZATION_SECONDS,
    jti: randomBytes(12).toString('base64url'),
  };
  const input = `${b64url(header)}.${b64url(payload)}`;
  // the signer's signature is r||s, which is what JWS ES256 wants
  return `${input}.${ctx.signer.sign(input).toString('base64url')}`;
}
