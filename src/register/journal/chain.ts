/**
 * The hash chain of a register's journal: each record's hash covers the previous record's hash
 * and the record's exact JSON text; the instance key signs that hash.
 */
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { verifySignature } from '../security/signer.js';
import type { JournalRecord } from './types.js';

export const GENESIS = '0'.repeat(64);

export function chainHash(prevHex: string, data: string): Buffer {
  return createHash('sha256').update(prevHex).update('\n').update(data).digest();
}

export interface ChainReport {
  ok: boolean;
  count: number;
  lastSq: number;
  /** the first record that fails, with the reason */
  broken?: { sq: number; reason: string };
}

/** Verifies SQ continuity, the hash chain and every signature of a register's records in SQ order. */
export async function verifyChain(records: AsyncIterable<JournalRecord> | Iterable<JournalRecord>, publicKey: KeyObject, startSq = 1, startHash = GENESIS): Promise<ChainReport> {
  let expectedSq = startSq;
  let prev = startHash;
  let count = 0;
  for await (const r of records) {
    const fail = (reason: string): ChainReport => ({ ok: false, count, lastSq: expectedSq - 1, broken: { sq: r.sq, reason } });
    if (r.sq !== expectedSq) return fail(`SQ ${r.sq} follows ${expectedSq - 1}: gap or reordering`);
    const h = chainHash(prev, r.data);
    if (!h.equals(r.hash)) return fail('hash does not match the record content and the previous hash');
    if (!verifySignature(publicKey, r.hash, r.sig)) return fail('signature does not verify with the instance public key');
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.data);
    } catch {
      return fail('record data is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || (parsed as Record<string, unknown>).SQ !== String(r.sq)) return fail('SQ inside the record differs from its position');
    prev = r.hash.toString('hex');
    expectedSq += 1;
    count += 1;
  }
  return { ok: true, count, lastSq: expectedSq - 1 };
}
