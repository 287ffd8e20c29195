/**
 * Connection badges of organizations and companies: 12 random characters from an alphabet without look-alikes
 * (no 0/O, 1/I/L), in three groups (`K7QX-M3RA-9TZW`), about 59 bits. Unique: the store refuses a duplicate and
 * a new one is drawn.
 */
import { randomInt } from 'node:crypto';
import { StoreConflict } from '../store/types.js';

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export function newBadge(): string {
  let s = '';
  for (let i = 0; i < 12; i++) {
    if (i > 0 && i % 4 === 0) s += '-';
    s += ALPHABET[randomInt(ALPHABET.length)];
  }
  return s;
}

/** Runs `make` with fresh badges until the store takes one (a clash is astronomically rare). */
export async function withUniqueBadge<T>(make: (badge: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await make(newBadge());
    } catch (e) {
      if (!(e instanceof StoreConflict && e.field === 'badge') || attempt >= 5) throw e;
    }
  }
}
