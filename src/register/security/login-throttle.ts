/**
 * Failed password attempts, counted per client address, so that a password cannot be guessed at the speed
 * of the network. An address may fail FREE_FAILURES times in a row (a mistyped password); then it waits
 * FIRST_BLOCK_MS before its next attempt, and each further failure doubles the wait (1 s, 2 s, 4 s ... at
 * most MAX_BLOCK_MS). While blocked, every request of that address that carries credentials is answered 429 with
 * `Retry-After`, the right password too: otherwise guessing would simply go on. A success clears the count,
 * and an address that stays quiet for FORGET_MS is forgotten.
 *
 * An IPv6 client is counted by its /64, the block a single host can pick addresses from. Requests from this
 * machine are not counted: it is trusted anyway (see docs/security.md), and a reverse proxy on it is
 * counted as one client, so guessing through the proxy slows everyone behind it, never speeds anyone up.
 */
import { isIPv6 } from 'node:net';
import type { Clock } from '../../shared/clock.js';

export const FREE_FAILURES = 5;
export const FIRST_BLOCK_MS = 1000;
export const MAX_BLOCK_MS = 15 * 60_000;
const FORGET_MS = 60 * 60_000;
/** addresses tracked at the most: the oldest are forgotten first (an attacker with many addresses gains little from that) */
const MAX_TRACKED = 10_000;

interface Attempts {
  failures: number;
  blockedUntil: number;
  last: number;
}

/** The key an address is counted under: IPv4 as it is, IPv6 by its first four groups. */
export function clientKey(address: string | undefined): string {
  if (!address) return '';
  let a = address.toLowerCase();
  if (a.startsWith('::ffff:') && a.includes('.')) return a.slice(7);
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (!isIPv6(a)) return a;
  const [head = '', tail = ''] = a.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = a.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class LoginThrottle {
  private readonly clients = new Map<string, Attempts>();

  constructor(private readonly clock: Clock) {}

  /** Seconds the address must still wait, 0 when it may try. */
  waitSeconds(address: string | undefined): number {
    const e = this.clients.get(clientKey(address));
    if (!e) return 0;
    const left = e.blockedUntil - this.clock.now().getTime();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  failed(address: string | undefined): void {
    const key = clientKey(address);
    const now = this.clock.now().getTime();
    let e = this.clients.get(key);
    if (e && now - e.last > FORGET_MS) e = undefined;
    if (!e) {
      if (this.clients.size >= MAX_TRACKED) this.clients.delete(this.clients.keys().next().value as string);
      e = { failures: 0, blockedUntil: 0, last: now };
    }
    e.failures += 1;
    e.last = now;
    const over = e.failures - FREE_FAILURES;
    if (over >= 0) e.blockedUntil = now + Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** Math.min(over, 30));
    // re-inserted: the map's order is the order of last failure, the oldest is evicted first
    this.clients.delete(key);
    this.clients.set(key, e);
  }

  succeeded(address: string | undefined): void {
    if (this.clients.size === 0) return;
    this.clients.delete(clientKey(address));
  }
}
