/**
 * The key a TicketBAI register signs its invoices with: ECDSA P-256, made on first use under
 * `<dataDir>/es/<NIF>/tbai-key.pem` (mode 0600). The provinces want a XAdES signature with a qualified
 * certificate; until one is configured this local key stands in (docs/countries/es.md).
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const keys = new Map<string, KeyObject>();

export function tbaiKeyPath(dataDir: string, nif: string): string {
  return join(dataDir, 'es', nif, 'tbai-key.pem');
}

/** Loads the key, making it when there is none (before the synchronous section). */
export function ensureTbaiKey(dataDir: string, nif: string): KeyObject {
  const path = tbaiKeyPath(dataDir, nif);
  const cached = keys.get(path);
  if (cached) return cached;
  if (!existsSync(path)) {
    mkdirSync(join(dataDir, 'es', nif), { recursive: true });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // written under another name first: a crash never leaves half a key
    writeFileSync(`${path}.tmp`, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  }
  const key = createPrivateKey(readFileSync(path));
  keys.set(path, key);
  return key;
}

/** The key loaded by ensureTbaiKey; undefined when prepare has not run for it. */
export function loadedTbaiKey(dataDir: string, nif: string): KeyObject | undefined {
  return keys.get(tbaiKeyPath(dataDir, nif));
}

export function tbaiPublicKeyPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** ECDSA P-256 over SHA-256 of the UTF-8 text, r||s, base64: the signature value. */
export function tbaiSign(key: KeyObject, text: string): string {
  return sign('sha256', Buffer.from(text, 'utf8'), { key, dsaEncoding: 'ieee-p1363' }).toString('base64');
}
