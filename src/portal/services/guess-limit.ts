/**
 * A small limit on guessing document handles: per client address, at most `limit` lookups that found nothing in
 * a window of `windowMs`; after that every lookup of the address is refused until the window ends. Found receipts
 * do not count. In memory, per portal process (several processes each allow as many): enough to make counting
 * through the 33 million transaction handles of a known register slow, not a hard bound.
 */
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
