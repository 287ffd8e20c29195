/**
 * The Norwegian signing key (kassasystemforskriften, Skatteetaten's signature requirements): RSA with a
 * 1024-bit modulus, made on first start in `keys/no-saft-rsa1024.pem` (mode 0600) and kept; its public key
 * (SPKI PEM) goes into every SAF-T export and is what the product declaration names. Key version 1.
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../shared/files.js';

export const KEY_VERSION = '1';

interface SigningKey {
  privateKey: KeyObject;
  publicPem: string;
}

const keys = new Map<string, SigningKey>();

export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'keys', 'no-saft-rsa1024.pem');
}

/** The instance's key, made on first use. */
export function noSigningKey(dataDir: string): SigningKey {
  const known = keys.get(dataDir);
  if (known) return known;
  const file = signingKeyFile(dataDir);
  let pem: string;
  if (existsSync(file)) pem = readFileSync(file, 'utf8');
  else {
    mkdirSync(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
    pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    writeFileAtomic(file, pem, 0o600);
  }
  const privateKey = createPrivateKey(pem);
  const key = { privateKey, publicPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string };
  keys.set(dataDir, key);
  return key;
}
