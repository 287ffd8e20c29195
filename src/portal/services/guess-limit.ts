/**
 * A small limit on guessing document handles: per client address, at most `limit` lookups that found nothing in
 * a window of `windowMs`; after that every further miss of the address is refused (429) until the window ends.
 * Found receipts neither count nor are refused (the route looks the handle up before it asks). In memory, per portal process (several processes each allow as many): enough to make counting
 * through the 33 million transaction handles of a known register slow, not a hard bound.
 */
import { isIP } from 'node:net';

/**
 * The key a client is counted by: an IPv4 address as it is (also written IPv4-mapped, `::ffff:192.0.2.1`), an IPv6
 * address by its /64 (`2001:db8:0:1::/64`: one host or home network gets a whole /64 and could walk through it).
 * Anything else (no address) as it is.
 */
export function clientKey(address: string): string {
  const ip = address.trim().toLowerCase().replace(/%.*$/, '');
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip)?.[1];
  if (mapped && isIP(mapped) === 4) return mapped;
  if (isIP(ip) !== 6) return ip;
  const groups = expandIPv6(ip);
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The 8 groups of an IPv6 address (`::` expanded, an embedded IPv4 tail as two groups). */
function expandIPv6(ip: string): string[] {
  let text = ip;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right];
}

export interface GuessLimitOptions {
  /** misses allowed per address and window (default 30) */
  limit?: number;
  /** window length in ms (default 10 minutes) */
  windowMs?: number;
  /** addresses tracked at most; the oldest windows are dropped beyond it (default 100000) */
  maxAddresses?: number;
}

export class GuessLimit {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly misses = new Map<string, { start: number; count: number }>();

  constructor(options: GuessLimitOptions = {}, private readonly now: () => number = Date.now) {
    this.limit = options.limit ?? 30;
    this.windowMs = options.windowMs ?? 10 * 60_000;
    this.maxAddresses = options.maxAddresses ?? 100_000;
  }

  private entry(address: string): { start: number; count: number } | undefined {
    const e = this.misses.get(address);
    if (e && this.now() - e.start >= this.windowMs) {
      this.misses.delete(address);
      return undefined;
    }
    return e;
  }

  /** Whether the address has used up its misses of the current window. */
  blocked(address: string): boolean {
    const e = this.entry(address);
    return e !== undefined && e.count >= this.limit;
  }

  /** Counts a lookup that found nothing. */
  miss(address: string): void {
    const e = this.entry(address);
    if (e) {
      e.count += 1;
      return;
    }
    if (this.misses.size >= this.maxAddresses) {
      // Map keeps insertion order: the first entries are the oldest windows
      const oldest = this.misses.keys().next();
      if (!oldest.done) this.misses.delete(oldest.value);
    }
    this.misses.set(address, { start: this.now(), count: 1 });
  }

  /** Seconds until the address's window ends (for Retry-After). */
  retryAfter(address: string): number {
    const e = this.entry(address);
    return e ? Math.max(1, Math.ceil((e.start + this.windowMs - this.now()) / 1000)) : 0;
  }
}
