/**
 * The instance's signing key: ECDSA P-256, created on first start in the data folder.
 * Behind the Signer interface so that a smartcard or HSM driver can replace it.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../shared/files.js';
import { join } from 'node:path';

export interface Signer {
  /** short id of the public key (hex of the first 8 bytes of SHA-256 over its DER) */
  readonly keyId: string;
  readonly publicKey: KeyObject;
  /** ECDSA P-256 with SHA-256, signature as r||s (64 bytes) */
  sign(data: Buffer | string): Buffer;
  /**
   * The private key, when it is held in this process (a software key): the journal's writer thread signs
   * with it, so that signing does not take the thread that sequences the requests. A key in a device is
   * not given out; then records are signed with sign() when they are sealed.
   */
  readonly privateKey?: KeyObject;
  publicKeyPem(): string;
}

export function verifySignature(publicKey: KeyObject, data: Buffer | string, signature: Buffer): boolean {
  try {
    return verify('sha256', typeof data === 'string' ? Buffer.from(data) : data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

/** The signature of Signer.sign with a key held in this process (any thread). */
export function signWithKey(key: KeyObject, data: Buffer | string): Buffer {
  return sign('sha256', typeof data === 'string' ? Buffer.from(data) : data, { key, dsaEncoding: 'ieee-p1363' });
}

class SoftwareSigner implements Signer {
  readonly keyId: string;
  readonly publicKey: KeyObject;

  constructor(readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    const der = this.publicKey.export({ type: 'spki', format: 'der' });
    this.keyId = createHash('sha256').update(der).digest('hex').slice(0, 16);
  }

  sign(data: Buffer | string): Buffer {
    return signWithKey(this.privateKey, data);
  }

  publicKeyPem(): string {
    return this.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  }
}

/** Loads `keys/instance.key.pem` from the data folder, or creates it (and the public key beside it). */
export function loadOrCreateSigner(dataDir: string): Signer {
  const dir = join(dataDir, 'keys');
  const keyFile = join(dir, 'instance.key.pem');
  if (existsSync(keyFile)) return new SoftwareSigner(createPrivateKey(readFileSync(keyFile)));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = new SoftwareSigner(privateKey);
  writeFileAtomic(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), 0o600);
  writeFileAtomic(join(dir, 'instance.pub.pem'), signer.publicKeyPem());
  return signer;
}
