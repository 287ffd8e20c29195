/** Canonical JSON (keys sorted at every level) and content hashes for duplicate detection. */
import { createHash } from 'node:crypto';

type Tree = string | Tree[] | { [k: string]: Tree };

export function canonicalJson(v: Tree): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + canonicalJson(v[i] as Tree);
    return `${out}]`;
  }
  const keys = Object.keys(v).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += `${i ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v[k] as Tree)}`;
  }
  return `${out}}`;
}

/**
 * Two 16-byte hashes of a transaction as decoded: `rh` over everything but D and TN (POST /restart
 * matches on it), `ch` over everything (POST /register matches on it). The decoded form does not
 * depend on white space or JSON number spelling; it keeps the order of properties, which a
 * POS repeating its own request does not change (docs/decisions.md).
 */
export function contentHashes(esr: { [k: string]: Tree }): { ch: Buffer; rh: Buffer } {
  const { D, TN, ...rest } = esr;
  // one pass over the body: ch continues a copy of the state rh is taken from
  const hash = createHash('sha256').update(JSON.stringify(rest));
  const rh = hash.copy().digest().subarray(0, 16);
  const ch = hash.update(`\u0000${typeof D === 'string' ? D : ''}\u0000${typeof TN === 'string' ? TN : ''}`).digest().subarray(0, 16);
  return { ch, rh };
}
