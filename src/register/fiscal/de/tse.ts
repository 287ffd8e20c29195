/**
 * A software TSE: a P-256 key in the data folder, its serial the SHA-256 of the uncompressed public key,
 * signing TR-03151 log messages with plain R‖S. A TSE whose key file is gone does not answer. A
 * certified TSE driver implements the same `Tse` interface.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { uncompressedPoint, writeFileAtomic } from '../../../shared/files.js';
import { join } from 'node:path';

export interface Tse {
  readonly serial: Buffer;
  /** the uncompressed public key (04 ‖ X ‖ Y) */
  readonly publicKey: Buffer;
  available(): boolean;
  sign(data: Buffer): Buffer | undefined;
}

class SoftwareTse implements Tse {
  readonly serial: Buffer;
  readonly publicKey: Buffer;
  constructor(
    private readonly keyFile: string,
    private readonly key: KeyObject,
  ) {
    this.publicKey = uncompressedPoint(createPublicKey(key));
    this.serial = createHash('sha256').update(this.publicKey).digest();
  }
  available(): boolean {
    return existsSync(this.keyFile);
  }
  sign(data: Buffer): Buffer | undefined {
    if (!this.available()) return undefined;
    return sign('sha256', data, { key: this.key, dsaEncoding: 'ieee-p1363' });
  }
}

const opened = new Map<string, Tse>();

export function tseDir(dataDir: string, rn: string): string {
  return join(dataDir, 'de', rn.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/** The register's TSE; created on first use. */
export function openTse(dataDir: string, rn: string): Tse {
  const dir = tseDir(dataDir, rn);
  const cached = opened.get(dir);
  if (cached) return cached;
  const keyFile = join(dir, 'tse.key.pem');
  if (!existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileAtomic(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), 0o600);
  }
  const tse = new SoftwareTse(keyFile, createPrivateKey(readFileSync(keyFile)));
  opened.set(dir, tse);
  return tse;
}
