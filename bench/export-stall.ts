// Event-loop stall of the SAF-T Cash Register exports (npm run bench:export): a register's journal is
// written to a real SQLite journal, then exported (Norway through its GET /export handler, Denmark through
// its writer) while the event loop is watched. The longest stall is what a request arriving during an
// export waits at most; the tests prove the export yields every 500 records, this measures what that is
// worth on this machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ZipFile } from 'yazl';
import { danishSaftXmlChunks } from '../src/register/fiscal/dk/saft-xml.js';
import type { ExportRequest } from '../src/register/fiscal/module.js';
import { exportSaft } from '../src/register/fiscal/no/export.js';
import { readRecords, streamIntoZip } from '../src/register/fiscal/saft-cash-register/export-stream.js';
import type { SaftScan } from '../src/register/fiscal/saft-cash-register/passes.js';
import { previousSignatureLine } from '../src/register/fiscal/saft-cash-register/previous-signature.js';
import { CFG, bigJournal, journalStore } from '../test/saft-journal.js';

const HELP = `Event-loop stall of the SAF-T Cash Register exports (Norway, Denmark).

usage: npm run bench:export [-- --records N] [-- --runs R] [-- --bar-ms B]
       node --import tsx bench/export-stall.ts [--records N] [--runs R] [--bar-ms B] [--help]

  --records N   journal records (default 10000; days of 200 records, each day closed by a Z report)
  --runs R      measured exports per country, median reported (default 3; one warm-up export before)
  --bar-ms B    the bar for the longest stall, in ms (default 100)
  --help        this text

Reported per country: the export's time, the zip's size, and the longest event-loop stall: the larger of
the event-loop delay histogram's maximum (monitorEventLoopDelay, 10 ms resolution) and the worst lateness
of a 10 ms interval timer; ok when the median run's stall is below the bar, else MISS. Exit code 0 even
when the bar is missed; non-zero when an export fails.`;

interface Run {
  ms: number;
  bytes: number;
  stallMs: number;
}

async function drain(stream: NodeJS.ReadableStream): Promise<number> {
  let bytes = 0;
  for await (const c of stream) bytes += (c as Buffer).length;
  return bytes;
}

/** Runs `work` (which returns a byte count) while watching the event loop. */
async function watched(work: () => Promise<number>): Promise<Run> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  let last = performance.now();
  let lateMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lateMs = Math.max(lateMs, now - last - 10);
    last = now;
  }, 10);
  h.enable();
  const t0 = performance.now();
  try {
    const bytes = await work();
    return { ms: performance.now() - t0, bytes, stallMs: Math.max(h.max / 1e6, lateMs) };
  } finally {
    h.disable();
    clearInterval(timer);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { records: { type: 'string' }, runs: { type: 'string' }, 'bar-ms': { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const records = Number(values.records ?? 10_000);
  const runs = Number(values.runs ?? 3);
  const barMs = Number(values['bar-ms'] ?? 100);
  if (!Number.isSafeInteger(records) || records < 200 || records % 200 !== 0 || !Number.isSafeInteger(runs) || runs < 1 || !(barMs > 0)) {
    throw new Error('--records must be a multiple of 200, --runs at least 1, --bar-ms above 0');
  }
  const dir = mkdtempSync(join(tmpdir(), 'efr-bench-export-'));
  const { records: journal } = bigJournal(records / 200, 200);
  const { store, rid } = await journalStore(dir, journal);
  try {
    const created = new Date(2024, 3, 10, 12, 0, 0);
    const ctx = { store, clock: { now: () => created }, dataDir: dir, version: 'bench' };
    const req = { ctx, reg: { state: { rid, rn: 'R1', cfg: CFG.Cfg } }, period: {}, query: {}, requireLocalOrPassword: () => undefined } as unknown as ExportRequest;
    const exports: Array<[string, () => Promise<number>]> = [
      ['NO export (GET /export handler)', async () => drain((await exportSaft(req)).body as NodeJS.ReadableStream)],
      ['DK writer (same passes)', async () => {
        let scan: SaftScan | undefined;
        const chunks = danishSaftXmlChunks({
          records: () => readRecords(store.range(rid, 1)), cfg: CFG, registerId: '1', period: {}, created,
          software: { name: 'efr', version: 'bench', company: 'efr' }, certificates: { '0A': '-----BEGIN CERTIFICATE-----\nMIIBbench\n-----END CERTIFICATE-----' },
          onScanned: (s) => { scan = s; },
        });
        const zip = new ZipFile();
        await streamIntoZip(zip, chunks, 'saft.xml');
        const line = previousSignatureLine(scan);
        if (line) zip.addBuffer(Buffer.from(line), 'previous-signature.txt');
        zip.end();
        return drain(zip.outputStream);
      }],
    ];
    console.log(`SAF-T export stall: ${records.toLocaleString('en')} records (${records / 200} Z reports), ${runs} run(s) after a warm-up, bar ${barMs} ms; node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const [name, work] of exports) {
      await work();
      const measured: Run[] = [];
      for (let i = 0; i < runs; i += 1) measured.push(await watched(work));
      const stall = median(measured.map((r) => r.stallMs));
      console.log(`${name}: ${Math.round(median(measured.map((r) => r.ms)))} ms, zip ${(median(measured.map((r) => r.bytes)) / 1e6).toFixed(1)} MB, longest event-loop stall ${stall.toFixed(0)} ms (runs: ${measured.map((r) => r.stallMs.toFixed(0)).join(', ')}) ${stall < barMs ? 'ok' : 'MISS'} (bar ${barMs} ms)`);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack ?? e.message : e);
  process.exit(1);
});
