/**
 * Reads a server certificate with its private key: a PKCS#12 file (.pfx/.p12) or a PEM file with the
 * certificate chain and the key. node:tls reads PKCS#12 first; a legacy file that OpenSSL 3 refuses
 * without its legacy provider (RC2-40, some 3DES variants) is read with node-forge, and its key and
 * certificates are handed to TLS as PEM.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type forge from 'node-forge';
import { forgeModule } from '../../shared/lazy-modules.js';

/** Why a certificate file cannot be used; `detail` is a short English reason for an answer or a log line. */
export class CertificateProblem extends Error {
  constructor(
    readonly kind: 'not-pkcs12' | 'wrong-password' | 'undecodable' | 'no-key' | 'no-certificate' | 'key-mismatch',
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'CertificateProblem';
  }
}

export interface KeyAndCertificates {
  /** what TLS is given: the PKCS#12 file itself, or key and certificates as PEM */
  tls: Pick<SecureContextOptions, 'pfx' | 'passphrase' | 'key' | 'cert'>;
  /** the server certificate first, then the rest of the chain as found in the file */
  certificates: X509Certificate[];
  /** how the file was read, for the log */
  reader: 'node' | 'node-forge' | 'pem';
}

const PKCS7_DATA = '1.2.840.113549.1.7.1';
const PKCS7_SIGNED_DATA = '1.2.840.113549.1.7.2';

/** True when the bytes have the outer shape of a PKCS#12 PFX: SEQUENCE { INTEGER 3, ContentInfo { data | signedData } ... }. */
export function looksLikePkcs12(der: Buffer): boolean {
  if (der.length < 16 || der[0] !== 0x30) return false;
  const forge = forgeModule();
  try {
    const top = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')), false);
    const items = top.value;
    if (!Array.isArray(items) || items.length < 2) return false;
    const [version, authSafe] = items as [forge.asn1.Asn1, forge.asn1.Asn1];
    if (version.type !== forge.asn1.Type.INTEGER || typeof version.value !== 'string' || forge.util.createBuffer(version.value).getInt(version.value.length * 8) !== 3) return false;
    if (!Array.isArray(authSafe.value) || authSafe.value.length < 1) return false;
    const oid = authSafe.value[0] as forge.asn1.Asn1;
    if (oid.type !== forge.asn1.Type.OID || typeof oid.value !== 'string') return false;
    const name = forge.asn1.derToOid(oid.value);
    return name === PKCS7_DATA || name === PKCS7_SIGNED_DATA;
  } catch {
    return false;
  }
}

function isPasswordError(message: string): boolean {
  return /mac verify|MAC could not be verified|Invalid password|wrong password|bad decrypt|Unable to decrypt/i.test(message);
}

/** The private key and the certificates of a PKCS#12 file, read by node-forge (which also knows RC2 and 3DES). */
function readWithForge(der: Buffer, password: string | undefined): { key: KeyObject; certificates: X509Certificate[] } {
  const forge = forgeModule();
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')), false), false, password ?? '');
  let keyPem: string | undefined;
  const certificates: X509Certificate[] = [];
  for (const safe of p12.safeContents) {
    for (const bag of safe.safeBags) {
      if (bag.type === forge.pki.oids.pkcs8ShroudedKeyBag || bag.type === forge.pki.oids.keyBag) {
        // an RSA key is decoded by forge; any other key (EC) stays as its PrivateKeyInfo
        const info = bag.key ? forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)) : bag.asn1;
        keyPem ??= forge.pki.privateKeyInfoToPem(info);
      } else if (bag.type === forge.pki.oids.certBag) {
        const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
        certificates.push(new X509Certificate(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')));
      }
    }
  }
  if (!keyPem) throw new CertificateProblem('no-key', 'the PKCS#12 file holds no private key');
  return { key: createPrivateKey(keyPem), certificates };
}

/**
 * The private key and the certificate chain (the key's certificate first) of a PKCS#12 file, for a key the
 * service signs with itself (a fiscal certificate). Throws CertificateProblem like readPkcs12.
 */
export function readPkcs12KeyAndChain(der: Buffer, password: string | undefined): { key: KeyObject; certificates: X509Certificate[] } {
  if (!looksLikePkcs12(der)) throw new CertificateProblem('not-pkcs12', 'not a PKCS#12 file');
  let read: { key: KeyObject; certificates: X509Certificate[] };
  try {
    read = readWithForge(der, password);
  } catch (e) {
    if (e instanceof CertificateProblem) throw e;
    const message = e instanceof Error ? e.message : String(e);
    if (isPasswordError(message)) throw new CertificateProblem('wrong-password', 'cannot decode the PKCS#12 file: wrong password');
    throw new CertificateProblem('undecodable', `cannot decode the PKCS#12 file (${message})`);
  }
  const certificates = leafFirst(read.certificates, read.key);
  if (certificates.length === 0) throw new CertificateProblem('no-certificate', 'the PKCS#12 file holds no certificate');
  return { key: read.key, certificates };
}

