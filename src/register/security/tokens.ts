/**
 * Access and refresh tokens of cloud mode.
 *
 * - The access token is a JWT (HS256, `typ` at+jwt) signed with the instance's token key
 *   (`<data>/keys/token.key`, made at first use, mode 0600). It carries the scope (API key, TaxId, TL, TT)
 *   and its login ("family"), so a request is checked without reading the store.
 * - The refresh token is opaque: `rt1.<family>.<secret>`. A login (client credentials) starts a family;
 *   the store keeps per family only the SHA-256 of the current secret. A refresh rotates it (a new pair);
 *   presenting any other secret of a known family is a replay: the family is revoked, so neither the
 *   thief nor the owner can go on with it (OAuth 2.0 Security BCP), and its access tokens are refused by
 *   this process at once (elsewhere they expire within the access lifetime).
 * - Refreshes of one family are serialized in the process: of two at the same time only one succeeds.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../../shared/clock.js';
import { writeFileAtomic } from '../../shared/files.js';
import { ApiKeys, type SettingsStore, sameSecret, sha256 } from './api-keys.js';
import { type KeySource, LocalKeySource } from './key-source.js';

/** What a token allows: registering and reading as this terminal of this company. */
export interface TokenScope {
  apiKey: string;
  taxId: string;
  tl: string;
  tt: string;
}

/** The scope a token request asks for; TaxId defaults to the API key's. */
export interface ScopeAsked {
  taxId: string | undefined;
  tl: string;
  tt: string;
}

export interface CloudSettings {
  /** access token lifetime in seconds (default 3600) */
  accessTtl: number;
  /** refresh token lifetime in seconds (default 604800 = 7 days) */
  refreshTtl: number;
  /** portal API keys (`ck_`): how long a positive answer of the portal is used (EFR_PORTAL_KEY_CACHE_MS; default 60000) */
  portalKeyCacheMs?: number;
  /** portal API keys: how old a positive answer may be to count while the portal is away (EFR_PORTAL_KEY_STALE_MS; default 3600000) */
  portalKeyStaleMs?: number;
}

export interface CloudOptions {
  accessTtl?: number;
  refreshTtl?: number;
}

export const DEFAULT_ACCESS_TTL = 3600;
export const DEFAULT_REFRESH_TTL = 7 * 24 * 3600;

function ttlOf(name: string, given: number | undefined, envText: string | undefined, fallback: number): number {
  const v = given ?? (envText !== undefined && envText !== '' ? Number(envText) : fallback);
  if (!Number.isInteger(v) || v < 1 || v > 10 * 365 * 24 * 3600) throw new Error(`invalid ${name}: ${String(given ?? envText)} (whole seconds, at least 1)`);
  return v;
}

/**
 * Cloud mode is on with the serve option `cloud` (true or lifetimes), else with EFR_CLOUD=true.
 * Lifetimes: the option's, else EFR_TOKEN_ACCESS_TTL / EFR_TOKEN_REFRESH_TTL (seconds), else 1 h / 7 days.
 */
export function cloudSettingsOf(option: boolean | CloudOptions | undefined, env: NodeJS.ProcessEnv): CloudSettings | undefined {
  const on = option === undefined ? env.EFR_CLOUD?.toLowerCase() === 'true' : option !== false;
  if (!on) return undefined;
  const o = typeof option === 'object' ? option : {};
  const cacheMs = msOf('EFR_PORTAL_KEY_CACHE_MS', env.EFR_PORTAL_KEY_CACHE_MS);
  const staleMs = msOf('EFR_PORTAL_KEY_STALE_MS', env.EFR_PORTAL_KEY_STALE_MS);
  return {
    accessTtl: ttlOf('access token lifetime (EFR_TOKEN_ACCESS_TTL)', o.accessTtl, env.EFR_TOKEN_ACCESS_TTL, DEFAULT_ACCESS_TTL),
    refreshTtl: ttlOf('refresh token lifetime (EFR_TOKEN_REFRESH_TTL)', o.refreshTtl, env.EFR_TOKEN_REFRESH_TTL, DEFAULT_REFRESH_TTL),
    ...(cacheMs !== undefined ? { portalKeyCacheMs: cacheMs } : {}),
    ...(staleMs !== undefined ? { portalKeyStaleMs: staleMs } : {}),
  };
}

