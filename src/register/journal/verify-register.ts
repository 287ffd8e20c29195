/**
 * The chain and signature check of one register's journal as it is stored (the journal page's "verify" button):
 * SQ continuity, the hash chain and every record's signature with the instance key (verifyChain), from the
 * register's cut when cleaning removed its first records (their hash is where the rest continues from).
 *
 * A long journal must not hold up the service: the check gives the event loop a turn every YIELD_EVERY records
 * (setImmediate, so /register and the other requests are answered in between), stops after `maxMs` with how far
 * it got (the next run continues from there: `fromSq`, starting from the hash of the record before it), and runs
 * at most once per register at a time (`tryVerifyRegister` answers "busy" while one runs).
 */
import type { KeyObject } from 'node:crypto';
import { type ChainReport, verifyChain } from './chain.js';
import type { JournalRecord, JournalStore } from './types.js';

/** Records checked between two turns of the event loop. */
export const YIELD_EVERY = 500;
/** How long one check may run before it stops and reports how far it got. */
export const VERIFY_MAX_MS = 20_000;

export interface RegisterChainReport extends ChainReport {
  /** the first SQ checked (after the cut, else 1, else the `fromSq` asked for) */
  firstSq: number;
  /** set when the time ran out before the end: the next check continues from this SQ */
  continueFromSq?: number;
}

export interface VerifyOptions {
  /** continue a check that stopped: verify from this SQ on (the record before it gives the starting hash) */
  fromSq?: number;
  /** stop after this many milliseconds (default VERIFY_MAX_MS) */
  maxMs?: number;
  now?: () => number;
}

/** The records, with a turn of the event loop every YIELD_EVERY, ending early once `stop()` says so. */
async function* paced(records: AsyncIterable<JournalRecord>, stop: () => boolean, stopped: (sq: number) => void): AsyncIterable<JournalRecord> {
  let n = 0;
  for await (const r of records) {
    if (n > 0 && n % YIELD_EVERY === 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stop()) {
        stopped(r.sq);
        return;
      }
    }
    n += 1;
    yield r;
  }
}

export async function verifyRegisterChain(store: JournalStore, rid: number, publicKey: KeyObject, opts: VerifyOptions = {}): Promise<RegisterChainReport> {
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.maxMs ?? VERIFY_MAX_MS);
  const cut = await store.cutOf(rid);
  let firstSq = (cut?.sq ?? 0) + 1;
  let startHash = cut?.hash;
  if (opts.fromSq !== undefined && opts.fromSq > firstSq) {
    const before = await store.get(rid, opts.fromSq - 1);
    if (before) {
      firstSq = opts.fromSq;
      startHash = before.hash.toString('hex');
    }
  }
  let continueFromSq: number | undefined;
  const records = paced(store.range(rid, firstSq), () => now() >= deadline, (sq) => {
    continueFromSq = sq;
  });
  const report = await verifyChain(records, publicKey, firstSq, startHash);
  return { ...report, firstSq, ...(report.ok && continueFromSq !== undefined ? { continueFromSq } : {}) };
}

const running = new Set<string>();

/**
 * verifyRegisterChain unless a check of the same register (`key`: the data folder and the register) runs
 * already in this process: then 'busy'.
 */
export async function tryVerifyRegister(key: string, store: JournalStore, rid: number, publicKey: KeyObject, opts: VerifyOptions = {}): Promise<RegisterChainReport | 'busy'> {
  if (running.has(key)) return 'busy';
  running.add(key);
  try {
    return await verifyRegisterChain(store, rid, publicKey, opts);
  } finally {
    running.delete(key);
  }
}
