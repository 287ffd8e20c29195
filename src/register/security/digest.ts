/**
 * HTTP Digest (RFC 7616, compatible with RFC 2617) as a server: qop=auth, algorithm MD5 (the htdigest file
 * holds MD5(user:realm:password)); MD5-sess is accepted too. Nonces carry their issue time and an HMAC under
 * a secret of this process, so the server stores nothing until a nonce is used; a nonce older than its
 * lifetime (or from before a restart) is answered `stale=true`, so the browser retries without asking again.
 * Each nonce-count may be used once per nonce (replays are refused).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';

export const NONCE_LIFETIME_MS = 5 * 60_000;
const NONCE_FUTURE_MS = 60_000;
const MAX_TRACKED_NONCES = 10_000;
const MAX_COUNTS_PER_NONCE = 10_000;

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Auth-params of a `Digest a=b, c="d"` header (names lower-cased); undefined when not Digest or malformed. */
export function parseDigestHeader(header: string | undefined): Map<string, string> | undefined {
  if (!header) return undefined;
  const m = /^digest\s+/i.exec(header);
  if (!m) return undefined;
  const out = new Map<string, string>();
  let i = m[0].length;
  const s = header;
  while (i < s.length) {
    while (i < s.length && /[\s,]/.test(s[i] as string)) i++;
    if (i >= s.length) break;
    const name = /^[A-Za-z0-9_*-]+/.exec(s.slice(i));
    if (!name) return undefined;
    i += name[0].length;
    while (s[i] === ' ') i++;
    if (s[i] !== '=') return undefined;
    i++;
    while (s[i] === ' ') i++;
    let value = '';
    if (s[i] === '"') {
      i++;
      let closed = false;
      while (i < s.length) {
        const c = s[i] as string;
        if (c === '\\' && i + 1 < s.length) {
          value += s[i + 1];
          i += 2;
        } else if (c === '"') {
          i++;
          closed = true;
          break;
        } else {
          value += c;
          i++;
        }
      }
      if (!closed) return undefined;
    } else {
      const token = /^[^\s,]*/.exec(s.slice(i)) as RegExpExecArray;
      value = token[0];
      i += value.length;
    }
    const key = name[0].toLowerCase();
    if (out.has(key)) return undefined;
    out.set(key, value);
  }
  return out;
}

/** The client's `response` (RFC 7616 section 3.4.1) for qop=auth. */
export function digestResponse(a: { ha1: string; algorithm?: string; method: string; uri: string; nonce: string; nc: string; cnonce: string; qop: string }): string {
  const ha1 = (a.algorithm ?? 'MD5').toUpperCase() === 'MD5-SESS' ? md5(`${a.ha1}:${a.nonce}:${a.cnonce}`) : a.ha1;
  const ha2 = md5(`${a.method}:${a.uri}`);
  return md5(`${ha1}:${a.nonce}:${a.nc}:${a.cnonce}:${a.qop}:${ha2}`);
}

export function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase(), 'utf8');
  const y = Buffer.from(b.toLowerCase(), 'utf8');
  // equal lengths for timingSafeEqual; a length mismatch is itself not secret (always 32 hex digits)
  if (x.length !== y.length) return false;
  return timingSafeEqual(x, y);
}

export type NonceState = 'ok' | 'stale';

/** Issues and checks nonces; remembers the nonce-counts used. */
export class DigestNonces {
  private readonly secret: Buffer;
  readonly opaque: string;
  private readonly used = new Map<string, { issued: number; counts: Set<number>; burned?: true }>();
  /** nonces issued at or before this time are stale (their counts were forgotten to bound memory) */
  private forgottenUpTo = -Infinity;

  constructor(
    private readonly clock: Clock,
    readonly lifetimeMs = NONCE_LIFETIME_MS,
    secret: Buffer = randomBytes(32),
  ) {
    this.secret = secret;
    this.opaque = createHmac('sha256', secret).update('opaque').digest('base64url').slice(0, 22);
  }

  private mac(issued: Buffer, salt: Buffer, realm: string): Buffer {
    return createHmac('sha256', this.secret).update(issued).update(salt).update(realm, 'utf8').digest().subarray(0, 16);
  }

  issue(realm: string): string {
    const issued = Buffer.alloc(8);
    issued.writeBigUInt64BE(BigInt(this.clock.now().getTime()));
    const salt = randomBytes(12);
    return Buffer.concat([issued, salt, this.mac(issued, salt, realm)]).toString('base64url');
  }

  /** Time of issue of a nonce of ours for this realm, or undefined (forged, other realm, or from before a restart). */
  private issuedAt(nonce: string, realm: string): number | undefined {
    if (!/^[A-Za-z0-9_-]{48}$/.test(nonce)) return undefined;
    const raw = Buffer.from(nonce, 'base64url');
    if (raw.length !== 36) return undefined;
    const issued = raw.subarray(0, 8);
    if (!timingSafeEqual(raw.subarray(20), this.mac(issued, raw.subarray(8, 20), realm))) return undefined;
    return Number(issued.readBigUInt64BE());
  }

  /**
   * After the response was found right: uses nonce-count `nc` of the nonce once. `stale` for a nonce that is
   * not (or no longer) valid; `replay` for a count used before.
   */
  use(nonce: string, realm: string, nc: string): NonceState | 'replay' {
    const issued = this.issuedAt(nonce, realm);
    const now = this.clock.now().getTime();
    if (issued === undefined || now - issued > this.lifetimeMs || issued - now > NONCE_FUTURE_MS) return 'stale';
    const count = parseInt(nc, 16);
    let entry = this.used.get(nonce);
    if (!entry) {
      if (issued <= this.forgottenUpTo) return 'stale';
      this.prune(now);
      entry = { issued, counts: new Set() };
      this.used.set(nonce, entry);
    }
    if (entry.burned) return 'stale';
    if (entry.counts.has(count)) return 'replay';
    if (entry.counts.size >= MAX_COUNTS_PER_NONCE) return 'stale';
    entry.counts.add(count);
    return 'ok';
  }

  /**
   * A wrong response used the nonce up: every later count of it is stale, so each guess costs a new
   * challenge (and counts as a failed attempt of its address).
   */
  burn(nonce: string, realm: string): void {
    const issued = this.issuedAt(nonce, realm);
    if (issued === undefined) return;
    const now = this.clock.now().getTime();
    let entry = this.used.get(nonce);
    if (!entry) {
      this.prune(now);
      entry = { issued, counts: new Set() };
      this.used.set(nonce, entry);
    }
    entry.burned = true;
  }

  private prune(now: number): void {
    for (const [nonce, e] of this.used) if (now - e.issued > this.lifetimeMs) this.used.delete(nonce);
    while (this.used.size >= MAX_TRACKED_NONCES) {
      const [oldest, e] = this.used.entries().next().value as [string, { issued: number }];
      this.forgottenUpTo = Math.max(this.forgottenUpTo, e.issued);
      this.used.delete(oldest);
    }
  }

  /** The `WWW-Authenticate` value that asks for Digest credentials of a realm. */
  challenge(realm: string, stale = false): string {
    const q = (v: string): string => `"${v.replace(/["\\]/g, '\\$&')}"`;
    return `Digest realm=${q(realm)}, qop="auth", algorithm=MD5, nonce=${q(this.issue(realm))}, opaque=${q(this.opaque)}${stale ? ', stale=true' : ''}`;
  }
}
