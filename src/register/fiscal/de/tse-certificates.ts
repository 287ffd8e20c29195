/**
 * The certificates in a TSE export TAR: files ending in .cer, .der, .crt or .pem (DER or PEM, a PEM file
 * possibly with several), TR-03153's `<serial>_X509.<ext>` for the TSE's own and any name for its CA chain.
 * A TSE's certificate is found by the serial of its key (hex SHA-256 of the uncompressed public key); its
 * chain is checked as far as the TAR holds the issuers.
 */
import { X509Certificate, type KeyObject, createHash } from 'node:crypto';
import * as asn1js from 'asn1js';

export interface TarCertificate {
  file: string;
  cert: X509Certificate;
  /** hex SHA-256 of the uncompressed public key: the serial of the TSE that signs with it */
  keySerial: string;
}

export type CertificatesRead = { certificates: TarCertificate[] } | { broken: { file: string; reason: string } };

const CERT_FILE = /\.(cer|der|crt|pem)$/i;

export const isCertificateFile = (name: string): boolean => CERT_FILE.test(name);

/** The public key as an uncompressed point (04 ‖ X ‖ Y), for any curve: the subjectPublicKey of its SPKI. */
export function publicKeyPoint(key: KeyObject): Buffer {
  const spki = asn1js.fromBER(new Uint8Array(key.export({ type: 'spki', format: 'der' }))).result;
  const bits = spki instanceof asn1js.Sequence ? spki.valueBlock.value[1] : undefined;
  if (!(bits instanceof asn1js.BitString)) throw new Error('the public key has no subjectPublicKey');
  return Buffer.from(bits.valueBlock.valueHexView);
}

export const keySerial = (key: KeyObject): string => createHash('sha256').update(publicKeyPoint(key)).digest('hex');

function certificatesIn(bytes: Buffer): Buffer[] {
  const text = bytes.toString('latin1');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) return [bytes];
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => Buffer.from(b.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64'));
}

/** Every certificate of the TAR; the first file that is not a certificate is named. */
export function readCertificates(files: ReadonlyMap<string, Buffer>): CertificatesRead {
  const certificates: TarCertificate[] = [];
  for (const [file, bytes] of files) {
    if (!isCertificateFile(file)) continue;
    try {
      for (const der of certificatesIn(bytes)) {
        const cert = new X509Certificate(der);
        certificates.push({ file, cert, keySerial: keySerial(cert.publicKey) });
      }
    } catch (e) {
      return { broken: { file, reason: `not an X.509 certificate (DER or PEM): ${e instanceof Error ? e.message : String(e)}` } };
    }
  }
  return { certificates };
}

/** A CA's certificate (basic constraints cA): it signs certificates, never log messages. */
export const isCa = (c: X509Certificate): boolean => c.ca;

export type ChainResult = { ok: true; text: string } | { ok: false; file: string; reason: string };

/**
 * Checks the chain of a TSE's certificate through the issuers in the TAR: each certificate's signature by
 * its issuer's key, up to a self-signed root or to the first issuer the TAR does not hold.
 */
export function checkChain(leaf: TarCertificate, all: readonly TarCertificate[]): ChainResult {
  let current = leaf;
  const seen = new Set<TarCertificate>();
  for (;;) {
    seen.add(current);
    // a self-signed certificate (by name: OpenSSL's checkIssued also wants keyCertSign, which a TSE's own lacks)
    if (current.cert.subject === current.cert.issuer) {
      if (!current.cert.verify(current.cert.publicKey)) return { ok: false, file: current.file, reason: 'the self-signed certificate does not verify with its own key' };
      return { ok: true, text: current === leaf ? 'self-signed' : `chain verified up to the root in ${current.file}` };
    }
    const issuer = all.find((c) => !seen.has(c) && current.cert.checkIssued(c.cert));
    if (!issuer) {
      const dn = current.cert.issuer.split('\n').join(', ');
      return { ok: true, text: current === leaf ? `its issuer (${dn}) is not in the TAR` : `chain verified up to ${current.file}, whose issuer (${dn}) is not in the TAR` };
    }
    if (!current.cert.verify(issuer.cert.publicKey)) return { ok: false, file: current.file, reason: `the certificate is not signed by the key of its issuer in ${issuer.file}` };
    current = issuer;
  }
}
