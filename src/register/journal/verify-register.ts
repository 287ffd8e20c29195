/**
 * The chain and signature check of one register's journal as it is stored (the journal page's "verify" button):
 * SQ continuity, the hash chain and every record's signature with the instance key (verifyChain), from the
 * register's cut when cleaning removed its first records (their hash is where the rest continues from).
 */
import type { KeyObject } from 'node:crypto';
import { type ChainReport, verifyChain } from './chain.js';
import type { JournalStore } from './types.js';

export interface RegisterChainReport extends ChainReport {
  /** the first SQ checked (after the cut, else 1) */
  firstSq: number;
}

export async function verifyRegisterChain(store: JournalStore, rid: number, publicKey: KeyObject): Promise<RegisterChainReport> {
  const cut = await store.cutOf(rid);
  const firstSq = (cut?.sq ?? 0) + 1;
  const report = await verifyChain(store.range(rid, firstSq), publicKey, firstSq, cut?.hash);
  return { ...report, firstSq };
}
