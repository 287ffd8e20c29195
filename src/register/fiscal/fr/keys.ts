/**
 * The register's NF525 signing key: ECDSA P-256, generated locally on first use as
 * `<dataDir>/fr/<RN>/key.pem` (with `public.pem` beside it), once also under concurrent first
 * requests. Every signature is verified with the public key before it is used: a key that
 * signs wrongly fails the record instead of printing a false signature.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject, sign, verify } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FiscalError } from '../../../shared/errors.js';
import { writeFileAtomic } from '../../../shared/files.js';

const generate = promisify(generateKeyPair);

export function keyDir(dataDir: string, rn: string): string {
  return join(dataDir, 'fr', rn.replace(/[^A-Za-z0-9._-]/g, '_'));
}

export class FrKey {
  readonly keyId: string;
  readonly publicKey: KeyObject;
  constructor(
    readonly file: string,
    private readonly privateKey: KeyObject,
  ) {
    this.publicKey = createPublicKey(privateKey);
    this.keyId = createHash('sha256').update(this.publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
  }

  publicKeyPem(): string {
    return this.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  }

  /** ECDSA P-256 / SHA-256, r‖s, base64url; #DEVICE_FAILED when the signature does not verify. */
  sign(text: string): string {
    let sig: Buffer;
    try {
      sig = sign('sha256', Buffer.from(text, 'utf8'), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    } catch {
      throw new FiscalError('#DEVICE_FAILED', { value: this.file });
    }
    if (!verify('sha256', Buffer.from(text, 'utf8'), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, sig)) {
      throw new FiscalError('#DEVICE_FAILED', { value: this.file });
    }
    return sig.toString('base64url');
  }
}

const opened = new Map<string, FrKey>();
/** The file as it was when its key was loaded: a key file replaced meanwhile is read again (and refused if it is another key). */
const stamps = new Map<string, string>();

function stampOf(file: string): string {
  try {
    const st = statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}
const opening = new Map<string, Promise<FrKey>>();

/** The key already loaded by `loadKey` (the synchronous section cannot load one). */
export function openedKey(dataDir: string, rn: string): FrKey | undefined {
  return opened.get(join(keyDir(dataDir, rn), 'key.pem'));
}

/**
 * Loads the register's key, creating it on first use (`create`: the register has signed nothing yet);
 * concurrent first calls share one creation. A key that is gone once the register has signed is a
 * failure (#DEVICE_FAILED), never replaced silently by a new one.
 */
export function loadKey(dataDir: string, rn: string, create: boolean): Promise<FrKey> {
  const dir = keyDir(dataDir, rn);
  const file = join(dir, 'key.pem');
  const cached = opened.get(file);
  const present = existsSync(file);
  if (cached && present && stamps.get(file) === stampOf(file)) return Promise.resolve(cached);
  if (!present && !create) {
    opened.delete(file);
    return Promise.reject(new FiscalError('#DEVICE_FAILED', { value: file }));
  }
  let p = opening.get(file);
  if (!p) {
    p = (async () => {
      if (!existsSync(file)) {
        const { privateKey, publicKey } = await generate('ec', { namedCurve: 'P-256' });
        // a concurrent process may have written it meanwhile: the first one stays
        if (!existsSync(file)) {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          writeFileAtomic(join(dir, 'public.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
          writeFileAtomic(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), 0o600);
        }
      }
      let key: FrKey;
      try {
        const stamp = stampOf(file);
        key = new FrKey(file, createPrivateKey(readFileSync(file)));
        stamps.set(file, stamp);
      } catch {
        opened.delete(file);
        throw new FiscalError('#DEVICE_FAILED', { value: file });
      }
      opened.set(file, key);
      return key;
    })().finally(() => opening.delete(file));
    opening.set(file, p);
  }
  return p;
}

/** The register's public key as exported: its PEM and key id. */
export interface FrPublicKey {
  keyId: string;
  pem: string;
}

/**
 * The public key for the exports, from `public.pem`: exports need no private key, so that a register
 * whose key is gone can still hand over its records. The loaded key when the file cannot be read.
 */
export function readPublicKey(dataDir: string, rn: string): FrPublicKey {
  const file = join(keyDir(dataDir, rn), 'public.pem');
  try {
    const key = createPublicKey(readFileSync(file));
    return { keyId: createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16), pem: key.export({ type: 'spki', format: 'pem' }) as string };
  } catch {
    const loaded = openedKey(dataDir, rn);
    if (loaded) return { keyId: loaded.keyId, pem: loaded.publicKeyPem() };
    throw new FiscalError('#DEVICE_FAILED', { value: file });
  }
}
