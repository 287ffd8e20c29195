/**
 * The server certificate. First match: the file named by `SVC_EFR_SSL_CERT`, else
 * `<data>/cer/ssl.pfx`. Password: `SVC_EFR_SSL_PASSWORD` (wins), else the password stored encrypted beside
 * the uploaded certificate (`cer/ssl.pfx.pwd`, see secret-box.ts). A file that cannot be used means plain
 * HTTP and a log line, never a failed start.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { X509Certificate } from 'node:crypto';
import { FiscalError } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/files.js';
import { CertificateProblem, type KeyAndCertificates, readKeyAndCertificates, readPkcs12 } from './pkcs12.js';
import { seal, unseal } from './secret-box.js';

const PASSWORD_PURPOSE = 'efr:cer/ssl.pfx:password';

export function cerDir(dataDir: string): string {
  return join(dataDir, 'cer');
}

export function sslFiles(dataDir: string): { pfx: string; password: string } {
  return { pfx: join(cerDir(dataDir), 'ssl.pfx'), password: join(cerDir(dataDir), 'ssl.pfx.pwd') };
}

export interface ServerCertificate extends KeyAndCertificates {
  /** the file it was read from */
  source: string;
}

export type ServerCertificateLoad =
  | { state: 'none'; notes: string[] }
  | { state: 'ok'; certificate: ServerCertificate; notes: string[] }
  | { state: 'unusable'; source: string; reason: string; notes: string[] };

function storedPassword(dataDir: string): string | undefined {
  const file = sslFiles(dataDir).password;
  if (!existsSync(file)) return undefined;
  return unseal(dataDir, PASSWORD_PURPOSE, readFileSync(file, 'utf8'));
}

/** Notes on the validity period (an expired certificate is still served: see docs/security.md). */
function validityNotes(cert: X509Certificate, now: Date): string[] {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (Number.isFinite(to) && now.getTime() > to) return [`the server certificate expired on ${new Date(to).toISOString()}; clients that check it will refuse the connection`];
  if (Number.isFinite(from) && now.getTime() < from) return [`the server certificate is valid only from ${new Date(from).toISOString()}`];
  return [];
}

/** Finds and reads the server certificate; never throws. */
export function loadServerCertificate(dataDir: string, env: NodeJS.ProcessEnv, now: Date): ServerCertificateLoad {
  const notes: string[] = [];
  const envPassword = env.SVC_EFR_SSL_PASSWORD;
  let source: string | undefined;
  let password: string | undefined;
  const envFile = env.SVC_EFR_SSL_CERT;
  if (envFile) {
    if (existsSync(envFile)) {
      source = envFile;
      password = envPassword;
    } else {
      notes.push(`SVC_EFR_SSL_CERT names ${envFile}, which does not exist`);
    }
  }
  if (source === undefined) {
    const { pfx } = sslFiles(dataDir);
    if (!existsSync(pfx)) return { state: 'none', notes };
    source = pfx;
    password = envPassword ?? storedPassword(dataDir);
  }
  try {
    const read = readKeyAndCertificates(readFileSync(source), password);
    const leaf = read.certificates[0];
    if (leaf) notes.push(...validityNotes(leaf, now));
    return { state: 'ok', certificate: { ...read, source }, notes };
  } catch (e) {
    const reason = e instanceof CertificateProblem ? e.detail : e instanceof Error ? e.message : String(e);
    return { state: 'unusable', source, reason, notes };
  }
}

/**
 * Checks an uploaded PKCS#12 file with its password and stores it as `cer/ssl.pfx` (used from the next
 * start); the password is stored encrypted, and removed when none was given.
 * Throws #CERTIFICATE (400) with a short reason.
 */
export function storeServerCertificate(dataDir: string, pfx: Buffer, password: string | undefined): KeyAndCertificates {
  const pw = password === '' ? undefined : password;
  let read: KeyAndCertificates;
  try {
    read = readPkcs12(pfx, pw);
  } catch (e) {
    if (e instanceof CertificateProblem) throw new FiscalError('#CERTIFICATE', { detail: e.detail });
    throw e;
  }
  const files = sslFiles(dataDir);
  mkdirSync(cerDir(dataDir), { recursive: true });
  writeFileAtomic(files.pfx, pfx, 0o600);
  if (pw === undefined) rmSync(files.password, { force: true });
  else writeFileAtomic(files.password, seal(dataDir, PASSWORD_PURPOSE, pw), 0o600);
  return read;
}
