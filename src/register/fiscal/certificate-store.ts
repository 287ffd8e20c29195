/**
 * The fiscal certificate of a register (Croatia, Slovenia): a PKCS#12 file uploaded with
 * POST /cer/fiscal or placed in the data folder as `cer/fiscal/<RN>.p12` (its password in
 * SVC_EFR_FISCAL_CERT_PASSWORD), kept as `cer/fiscal/<RN>/certificate.pem` and `key.sealed`: the private key
 * is stored encrypted (AES-256-GCM under the instance's secret key, secret-box.ts), never as plain PEM. A
 * register without a certificate of its own uses the one of `def` (not in Slovakia: ownFiscalCertificate).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/files.js';
import { rnFolder } from '../render/layout-store.js';
import { CertificateProblem, readPemKeyAndCertificates, readPkcs12KeyAndChain } from '../security/pkcs12.js';
import { seal, unseal } from '../security/secret-box.js';
import type { AuthorityCertificate } from './authority.js';

const PURPOSE = 'fiscal-certificate-key';
export const FISCAL_CERT_PASSWORD_ENV = 'SVC_EFR_FISCAL_CERT_PASSWORD';

export function fiscalCertificateDir(dataDir: string): string {
  return join(dataDir, 'cer', 'fiscal');
}

function filesOf(dataDir: string, rn: string): { dir: string; cert: string; key: string; dropIn: string } {
  const base = fiscalCertificateDir(dataDir);
  const dir = join(base, rnFolder(rn));
  return { dir, cert: join(dir, 'certificate.pem'), key: join(dir, 'key.sealed'), dropIn: join(base, `${rnFolder(rn)}.p12`) };
}

function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

/** Whether a certificate is one of an authority's test system: "Demo" (FINA, Croatia) or "Test" (the Slovenian test CA) in its subject or issuer. */
export function isTestCertificate(cert: X509Certificate): boolean {
  return /\bdemo\b|\btest\b|testca|democa|davpotractest/i.test(`${cert.subject}\n${cert.issuer}`);
}

function describe(keyPem: string, chain: readonly X509Certificate[]): AuthorityCertificate {
  const leaf = chain[0];
  if (!leaf) throw new CertificateProblem('no-certificate', 'no certificate');
  return {
    keyPem,
    certPem: chain.map((c) => c.toString()).join(''),
    subject: oneLine(leaf.subject),
    issuer: oneLine(leaf.issuer),
    serial: leaf.serialNumber.toUpperCase(),
    serialDecimal: BigInt(`0x${leaf.serialNumber}`).toString(10),
    notAfter: new Date(Date.parse(leaf.validTo)),
    test: isTestCertificate(leaf),
  };
}

/** Reads a PKCS#12 file (or a PEM file with key and chain) and checks that its key signs with RSA. */
function readUpload(data: Buffer, password: string | undefined): AuthorityCertificate {
  try {
    const head = data.subarray(0, 2048).toString('latin1');
    let keyPem: string;
    let chain: X509Certificate[];
    if (head.includes('-----BEGIN ')) {
      const read = readPemKeyAndCertificates(data.toString('utf8'), password);
      keyPem = String(read.tls.key);
      chain = read.certificates;
    } else {
      const read = readPkcs12KeyAndChain(data, password);
      keyPem = read.key.export({ type: 'pkcs8', format: 'pem' }) as string;
      chain = read.certificates;
    }
    if (createPrivateKey(keyPem).asymmetricKeyType !== 'rsa') throw new CertificateProblem('undecodable', 'the fiscal certificate needs an RSA key (the authorities sign with RSA)');
    return describe(keyPem, chain);
  } catch (e) {
    if (e instanceof CertificateProblem) throw new FiscalError('#CERTIFICATE', { detail: e.detail });
    throw e;
  }
}

/** Stores the uploaded certificate of a register (the key sealed); returns it. */
export function storeFiscalCertificate(dataDir: string, rn: string, data: Buffer, password: string | undefined): AuthorityCertificate {
  const read = readUpload(data, password);
  const files = filesOf(dataDir, rn);
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(files.key, seal(dataDir, `${PURPOSE}:${rn}`, read.keyPem), 0o600);
  writeFileAtomic(files.cert, read.certPem, 0o644);
  // every certificate installed stays known by its serial: an export names the one each record was signed with
  mkdirSync(join(files.dir, 'history'), { recursive: true });
  writeFileAtomic(join(files.dir, 'history', `${read.serial}.pem`), read.certPem, 0o644);
  cache.delete(`${dataDir}\n${rn}`);
  return read;
}

