/**
 * Small secrets the service must read back (the password of an uploaded server certificate), encrypted
 * at rest with AES-256-GCM under a random key of this instance (`keys/secret.key`, 32 bytes, mode 0600,
 * made on first use). The key stays in the data folder: this keeps the password out of the `cer` folder,
 * out of copies of it and out of logs; whoever can read the whole data folder can still decrypt it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/files.js';

interface Sealed {
  v: 1;
  alg: 'aes-256-gcm';
  iv: string;
  tag: string;
  data: string;
}

function instanceKey(dataDir: string): Buffer {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'secret.key');
  if (existsSync(file)) {
    const key = readFileSync(file);
    if (key.length === 32) return key;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileAtomic(file, key, 0o600);
  return key;
}

/** Encrypts `plain`; `purpose` is bound as associated data, so a sealed value cannot be used for another purpose. */
export function seal(dataDir: string, purpose: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', instanceKey(dataDir), iv);
  cipher.setAAD(Buffer.from(purpose));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const sealed: Sealed = { v: 1, alg: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  return JSON.stringify(sealed);
}

/** The plain text of a sealed value; undefined when it was not sealed by this instance for this purpose (or is damaged). */
export function unseal(dataDir: string, purpose: string, text: string): string | undefined {
  try {
    const sealed = JSON.parse(text) as Partial<Sealed>;
    if (sealed.v !== 1 || sealed.alg !== 'aes-256-gcm' || !sealed.iv || !sealed.tag || sealed.data === undefined) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', instanceKey(dataDir), Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
