/**
 * The public keys an auditor pins with `efr verify --key`, and the fingerprint every verifier prints of
 * the keys it used.
 */
import { type KeyObject, X509Certificate, createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The SHA-256 of a public key's DER SubjectPublicKeyInfo, as colon-separated upper-case hex
 * (`openssl pkey -pubin -in key.pem -outform DER | openssl dgst -sha256 -c` gives it in lower case). */
export function keyFingerprint(key: KeyObject): string {
  const hex = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').toUpperCase();
  return hex.replace(/(..)(?!$)/g, '$1:');
}

/** A key pinned with `--key`: the declared public key, and where it came from. */
export interface PinnedKey {
  key: KeyObject;
  fingerprint: string;
  label: string;
}

/** Reads a `--key` file: an SPKI (or PKCS#1) public key PEM or a certificate PEM; a text saying why not. */
export function readPinnedKey(path: string): PinnedKey | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return `--key ${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`;
  }
  try {
    const key = text.includes('-----BEGIN CERTIFICATE-----') ? new X509Certificate(text).publicKey : createPublicKey(text);
    return { key, fingerprint: keyFingerprint(key), label: `--key ${path}` };
  } catch (e) {
    return `--key ${path} is not a public key or certificate PEM: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** The `--key` files as pinned keys (RSA of `bits` when given), or a text saying why one is unusable. */
export function readPinnedKeys(paths: readonly string[], bits?: number): PinnedKey[] | string {
  const keys: PinnedKey[] = [];
  for (const path of paths) {
    const k = readPinnedKey(path);
    if (typeof k === 'string') return k;
    if (k.key.asymmetricKeyType !== 'rsa') return `--key ${path} is not an RSA key`;
    const size = k.key.asymmetricKeyDetails?.modulusLength;
    if (bits !== undefined && size !== bits) return `--key ${path} is RSA-${size ?? '?'}, not RSA-${bits}`;
    keys.push(k);
  }
  return keys;
}