/** The PEM (certificate and chain) of a certificate a register (or def) had installed, by its serial number. */
export function fiscalCertificatePem(dataDir: string, rn: string, serial: string): string | undefined {
  if (!/^[0-9A-F]{1,64}$/.test(serial)) return undefined;
  for (const owner of rn === 'def' ? ['def'] : [rn, 'def']) {
    const file = join(filesOf(dataDir, owner).dir, 'history', `${serial}.pem`);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return undefined;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * A dropped-in `<RN>.p12` is taken over into the sealed form when it is newer than the stored key (the file
 * itself stays, protected by its password): a renewed certificate is placed the same way.
 */
function importDropIn(dataDir: string, rn: string, env: NodeJS.ProcessEnv): void {
  const files = filesOf(dataDir, rn);
  const dropped = mtimeOf(files.dropIn);
  if (dropped === 0 || dropped <= mtimeOf(files.key)) return;
  storeFiscalCertificate(dataDir, rn, readFileSync(files.dropIn), env[FISCAL_CERT_PASSWORD_ENV]);
}

const cache = new Map<string, { cert: AuthorityCertificate | null; dropIn: number }>();

/** The register's own stored certificate, without falling back to def; null when it has none. */
function ownCertificate(dataDir: string, rn: string, env: NodeJS.ProcessEnv): AuthorityCertificate | null {
  const key = `${dataDir}\n${rn}`;
  const known = cache.get(key);
  // one stat per use: a file dropped in meanwhile is taken over without a restart
  const dropIn = mtimeOf(filesOf(dataDir, rn).dropIn);
  if (known !== undefined && known.dropIn === dropIn) return known.cert;
  importDropIn(dataDir, rn, env);
  const files = filesOf(dataDir, rn);
  let found: AuthorityCertificate | null = null;
  if (existsSync(files.key) && existsSync(files.cert)) {
    const keyPem = unseal(dataDir, `${PURPOSE}:${rn}`, readFileSync(files.key, 'utf8'));
    if (keyPem === undefined) throw new FiscalError('#CERTIFICATE', { detail: `the stored key of the fiscal certificate of ${rn} cannot be decrypted with this instance's secret key (keys/secret.key): upload the certificate again` });
    const pem = readFileSync(files.cert, 'utf8');
    const chain = (pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c));
    found = describe(keyPem, chain);
  }
  cache.set(key, { cert: found, dropIn });
  return found;
}

/** The register's own certificate, never def's (where a certificate names one cash register: Slovakia); undefined when it has none. */
export function ownFiscalCertificate(dataDir: string, rn: string, env: NodeJS.ProcessEnv = process.env): AuthorityCertificate | undefined {
  return ownCertificate(dataDir, rn, env) ?? undefined;
}

/**
 * The fiscal certificate a register signs with: its own, else def's; undefined when none is installed.
 * Read from disk once and then kept; throws #CERTIFICATE when a stored one cannot be read.
 */
export function fiscalCertificate(dataDir: string, rn: string, env: NodeJS.ProcessEnv = process.env): AuthorityCertificate | undefined {
  return ownCertificate(dataDir, rn, env) ?? (rn === 'def' ? undefined : ownCertificate(dataDir, 'def', env)) ?? undefined;
}

/** Days until the certificate expires (negative once expired). */
export function daysLeft(cert: AuthorityCertificate, now: Date): number {
  return Math.floor((cert.notAfter.getTime() - now.getTime()) / 86_400_000);
}

/** A certificate expiring within this many days is warned about in /state and in the answers. */
export const EXPIRY_WARNING_DAYS = 30;

/** Whether the register reports to the authority's test system (profile attribute Fiscal_Test). */
export function reportsToTestSystem(attributes: ReadonlyMap<string, string>): boolean {
  const v = attributes.get('fiscal_test');
  return v !== undefined && !/^(false|0|no)$/i.test(v);
}

/**
 * The certificate a register of an authority country signs with, checked before anything is journaled:
 * installed, not expired, and a test certificate exactly when Fiscal_Test reports to the test system.
 * Throws #FISCAL_CERTIFICATE naming what is wrong.
 */
export function requireFiscalCertificate(dataDir: string, rn: string, attributes: ReadonlyMap<string, string>, now: Date, matchTestSystem = true): AuthorityCertificate {
  let cert: AuthorityCertificate | undefined;
  try {
    cert = fiscalCertificate(dataDir, rn);
  } catch (e) {
    if (e instanceof FiscalError) throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: e.message });
    throw e;
  }
  if (!cert) throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: 'no fiscal certificate is installed (POST /cer/fiscal with the PKCS#12 file, or cer/fiscal/<RN>.p12 in the data folder)' });
  if (cert.notAfter.getTime() <= now.getTime()) throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: `the fiscal certificate ${cert.serial} expired on ${cert.notAfter.toISOString()}` });
  if (!matchTestSystem) return cert;
  const test = reportsToTestSystem(attributes);
  if (cert.test && !test) throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: `the fiscal certificate is a test certificate (${cert.subject}) but the register reports to the production system: set the profile attribute Fiscal_Test, or install the production certificate` });
  if (!cert.test && test) throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: `Fiscal_Test reports to the test system, but the fiscal certificate is a production certificate (${cert.subject}): install the test (Demo) certificate, or remove Fiscal_Test` });
  return cert;
}

/** What the API shows of a fiscal certificate (never the key). */
export function fiscalCertificateView(cert: AuthorityCertificate, now: Date): Record<string, string> {
  return { Serial: cert.serial, Subject: cert.subject, Issuer: cert.issuer, ValidTo: cert.notAfter.toISOString(), DaysLeft: String(daysLeft(cert, now)), Test: cert.test ? 'true' : 'false' };
}

/** Warnings about a register's certificate: expired or expiring soon, test vs production against Fiscal_Test (where the certificate tells). */
export function fiscalCertificateWarnings(cert: AuthorityCertificate, attributes: ReadonlyMap<string, string>, now: Date, matchTestSystem = true): string[] {
  const warnings: string[] = [];
  const days = daysLeft(cert, now);
  if (days < 0) warnings.push(`the fiscal certificate expired on ${cert.notAfter.toISOString()}: receipts are refused until a valid one is installed`);
  else if (days < EXPIRY_WARNING_DAYS) warnings.push(`the fiscal certificate expires in ${days} days (${cert.notAfter.toISOString()}): renew it with the certificate authority and install the new one`);
  if (!matchTestSystem) return warnings;
  const test = reportsToTestSystem(attributes);
  if (cert.test && !test) warnings.push('this is a test certificate but the register reports to the production system: set the profile attribute Fiscal_Test or install the production certificate');
  if (!cert.test && test) warnings.push('Fiscal_Test is set (test system) but this is a production certificate');
  return warnings;
}
