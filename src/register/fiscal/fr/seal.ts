/**
 * The seal of export.xml: one signed text naming what the file holds (register, export time, period,
 * how many records, a digest of their SQ and signatures) and the last record of every chain, so that
 * records removed at the end, a changed header or a changed SQ are seen (the chains alone show only
 * gaps between the records present). docs/countries/fr.md, "Exports".
 *
 * `FR1;SEAL;<RN>;<Exported>;<Complete>;<From>;<Till>;<Records>;<Digest>;<chain>:<n>:<signature>|...`
 */
import { createHash } from 'node:crypto';
import { escapeField } from './signed-string.js';

export interface SealedItem {
  sq: number;
  chain: string;
  n: string;
  signature: string;
}

export interface SealHeader {
  rn: string;
  exported: string;
  complete: string;
  from: string;
  till: string;
}

/** base64url SHA-256 over `<SQ>;<Signature>\n` of every record in file order. */
export function sealDigest(items: readonly SealedItem[]): string {
  const h = createHash('sha256');
  for (const it of items) h.update(`${it.sq};${it.signature}\n`);
  return h.digest('base64url');
}

/** `<chain>:<n>:<signature>` of the last record of every chain, by chain letter, joined by `|`. */
export function sealChains(items: readonly SealedItem[]): string {
  const last = new Map<string, SealedItem>();
  for (const it of items) last.set(it.chain, it);
  return [...last.keys()]
    .sort()
    .map((k) => {
      const it = last.get(k) as SealedItem;
      return `${k}:${it.n}:${it.signature}`;
    })
    .join('|');
}

export function sealPayload(h: SealHeader, items: readonly SealedItem[]): string {
  return ['FR1', 'SEAL', h.rn, h.exported, h.complete, h.from, h.till, String(items.length), sealDigest(items), sealChains(items)].map(escapeField).join(';');
}

/** The payload's fields by name (`%3B` and `%25` read back); undefined when it is not a seal. */
export function parseSeal(payload: string): (SealHeader & { records: string; digest: string; chains: string }) | undefined {
  const p = payload.split(';').map((v) => v.replace(/%3B/g, ';').replace(/%25/g, '%'));
  if (p.length !== 10 || p[0] !== 'FR1' || p[1] !== 'SEAL') return undefined;
  const [, , rn, exported, complete, from, till, records, digest, chains] = p as [string, string, string, string, string, string, string, string, string, string];
  return { rn, exported, complete, from, till, records, digest, chains };
}
