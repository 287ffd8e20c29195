/**
 * The signing key of the Portuguese certification: one RSA key of the software, `<dataDir>/pt/private-key.pem`
 * (PKCS#1 or PKCS#8 PEM). The producer of a certified program places its own key there; without one a
 * 1024-bit key (the size the AT certification asks for) is created at first use, with `public-key.pem`
 * beside it. The key is read before the synchronous section (`prepare`) and kept in memory.
 */
import { type KeyObject, createPrivateKey, createPublicKey, generateKeyPair } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FiscalError } from '../../../shared/errors.js';
import { writeFileAtomic } from '../../../shared/files.js';

const generate = promisify(generateKeyPair);

export function keyDir(dataDir: string): string {
  return join(dataDir, 'pt');
}

export function privateKeyFile(dataDir: string): string {
  return join(keyDir(dataDir), 'private-key.pem');
}

export function publicKeyFile(dataDir: string): string {
  return join(keyDir(dataDir), 'public-key.pem');
}

const keys = new Map<string, KeyObject>();
const creating = new Map<string, Promise<KeyObject>>();

function load(dataDir: string): KeyObject {
  const file = privateKeyFile(dataDir);
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch (e) {
    throw new FiscalError('#INVALID_VALUE', { field: file, detail: `not a PEM private key (${e instanceof Error ? e.message : String(e)})` });
  }
  if (key.asymmetricKeyType !== 'rsa') throw new FiscalError('#INVALID_VALUE', { field: file, detail: `an RSA key is needed, this is ${key.asymmetricKeyType ?? 'unknown'}` });
  // the public key beside it, for the export and for anyone checking the hashes
  const pub = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  if (!existsSync(publicKeyFile(dataDir)) || readFileSync(publicKeyFile(dataDir), 'utf8') !== pub) writeFileAtomic(publicKeyFile(dataDir), pub, 0o644);
  keys.set(dataDir, key);
  return key;
}

/**
 * The signing key, created on first use (once, also under concurrent first requests). When documents
 * were signed before (`signedBefore`) a missing key is not replaced: a new key would not verify them.
 */
export function ensureKey(dataDir: string, signedBefore = false): Promise<KeyObject> {
  const cached = keys.get(dataDir);
  if (cached) return Promise.resolve(cached);
  if (signedBefore && !existsSync(privateKeyFile(dataDir))) return Promise.reject(new FiscalError('#DEVICE_FAILED', { value: privateKeyFile(dataDir) }));
  let p = creating.get(dataDir);
  if (!p) {
    p = (async () => {
      if (!existsSync(privateKeyFile(dataDir))) {
        const { privateKey } = await generate('rsa', { modulusLength: 1024 });
        mkdirSync(keyDir(dataDir), { recursive: true, mode: 0o700 });
        if (!existsSync(privateKeyFile(dataDir))) writeFileAtomic(privateKeyFile(dataDir), privateKey.export({ type: 'pkcs1', format: 'pem' }), 0o600);
      }
      return load(dataDir);
    })().finally(() => creating.delete(dataDir));
    creating.set(dataDir, p);
  }
  return p;
}

/** The key loaded by `ensureKey` (read from its file if this process has not loaded it yet). */
export function signingKey(dataDir: string): KeyObject {
  const cached = keys.get(dataDir);
  if (cached) return cached;
  if (!existsSync(privateKeyFile(dataDir))) throw new FiscalError('#INTERNAL');
  return load(dataDir);
}

/** The public key as PEM (SubjectPublicKeyInfo). */
export function publicKeyPem(dataDir: string): string {
  return createPublicKey(signingKey(dataDir)).export({ type: 'spki', format: 'pem' }).toString();
}
