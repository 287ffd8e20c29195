/** Reads a data folder's journal and verifies every register's chain with the instance public key. */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyChain, type ChainReport } from '../src/register/journal/chain.js';
import { SqliteJournalStore } from '../src/register/journal/sqlite/sqlite-store.js';

export async function verifyJournal(dataDir: string): Promise<ChainReport & { registers: number }> {
  const store = new SqliteJournalStore(join(dataDir, 'journal', 'journal.sqlite'));
  const key = createPublicKey(readFileSync(join(dataDir, 'keys', 'instance.pub.pem')));
  let count = 0;
  try {
    const registers = await store.loadRegisters();
    let lastSq = 0;
    for (const r of registers) {
      const report = await verifyChain(store.range(r.rid, 1), key);
      if (!report.ok) return { ...report, registers: registers.length };
      if (report.lastSq !== r.sq) return { ok: false, count, lastSq: report.lastSq, broken: { sq: r.sq, reason: `state says SQ ${r.sq}, journal ends at ${report.lastSq}` }, registers: registers.length };
      count += report.count;
      lastSq = report.lastSq;
    }
    return { ok: true, count, lastSq, registers: registers.length };
  } finally {
    await store.close();
  }
}