/** The certificate that belongs to the key first, then the others. */
function leafFirst(certificates: readonly X509Certificate[], key: KeyObject | undefined): X509Certificate[] {
  const leaf = key ? certificates.find((c) => c.checkPrivateKey(key)) : undefined;
  if (key && !leaf) throw new CertificateProblem('key-mismatch', 'no certificate in the file belongs to its private key');
  return leaf ? [leaf, ...certificates.filter((c) => c !== leaf)] : [...certificates];
}

/** The leaf certificate of a secure context made by node from a PFX (when forge cannot read the file). */
function certificateOfContext(options: SecureContextOptions): X509Certificate[] {
  const context = createSecureContext(options) as unknown as { context?: { getCertificate?: () => Buffer | null } };
  const der = context.context?.getCertificate?.();
  return der ? [new X509Certificate(der)] : [];
}

/**
 * Reads a PKCS#12 file with its password. Throws CertificateProblem: `not-pkcs12` when the bytes are no
 * PKCS#12 file, `wrong-password` when it cannot be decrypted, `undecodable` when neither reader knows it.
 */
export function readPkcs12(der: Buffer, password: string | undefined): KeyAndCertificates {
  if (!looksLikePkcs12(der)) throw new CertificateProblem('not-pkcs12', 'not a PKCS#12 file');
  const pfxOptions: SecureContextOptions = password === undefined ? { pfx: der } : { pfx: der, passphrase: password };
  let nodeError: string | undefined;
  try {
    createSecureContext(pfxOptions);
  } catch (e) {
    nodeError = e instanceof Error ? e.message : String(e);
  }
  let forged: { key: KeyObject; certificates: X509Certificate[] } | undefined;
  let forgeError: unknown;
  try {
    forged = readWithForge(der, password);
  } catch (e) {
    forgeError = e;
  }
  if (nodeError === undefined) {
    const certificates = forged ? leafFirst(forged.certificates, forged.key) : certificateOfContext(pfxOptions);
    return { tls: password === undefined ? { pfx: der } : { pfx: der, passphrase: password }, certificates, reader: 'node' };
  }
  if (forged) {
    const certificates = leafFirst(forged.certificates, forged.key);
    if (certificates.length === 0) throw new CertificateProblem('no-certificate', 'the PKCS#12 file holds no certificate');
    const tls = { key: forged.key.export({ type: 'pkcs8', format: 'pem' }) as string, cert: certificates.map((c) => c.toString()).join('') };
    checkContext(tls);
    return { tls, certificates, reader: 'node-forge' };
  }
  if (forgeError instanceof CertificateProblem) throw forgeError;
  const forgeMessage = forgeError instanceof Error ? forgeError.message : String(forgeError);
  if (isPasswordError(nodeError) || isPasswordError(forgeMessage)) throw new CertificateProblem('wrong-password', 'cannot decode the PKCS#12 file: wrong password');
  throw new CertificateProblem('undecodable', `cannot decode the PKCS#12 file (${nodeError})`);
}

function checkContext(options: SecureContextOptions): void {
  try {
    createSecureContext(options);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/key values mismatch/i.test(message)) throw new CertificateProblem('key-mismatch', 'the certificate does not belong to the private key');
    if (isPasswordError(message)) throw new CertificateProblem('wrong-password', 'cannot decrypt the private key: wrong password');
    throw new CertificateProblem('undecodable', `TLS cannot use the key and certificate (${message})`);
  }
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;
const PEM_KEY = /-----BEGIN (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----[\s\S]+?-----END (?:ENCRYPTED |RSA |EC )?PRIVATE KEY-----/;

/** Reads a PEM file with the certificate chain and the private key (which may be encrypted with the password). */
export function readPemKeyAndCertificates(text: string, password: string | undefined): KeyAndCertificates {
  const certs = text.match(PEM_CERT) ?? [];
  const keyPem = PEM_KEY.exec(text)?.[0];
  if (certs.length === 0) throw new CertificateProblem('no-certificate', 'the PEM file holds no certificate');
  if (!keyPem) throw new CertificateProblem('no-key', 'the PEM file holds no private key');
  let key: KeyObject;
  try {
    key = createPrivateKey(password === undefined ? { key: keyPem } : { key: keyPem, passphrase: password });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new CertificateProblem(/passphrase|decrypt/i.test(message) ? 'wrong-password' : 'undecodable', `cannot read the private key (${message})`);
  }
  let parsed: X509Certificate[];
  try {
    parsed = certs.map((c) => new X509Certificate(c));
  } catch (e) {
    throw new CertificateProblem('undecodable', `cannot read a certificate (${e instanceof Error ? e.message : String(e)})`);
  }
  const certificates = leafFirst(parsed, key);
  const tls = { key: key.export({ type: 'pkcs8', format: 'pem' }) as string, cert: certificates.map((c) => c.toString()).join('') };
  checkContext(tls);
  return { tls, certificates, reader: 'pem' };
}

/** A certificate file of either kind: PEM when it starts like one, PKCS#12 otherwise. */
export function readKeyAndCertificates(data: Buffer, password: string | undefined): KeyAndCertificates {
  const head = data.subarray(0, 2048).toString('latin1');
  if (head.includes('-----BEGIN ')) return readPemKeyAndCertificates(data.toString('utf8'), password);
  return readPkcs12(data, password);
}
