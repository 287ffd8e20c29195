/**
 * API client credentials. A client id is `pc_` and 16 random hex digits; a secret is 32 random bytes
 * (base64url, 43 characters). Only the SHA-256 of the secret is stored: a 256-bit random secret cannot be
 * guessed, so a slow hash (scrypt) would only slow every token request without protecting anything.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newClientId(): string {
  return `pc_${randomBytes(8).toString('hex')}`;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

export function secretMatches(secret: string, stored: string): boolean {
  const a = Buffer.from(hashSecret(secret));
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
