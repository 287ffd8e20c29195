/**
 * A small measurement of the journal's append on PostgreSQL (a scratch schema of EFR_TEST_PG, dropped after):
 * single appends one after the other, and 32 concurrent submitters through the group commit (as 32 POS on
 * one register), with and without merging the queued appends into one transaction; SQLite (writer thread)
 * in the same run for comparison. Run: `node --import tsx bench/measure-append.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchSchema } from '../test/scratch-schema.js';
import { initialState } from '../src/register/registers.js';
import { GENESIS, chainHash } from '../src/register/journal/chain.js';
import { GroupCommitter } from '../src/register/journal/group-commit.js';
import { SqliteJournalStore } from '../src/register/journal/sqlite/sqlite-store.js';
import type { JournalRecord, JournalStore } from '../src/register/journal/types.js';
import { PostgresJournalStore } from '../src/register/journal/postgres/postgres-journal-store.js';

const SINGLE = 300;
const CONCURRENT = 32;
const PER_SUBMITTER = 60;

/** A register's head in memory, as the service keeps it. */
class Head {
  sq = 0;
  hash = GENESIS;
  constructor(readonly rid: number) {}
  next(): JournalRecord {
    this.sq += 1;
    const data = JSON.stringify({ _: 'Tra', SQ: String(this.sq), RN: 'def', ESR: { TL: '1', TT: '1', TN: String(this.sq), D: '2026-11-21T10:00:00', T: '4.70', PosA: [{ PN: '1', Dsc: 'Article 1', Amt: '3.50' }, { PN: '2', Dsc: 'Article 2', Amt: '1.20' }] } });
    const hash = chainHash(this.hash, data);
    this.hash = hash.toString('hex');
    return { rid: this.rid, sq: this.sq, type: 'Tra', d: '2026-11-21T10:00:00', tl: '1', tt: '1', tn: String(this.sq), fn: String(this.sq), t: '4.70', bc: 'sale', ch: Buffer.alloc(16, 1), rh: Buffer.alloc(16, 2), data, hash, sig: Buffer.alloc(64, 3) };
  }
  state(): string {
    return JSON.stringify({ ...initialState('def'), sq: this.sq, hash: this.hash });
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const ms = (n: number): string => n.toFixed(2);

async function single(store: JournalStore, head: Head): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < SINGLE; i++) {
    const t = performance.now();
    await store.append([head.next()], new Map([[head.rid, head.state()]]));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return `single: ${SINGLE} appends, p50 ${ms(pct(times, 50))} ms, p99 ${ms(pct(times, 99))} ms`;
}

/**
 * @param spread each submitter works a random 0..spread ms between its appends (as requests that arrive
 * spread out): the group commit then hands over several batches while one commits
 */
async function concurrent(store: JournalStore, head: Head, commits: () => number, spread = 0): Promise<string> {
  const committer = new GroupCommitter(store, () => head.state(), async () => undefined);
  const times: number[] = [];
  const before = commits();
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT }, async () => {
    for (let i = 0; i < PER_SUBMITTER; i++) {
      if (spread > 0) await new Promise((r) => setTimeout(r, Math.random() * spread));
      const t = performance.now();
      await committer.submit(head.next());
      times.push(performance.now() - t);
    }
  }));
  const elapsed = performance.now() - start;
  times.sort((a, b) => a - b);
  const n = CONCURRENT * PER_SUBMITTER;
  const tx = commits() - before;
  return `${CONCURRENT} concurrent${spread ? ` (0-${spread} ms between)` : ''}: ${n} appends in ${ms(elapsed)} ms = ${Math.round((n / elapsed) * 1000)}/s, p50 ${ms(pct(times, 50))} ms, p99 ${ms(pct(times, 99))} ms${tx ? `, ${tx} transactions (${(n / tx).toFixed(1)} appends each)` : ''}`;
}

async function main(): Promise<void> {
  for (const mergeQueued of [false, true]) {
    const scratch = await createScratchSchema(undefined, 'efr_m_');
    const store = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 4, mergeQueued });
    try {
      await store.migrate();
      const head = new Head(await store.createRegister('def', initialState('def')));
      console.log(`PostgreSQL (${mergeQueued ? 'queued appends merged' : 'one transaction per group-commit batch'})`);
      console.log(`  ${await single(store, head)}`);
      console.log(`  ${await concurrent(store, head, () => store.commits)}`);
      console.log(`  ${await concurrent(store, head, () => store.commits, 2)}`);
    } finally {
      await store.close();
      await scratch.drop();
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'efr-measure-'));
  const store = new SqliteJournalStore(join(dir, 'journal.sqlite'), { writerThread: true });
  try {
    const head = new Head(await store.createRegister('def', initialState('def')));
    console.log('SQLite (writer thread, synchronous=FULL)');
    console.log(`  ${await single(store, head)}`);
    console.log(`  ${await concurrent(store, head, () => 0)}`);
    console.log(`  ${await concurrent(store, head, () => 0, 2)}`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