/** Milliseconds from the environment (0 to one day); undefined when not set. */
function msOf(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const v = Number(text);
  if (!Number.isInteger(v) || v < 0 || v > 24 * 3600 * 1000) throw new Error(`invalid ${name}: ${text} (whole milliseconds, 0 to 86400000)`);
  return v;
}

/** The answer of POST /auth/token, field by field as the spec lists them. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  access_token_expires: number;
  access_token_expires_at: number;
  refresh_token_expires: number;
  refresh_token_expires_at: number;
  api_key: string;
}

/** A refusal in OAuth terms (RFC 6749 section 5.2; invalid_token from RFC 6750 for an expired refresh token). */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_scope' | 'unsupported_grant_type' | 'invalid_token' | 'temporarily_unavailable',
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  get status(): number {
    if (this.error === 'temporarily_unavailable') return 503;
    return this.error === 'invalid_client' || this.error === 'invalid_token' ? 401 : 400;
  }
}

/** A login's record in the store: the digest of its current refresh secret, never a token. */
interface FamilyRecord {
  v: 1;
  key: string;
  taxId: string;
  tl: string;
  tt: string;
  /** hex SHA-256 of the current refresh secret */
  current: string;
  /** Unix seconds: expiry of the current refresh token */
  exp: number;
  created: number;
  rotations: number;
  /** why and when (Unix seconds) the family was revoked */
  revoked?: { at: number; reason: string };
}

