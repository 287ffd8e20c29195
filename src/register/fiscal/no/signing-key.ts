/**
 * The Norwegian signing key (kassasystemforskriften, Skatteetaten's signature requirements): RSA with a
 * 1024-bit modulus, made on first start in `keys/no-saft-rsa1024.pem` (mode 0600) and kept; its public key
 * (SPKI PEM) goes into every SAF-T export and is what the product declaration names. Key version 1.
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../../shared/errors.js';

export const KEY_VERSION = '1';

interface SigningKey {
  privateKey: KeyObject;
  publicPem: string;
}

const keys = new Map<string, SigningKey>();

export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'keys', 'no-saft-rsa1024.pem');
}

/**
 * The instance's key, made on first use when `mayCreate` (no register has signed yet). A missing key of a
 * chain that was signed already is a failure (#DEVICE_FAILED): a new key under the same key version would
 * break every earlier signature (restore the data folder's backup, which holds it).
 */
export function noSigningKey(dataDir: string, mayCreate = true): SigningKey {
  const file = signingKeyFile(dataDir);
  // the file is the key: one that is gone (a data folder replaced under a running process) is not used on
  const known = keys.get(dataDir);
  if (known && existsSync(file)) return known;
  keys.delete(dataDir);
  if (!existsSync(file)) {
    if (!mayCreate) throw new FiscalError('#DEVICE_FAILED', { value: `${file} (the Norwegian signing key is missing, but the register's chain was signed with it: restore it from a backup)` });
    mkdirSync(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: 65537 });
    try {
      // exclusive: two processes on one data folder keep the first key
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e;
    }
  }
  const pem = readFileSync(file, 'utf8');
  const privateKey = createPrivateKey(pem);
  const key = { privateKey, publicPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string };
  keys.set(dataDir, key);
  return key;
}
