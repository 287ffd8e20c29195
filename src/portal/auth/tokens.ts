/**
 * Bearer tokens of the portal: JWT HS256 (jose) signed with a 32-byte key kept in `<data>/portal/keys/token.key`
 * (made on first start, mode 0600). The subject is the client id; the clock is injected.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../../shared/clock.js';

export const TOKEN_ISSUER = 'efr-portal';
export const TOKEN_AUDIENCE = 'efr-portal-api';
export const TOKEN_TTL_SECONDS = 3600;

export function loadTokenKey(dataDir: string): Uint8Array {
  const dir = join(dataDir, 'portal', 'keys');
  const file = join(dir, 'token.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // another process made it first: use that one
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const key = readFileSync(file);
  if (key.length < 32) throw new Error(`${file}: the token key must have 32 bytes`);
  return new Uint8Array(key);
}

export class TokenIssuer {
  constructor(
    private readonly key: Uint8Array,
    private readonly clock: Clock,
    readonly ttlSeconds = TOKEN_TTL_SECONDS,
  ) {}

  async issue(clientId: string): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(clientId)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttlSeconds)
      .sign(this.key);
  }

  /** The client id of a valid token, undefined for any bad, foreign or expired one. */
  async verify(token: string): Promise<string | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE, currentDate: this.clock.now() });
      return typeof payload.sub === 'string' ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }
}