const FAMILY = 'cloud.token-family:';
const ISSUER = 'efr';
const AUDIENCE = 'efr-register';
const REFRESH_FORM = /^rt1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** The HMAC key of the access tokens: `<data>/keys/token.key`, 32 random bytes made at first use. */
export function loadOrCreateTokenKey(dataDir: string): Uint8Array {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'token.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (key.length >= 32) return key;
    throw new Error(`${file} is not a token key (32 random bytes, base64url)`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileAtomic(file, `${key.toString('base64url')}\n`, 0o600);
  return key;
}

export class TokenService {
  /** the instance's own keys (`ak_`; `efr apikey`) */
  readonly apiKeys: ApiKeys;
  /** where logins and refreshes check their key: the own keys, and the portal's (`ck_`) when cloud-auth.ts gives them */
  readonly keys: KeySource;
  private key: Uint8Array | undefined;
  /** families revoked by this process: their access tokens are refused before they expire */
  private readonly revokedFamilies = new Set<string>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: SettingsStore,
    private readonly dataDir: string,
    private readonly clock: Clock,
    readonly settings: CloudSettings,
    keys?: KeySource,
  ) {
    this.apiKeys = new ApiKeys(store);
    this.keys = keys ?? new LocalKeySource(this.apiKeys);
  }

  private seconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  private signingKey(): Uint8Array {
    this.key ??= loadOrCreateTokenKey(this.dataDir);
    return this.key;
  }

  /** Client credentials: checks the key and secret and the TaxId, starts a new family. */
  async login(apiKey: string, secret: string, scope: ScopeAsked): Promise<TokenResponse> {
    const record = await this.keys.verify(apiKey, secret);
    if (!record) throw new OAuthError('invalid_client', 'unknown API key, wrong secret or revoked key');
    const taxId = scope.taxId ?? record.taxId;
    if (taxId !== record.taxId) throw new OAuthError('invalid_scope', `the API key is bound to TaxId ${record.taxId}, not ${taxId}`);
    const family = randomBytes(16).toString('base64url');
    const now = this.seconds();
    const secretPart = randomBytes(32).toString('base64url');
    const fam: FamilyRecord = { v: 1, key: record.key, taxId, tl: scope.tl, tt: scope.tt, current: sha256(secretPart).toString('hex'), exp: now + this.settings.refreshTtl, created: now, rotations: 0 };
    await this.store.putSetting(FAMILY + family, JSON.stringify(fam));
    return this.issue(fam, family, secretPart, now);
  }

  /** Refresh: rotates the family's refresh token; a replayed one revokes the family. */
  async refresh(refreshToken: string, clientId: string, scope: ScopeAsked): Promise<TokenResponse> {
    const m = REFRESH_FORM.exec(refreshToken);
    if (!m) throw new OAuthError('invalid_grant', 'not a refresh token of this service');
    const family = m[1] as string;
    const secretPart = m[2] as string;
    return this.serialized(family, async () => {
      const fam = await this.family(family);
      if (!fam) throw new OAuthError('invalid_grant', 'unknown refresh token');
      const now = this.seconds();
      if (fam.revoked) throw new OAuthError('invalid_grant', 'the refresh token is revoked; log in again with the API key and secret');
      if (!sameSecret(secretPart, fam.current)) {
        // a refresh token of this family that is not the current one: it was used before
        fam.revoked = { at: now, reason: 'a used refresh token was presented again' };
        await this.store.putSetting(FAMILY + family, JSON.stringify(fam));
        this.revokedFamilies.add(family);
        throw new OAuthError('invalid_grant', 'the refresh token was already used; all tokens of this login are revoked, log in again with the API key and secret');
      }
      if (clientId !== fam.key) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client_id');
      if (fam.exp <= now) throw new OAuthError('invalid_token', 'the refresh token has expired; log in again with the API key and secret');
      if (!(await this.keys.active(fam.key))) throw new OAuthError('invalid_client', 'the API key of this refresh token is revoked');
      const taxId = scope.taxId ?? fam.taxId;
      if (taxId !== fam.taxId || scope.tl !== fam.tl || scope.tt !== fam.tt) {
        throw new OAuthError('invalid_scope', `the refresh token is for TaxId ${fam.taxId}, TL ${fam.tl || '(none)'}, TT ${fam.tt}; send the same TaxId, TL and TT`);
      }
      const next = randomBytes(32).toString('base64url');
      fam.current = sha256(next).toString('hex');
      fam.exp = now + this.settings.refreshTtl;
      fam.rotations += 1;
      await this.store.putSetting(FAMILY + family, JSON.stringify(fam));
      return this.issue(fam, family, next, now);
    });
  }

  /** The scope of a valid access token, or why it is not valid (for error_description). */
  async verifyAccess(token: string): Promise<{ scope: TokenScope } | { invalid: string }> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.signingKey(), {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        typ: 'at+jwt',
        currentDate: this.clock.now(),
        requiredClaims: ['exp', 'iat', 'sub'],
      }));
    } catch (e) {
      const code = (e as { code?: string }).code;
      return { invalid: code === 'ERR_JWT_EXPIRED' ? 'the access token has expired; use the refresh token' : 'the access token is not valid' };
    }
    const { sub, tid, tl, tt, fam } = payload;
    if (typeof sub !== 'string' || typeof tid !== 'string' || typeof tl !== 'string' || typeof tt !== 'string' || typeof fam !== 'string') return { invalid: 'the access token is not valid' };
    if (this.revokedFamilies.has(fam)) return { invalid: 'the access token is revoked; log in again with the API key and secret' };
    return { scope: { apiKey: sub, taxId: tid, tl, tt } };
  }

  private async issue(fam: FamilyRecord, family: string, secretPart: string, now: number): Promise<TokenResponse> {
    const accessExp = now + this.settings.accessTtl;
    const access = await new SignJWT({ tid: fam.taxId, tl: fam.tl, tt: fam.tt, fam: family })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(fam.key)
      .setIssuedAt(now)
      .setExpirationTime(accessExp)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(this.signingKey());
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: this.settings.accessTtl,
      refresh_token: `rt1.${family}.${secretPart}`,
      access_token_expires: accessExp,
      access_token_expires_at: accessExp,
      refresh_token_expires: fam.exp,
      refresh_token_expires_at: fam.exp,
      api_key: fam.key,
    };
  }

  private async family(family: string): Promise<FamilyRecord | undefined> {
    const text = await this.store.getSetting(FAMILY + family);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as FamilyRecord;
    } catch {
      return undefined;
    }
  }

  /** Runs fn after every earlier call for the same family has finished. */
  private async serialized<T>(family: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(family) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(family, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(family) === tail) this.locks.delete(family);
    }
  }
}
