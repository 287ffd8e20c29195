/**
 * The signing key of the Portuguese certification: one RSA key of the software, `<dataDir>/pt/private-key.pem`
 * (PKCS#1 or PKCS#8 PEM). The producer of a certified program places its own key there; without one a
 * 1024-bit key (the size the AT certification asks for) is created at first use, with `public-key.pem`
 * beside it. The key is read before the synchronous section (`prepare`) and kept in memory.
 *
 * A key is created only for a data folder that has never signed: not when `public-key.pem` exists (the
 * key that signed is lost), nor when any register issued a document (`series.json`) or the requesting
 * register has chains. A private key that does not match `public-key.pem` is refused and the file is
 * left as it is. Each register also keeps the fingerprint of the key that signed its documents
 * (country state `pt|key`, see index.ts), so a key swapped together with its public key is refused too.
 */
import { type KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPair } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FiscalError } from '../../../shared/errors.js';
import { writeFileAtomic } from '../../../shared/files.js';
import { anySeriesClaimed } from './owners.js';

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

function publicPem(key: KeyObject): string {
  return createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** SHA-256 (hex) of the public key's SubjectPublicKeyInfo: names a key without showing it. */
export function fingerprintOf(key: KeyObject): string {
  return createHash('sha256').update(createPublicKey(key).export({ type: 'spki', format: 'der' })).digest('hex');
}

/**
 * Reads the private key and checks it against what signed before: `public-key.pem` (never overwritten)
 * and the fingerprint the asking register keeps (`expected`). A missing `public-key.pem` is written
 * only when nothing was signed yet or the register's fingerprint vouches for the key.
 */
function load(dataDir: string, expected?: string): KeyObject {
  const file = privateKeyFile(dataDir);
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch (e) {
    throw new FiscalError('#INVALID_VALUE', { field: file, detail: `not a PEM private key (${e instanceof Error ? e.message : String(e)})` });
  }
  if (key.asymmetricKeyType !== 'rsa') throw new FiscalError('#INVALID_VALUE', { field: file, detail: `an RSA key is needed, this is ${key.asymmetricKeyType ?? 'unknown'}` });
  const pub = publicPem(key);
  const pubFile = publicKeyFile(dataDir);
  if (expected !== undefined && fingerprintOf(key) !== expected) {
    throw new FiscalError('#DEVICE_FAILED', { value: `${file} (not the key this register signed with)` });
  }
  if (existsSync(pubFile)) {
    if (createPublicKey(readFileSync(pubFile, 'utf8')).export({ type: 'spki', format: 'pem' }).toString() !== pub) {
      throw new FiscalError('#DEVICE_FAILED', { value: `${file} (it does not match ${pubFile}, the key documents were signed with)` });
    }
  } else if (expected !== undefined || !anySeriesClaimed(dataDir)) {
    // the public key beside it, for the export and for anyone checking the hashes
    writeFileAtomic(pubFile, pub, 0o644);
  } else {
    throw new FiscalError('#DEVICE_FAILED', { value: `${pubFile} (missing while documents were signed: put back the public key of ${file})` });
  }
  keys.set(dataDir, key);
  return key;
}

/** Whether this data folder has signed before (so a missing key must not be replaced). */
function signedHere(dataDir: string): boolean {
  return existsSync(publicKeyFile(dataDir)) || anySeriesClaimed(dataDir);
}

/**
 * The signing key, created on first use (once, also under concurrent first requests). When documents
 * were signed before (`signedBefore`, or anywhere in this data folder) a missing key is not replaced:
 * a new key would not verify them. `expected` is the fingerprint of the key the asking register signed with.
 */
export function ensureKey(dataDir: string, signedBefore = false, expected?: string): Promise<KeyObject> {
  const cached = keys.get(dataDir);
  if (cached) return Promise.resolve(cached);
  try {
    if (!existsSync(privateKeyFile(dataDir)) && (signedBefore || signedHere(dataDir))) {
      return Promise.reject(new FiscalError('#DEVICE_FAILED', { value: `${privateKeyFile(dataDir)} (missing; documents were signed with it, a new key would not verify them)` }));
    }
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  let p = creating.get(dataDir);
  if (!p) {
    p = (async () => {
      if (!existsSync(privateKeyFile(dataDir))) {
        const { privateKey } = await generate('rsa', { modulusLength: 1024 });
        mkdirSync(keyDir(dataDir), { recursive: true, mode: 0o700 });
        if (!existsSync(privateKeyFile(dataDir))) writeFileAtomic(privateKeyFile(dataDir), privateKey.export({ type: 'pkcs1', format: 'pem' }), 0o600);
      }
      return load(dataDir, expected);
    })().finally(() => creating.delete(dataDir));
    creating.set(dataDir, p);
  }
  return p;
}

/** The key loaded by `ensureKey` (read from its file if this process has not loaded it yet). */
export function signingKey(dataDir: string): KeyObject {
  const cached = keys.get(dataDir);
  if (cached) return cached;
  if (!existsSync(privateKeyFile(dataDir))) throw new FiscalError('#DEVICE_FAILED', { value: privateKeyFile(dataDir) });
  return load(dataDir);
}

/** The public key as PEM (SubjectPublicKeyInfo). */
export function publicKeyPem(dataDir: string): string {
  return publicPem(signingKey(dataDir));
}

/** Forgets the loaded key (a service started again in the same process reads the files anew). */
export function forgetKey(dataDir: string): void {
  keys.delete(dataDir);
}
