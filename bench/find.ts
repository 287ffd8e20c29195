// /find on a large journal: the journal is generated through the store (not through HTTP), then the
// service is started on it and looked up over HTTP by FN and by TL/TT/TN. Also reports the start time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { SqliteJournalStore } from '../src/register/journal/sqlite/sqlite-store.js';
import { GENESIS, chainHash } from '../src/register/journal/chain.js';
import type { JournalRecord, RegisterState } from '../src/register/journal/types.js';
import { initialState } from '../src/register/registers.js';
import { loadOrCreateSigner } from '../src/register/security/signer.js';
import { entryArgs, freePort, startServer, stopServer, waitReady } from './proc.js';
import { percentile } from './load.js';

const TERMINALS = 10;

function receipt(sq: number, tt: number, tn: number, d: string): string {
  const cents = 100 + (sq % 5000);
  const amt = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return JSON.stringify({
    _: 'Tra', SQ: String(sq), RN: 'def', TS: d, BC: 'sale',
    ESR: {
      D: d, TL: '1', TT: String(tt), TN: String(tn), T: amt,
      PosA: [{ _: 'Pos', PN: '1', Dsc: `Article ${sq % 997}`, TaxG: 'A', Qty: '1', Pri: amt, Amt: amt }],
      PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: amt }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20.00', Amt: amt }],
    },
    Fis: { D: d, FN: String(sq) },
  });
}

export interface FindBenchResult {
  lines: string[];
  byFnP50: number;
  byFnP99: number;
  byTnP50: number;
  byTnP99: number;
}

export async function runFindBench(repoRoot: string, serviceEntry: string, records: number, lookups: number): Promise<FindBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'efr-bench-find-'));
  const lines: string[] = [];
  try {
    const t0 = performance.now();
    const store = new SqliteJournalStore(join(dir, 'journal', 'journal.sqlite'), { nosync: true });
    // the signer file makes the data folder a complete instance; generated records carry no signature
    loadOrCreateSigner(dir);
    const rid = await store.createRegister('def', initialState('def'));
    const state: RegisterState = { ...initialState('def'), rid };
    let prev = GENESIS;
    const start = new Date(2026, 9, 1, 8, 0, 0).getTime();
    const tnOf = new Array<number>(TERMINALS + 1).fill(0);
    const batchSize = 10_000;
    for (let from = 1; from <= records; from += batchSize) {
      const batch: JournalRecord[] = [];
      for (let sq = from; sq < Math.min(from + batchSize, records + 1); sq++) {
        const tt = (sq % TERMINALS) + 1;
        tnOf[tt] = (tnOf[tt] ?? 0) + 1;
        const date = new Date(start + sq * 2_000);
        const p2 = (n: number): string => String(n).padStart(2, '0');
        const d = `${date.getFullYear()}-${p2(date.getMonth() + 1)}-${p2(date.getDate())}T${p2(date.getHours())}:${p2(date.getMinutes())}:${p2(date.getSeconds())}`;
        const data = receipt(sq, tt, tnOf[tt] as number, d);
        const hash = chainHash(prev, data);
        prev = hash.toString('hex');
        batch.push({ rid, sq, type: 'Tra', d, tl: '1', tt: String(tt), tn: String(tnOf[tt]), fn: String(sq), t: '1.00', bc: 'sale', data, hash, sig: Buffer.alloc(64) });
      }
      const last = batch[batch.length - 1] as JournalRecord;
      state.sq = last.sq;
      state.hash = prev;
      state.fn = last.sq;
      state.last = { Tra: last.sq };
      state.tn = Object.fromEntries(tnOf.map((n, tt) => [`1/${tt}`, { y: 2026, n }]).slice(1));
      const { rid: _r, ...persisted } = state;
      await store.append(batch, new Map([[rid, JSON.stringify(persisted)]]));
    }
    await store.close();
    const genSeconds = (performance.now() - t0) / 1000;
    lines.push(`/find journal: ${records} records generated through the store in ${genSeconds.toFixed(1)} s (signatures not computed: lookups do not read them)`);

    const port = await freePort();
    const started = performance.now();
    const sp = startServer('EFR service (find)', [...entryArgs(serviceEntry), 'serve', '--port', String(port), '--data', dir], repoRoot, port);
    try {
      await waitReady(sp, 60_000, 10);
      const startMs = performance.now() - started;
      const time = async (path: string, check: (body: string) => boolean): Promise<number> => {
        const t = performance.now();
        const res = await request(`${sp.baseUrl}${path}`);
        const body = await res.body.text();
        const ms = performance.now() - t;
        if (res.statusCode !== 200 || !check(body)) throw new Error(`${path}: HTTP ${res.statusCode} ${body.slice(0, 200)}`);
        return ms;
      };
      const byFn: number[] = [];
      const byTn: number[] = [];
      for (let i = 0; i < 20; i++) await time(`/find?fn=${1 + i}`, () => true); // warm-up
      for (let i = 0; i < lookups; i++) {
        const sq = 1 + Math.floor(Math.random() * records);
        byFn.push(await time(`/find?fn=${sq}`, (b) => b.includes(`"SQ":${sq},`)));
        const tt = (sq % TERMINALS) + 1;
        // the TN of that record: count of records of that terminal up to sq
        const tn = Math.floor((sq - (tt - 1)) / TERMINALS) + (tt - 1 === 0 ? 0 : 1);
        byTn.push(await time(`/find?TL=1&TT=${tt}&TN=${tn}`, (b) => b.includes(`"SQ":${sq},`)));
      }
      const sorted = (a: number[]): Float64Array => Float64Array.from(a).sort();
      const f = sorted(byFn);
      const t = sorted(byTn);
      const result: FindBenchResult = {
        lines,
        byFnP50: percentile(f, 50),
        byFnP99: percentile(f, 99),
        byTnP50: percentile(t, 50),
        byTnP99: percentile(t, 99),
      };
      const ok = (ms: number): string => (ms < 20 ? 'ok' : 'MISS');
      lines.push(`/find by FN over HTTP (${lookups} random lookups): p50 ${result.byFnP50.toFixed(2)} ms, p99 ${result.byFnP99.toFixed(2)} ms [bar <20 ms: ${ok(result.byFnP99)}]`);
      lines.push(`/find by TL/TT/TN over HTTP (${lookups} random lookups): p50 ${result.byTnP50.toFixed(2)} ms, p99 ${result.byTnP99.toFixed(2)} ms [bar <20 ms: ${ok(result.byTnP99)}]`);
      lines.push(`start with ${records} records: /state answered ${startMs.toFixed(0)} ms after the process was spawned (${serviceEntry.endsWith('.ts') ? 'includes loading tsx' : 'the build, as npm start runs it'}) [bar <1000 ms: ${startMs < 1000 ? 'ok' : 'MISS'}]`);
      return result;
    } finally {
      await stopServer(sp);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
