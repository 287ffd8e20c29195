/**
 * A Danish cashtransaction's `certificateData`: the certificate whose key signed the transaction, one PEM
 * certificate (the schema's element holds the signer's certificate, and the Danish validator reads it as one
 * certificate). The stored PEM of a fiscal certificate also holds the CA chain of its PKCS#12 file, so the
 * export picks the signer out of it; the verifier still reads a file that carries a whole chain.
 */
import { X509Certificate } from 'node:crypto';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The base64 bodies of the PEM certificates in `text` (whitespace removed), in their order. */
function pemBodies(text: string): string[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => (m[1] ?? '').replace(/\s+/g, '')).filter(Boolean);
}

function pemOf(body: string): string {
  return `-----BEGIN CERTIFICATE-----\n${(body.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * The certificate with serial number `serial` (uppercase hex, as Fis.CertSerial) out of a stored PEM
 * chain, as one PEM certificate; undefined when the chain has none with that serial.
 */
export function signingCertificatePem(chain: string, serial: string): string | undefined {
  for (const body of pemBodies(chain)) {
    try {
      const cert = new X509Certificate(pemOf(body));
      if (cert.serialNumber.toUpperCase() === serial.toUpperCase()) return cert.toString();
    } catch {
      // a block that is no certificate is not the signer
    }
  }
  return undefined;
}

/**
 * The signer's certificate of a certificateData: one PEM certificate, or its bare base64 (line breaks as the
 * validator tolerates them); of several PEM certificates (a chain), the one that issued none of the others
 * (the end of the chain), else the first. A text naming why not when there is no readable certificate.
 */
export function certificateOfData(data: string): X509Certificate | string {
  const bodies = pemBodies(data);
  const bare = data.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (bodies.length === 0 && !bare) return 'the certificateData is empty';
  const certs: X509Certificate[] = [];
  for (const body of bodies.length > 0 ? bodies : [bare]) {
    try {
      certs.push(new X509Certificate(pemOf(body)));
    } catch (e) {
      const which = bodies.length > 1 ? ` (certificate ${certs.length + 1} of ${bodies.length})` : '';
      return `the certificateData is not a certificate${which}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  const leaves = certs.filter((c) => !certs.some((other) => other !== c && other.checkIssued(c)));
  return (leaves.length === 1 ? leaves[0] : certs[0]) as X509Certificate;
}
