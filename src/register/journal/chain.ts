/**
 * The hash chain of a register's journal: each record's hash covers the previous record's hash
 * and the record's exact JSON text; the instance key signs that hash.
 */
import { hash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { verifySignature } from '../security/signer.js';
import type { JournalRecord } from './types.js';

export const GENESIS = '0'.repeat(64);

export function chainHash(prevHex: string, data: string): Buffer {
  // one-shot: cheaper than a Hash object for a record's few kilobytes
  return hash('sha256', `${prevHex}\n${data}`, 'buffer');
}

export const PAYLOAD_VERSION = 'EFR1';

type Fields = Record<string, unknown>;
/** A payload field: `%` and `;` percent-encoded, so that no value can shift the fields after it. */
const field = (o: unknown, k: string): string => {
  const v = typeof o === 'object' && o !== null ? (o as Fields)[k] : undefined;
  return typeof v === 'string' ? escapeField(v) : '';
};

export function escapeField(v: string): string {
  // nearly every field has neither character: two searches instead of two replacements
  if (!v.includes('%') && !v.includes(';')) return v;
  return v.replace(/%/g, '%25').replace(/;/g, '%3B');
}

/**
 * The text the instance key signs for every record:
 * EFR1;RN;SQ;type;FN;ESR.D;TS;TL/TT/TN;T;record hash (hex), each field with `%` and `;` percent-encoded.
 * It names the receipt's printed facts and, through the hash, the whole record and its predecessors.
 * For the generic fiscal module it is also the receipt's Fis.Payload.
 */
export function signingPayload(data: Fields, hashHex: string): string {
  const esr = data.ESR;
  const id = esr ? `${field(esr, 'TL')}/${field(esr, 'TT')}/${field(esr, 'TN')}` : '';
  return [PAYLOAD_VERSION, field(data, 'RN'), field(data, 'SQ'), field(data, '_'), field(data.Fis, 'FN'), field(esr, 'D'), field(data, 'TS'), id, field(esr, 'T'), hashHex].join(';');
}

export interface ChainReport {
  ok: boolean;
  count: number;
  lastSq: number;
  /** the first record that fails, with the reason (English) and its kind (for translated texts) */
  broken?: { sq: number; reason: string; kind?: ChainBreak };
}

/** Why a chain breaks: an SQ gap, a hash that does not match, data that is no JSON, an SQ inside that differs, a bad signature. */
export type ChainBreak = 'gap' | 'hash' | 'json' | 'sq' | 'signature';

/** Verifies SQ continuity, the hash chain and every signature of a register's records in SQ order. */
export async function verifyChain(records: AsyncIterable<JournalRecord> | Iterable<JournalRecord>, publicKey: KeyObject, startSq = 1, startHash = GENESIS): Promise<ChainReport> {
  let expectedSq = startSq;
  let prev = startHash;
  let count = 0;
  for await (const r of records) {
    const fail = (reason: string, kind: ChainBreak): ChainReport => ({ ok: false, count, lastSq: expectedSq - 1, broken: { sq: r.sq, reason, kind } });
    if (r.sq !== expectedSq) return fail(`SQ ${r.sq} follows ${expectedSq - 1}: gap or reordering`, 'gap');
    const h = chainHash(prev, r.data);
    if (!h.equals(r.hash)) return fail('hash does not match the record content and the previous hash', 'hash');
    let parsed: unknown;
    try {
      parsed = JSON.parse(r.data);
    } catch {
      return fail('record data is not JSON', 'json');
    }
    if (typeof parsed !== 'object' || parsed === null || (parsed as Fields).SQ !== String(r.sq)) return fail('SQ inside the record differs from its position', 'sq');
    if (!verifySignature(publicKey, signingPayload(parsed as Fields, r.hash.toString('hex')), r.sig)) return fail('signature does not verify with the instance public key', 'signature');
    prev = r.hash.toString('hex');
    expectedSq += 1;
    count += 1;
  }
  return { ok: true, count, lastSq: expectedSq - 1 };
}
