// Load bench of POST /register (npm run bench). It prints each bar (README, "Performance") with ok/MISS; see `--help`.
import { mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { median, runLoad, type LoadResult } from './load.js';
import { describeExit, entryArgs, freePort, httpAgent, indent, startServer, stopServer, waitReady, type ServerProcess } from './proc.js';
import { runFindBench } from './find.js';
import { makePool, type PoolReceipt } from './receipts.js';

const HELP = `Load bench of POST /register: the EFR service against a naive durable reference.

usage: npm run bench [-- --quick] [-- --reference-only]
       node --import tsx bench/run.ts [--quick] [--reference-only] [--help]

  --quick            1 run of 2 s per scenario and server (smoke test), 1 s warm-up
  --reference-only   load only the naive reference (no EFR service started)
  --help             this text

environment:
  BENCH_SECONDS         seconds per measured run (default 5, --quick 2)
  BENCH_WARMUP_SECONDS  warm-up seconds per scenario and server (default 2, --quick 1)
  BENCH_RUNS            runs per scenario and server, median reported (default 3, --quick 1)
  BENCH_POOL            number of pre-generated receipts (default 500, half JSON, half XML)
  BENCH_SEED            seed of the receipt pool (default 20240601)
  BENCH_SERVICE_ENTRY   service entry script, relative to the repo root (default bin/efr.js, the build
                        that npm start runs; npm run bench builds it first; a .ts entry runs under tsx)

Scenarios: "single POS" (1 connection, sequential) and "32 POS" (32 connections), each with the JSON
receipts of the pool and again with its XML receipts (the bars are checked for each format), each against the
service (node bin/efr.js serve --port P --data D, fresh temp data folder) and against
bench/naive-reference.ts (node:http + ECDSA P-256 signature + one fdatasync per request).
Reported: median req/s (2xx per second), p50 and p99 latency of 2xx answers in ms, non-2xx count,
journal bytes per receipt. Exit code 0 even when bars are missed; non-zero when a server fails to
start, the checks before/after the load get anything but 200 with RC OK, or the service dies.`;

const BARS = { singleP50Ms: 2, multiReqPerSec: 3000, multiP99Ms: 25, ratio: 1.5, journalBytes: 2000 } as const;

class BenchFailure extends Error {}

interface Options {
  quick: boolean;
  referenceOnly: boolean;
  runs: number;
  seconds: number;
  warmupSeconds: number;
  poolSize: number;
  seed: number;
  serviceEntry: string;
}

function envNumber(name: string, fallback: number, integer: boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new BenchFailure(`${name}=${raw} is not a positive ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

function readOptions(): Options | undefined {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, 'reference-only': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
  });
  if (values.help === true) return undefined;
  const quick = values.quick === true;
  return {
    quick,
    referenceOnly: values['reference-only'] === true,
    runs: envNumber('BENCH_RUNS', quick ? 1 : 3, true),
    seconds: envNumber('BENCH_SECONDS', quick ? 2 : 5, false),
    warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', quick ? 1 : 2, false),
    poolSize: envNumber('BENCH_POOL', 500, true),
    seed: envNumber('BENCH_SEED', 20240601, true),
    serviceEntry: process.env['BENCH_SERVICE_ENTRY'] ?? 'bin/efr.js',
  };
}

// ---------------------------------------------------------------- answers of the checks

interface Answer {
  status: number;
  body: string;
  sq: number | undefined;
  rc: string | undefined;
  errorCode: string | undefined;
}

function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(asText).filter((x) => x !== undefined).join(',');
  if (typeof v === 'object' && v !== null) return asText(field(v, '#text') ?? field(v, '_'));
  return undefined;
}

function parseTraC(body: string): Pick<Answer, 'sq' | 'rc' | 'errorCode'> {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch {
      return { sq: undefined, rc: undefined, errorCode: undefined };
    }
    const traC = field(doc, 'TraC');
    const result = field(traC, 'Result');
    const sqText = asText(field(traC, 'SQ'));
    return { sq: sqText !== undefined && /^\d+$/.test(sqText) ? Number(sqText) : undefined, rc: asText(field(result, 'RC')), errorCode: asText(field(result, 'ErrorCode')) };
  }
  const sq = /<TraC\b[^>]*?\sSQ="(\d+)"/.exec(trimmed)?.[1];
  const rc = /<Result\b[^>]*?\sRC="([^"]*)"/.exec(trimmed)?.[1];
  const errorCode = /<ErrorCode>([^<]*)<\/ErrorCode>/.exec(trimmed)?.[1];
  return { sq: sq === undefined ? undefined : Number(sq), rc, errorCode };
}

async function post(baseUrl: string, r: PoolReceipt): Promise<Answer> {
  const res = await request(`${baseUrl}/register`, {
    method: 'POST',
    body: r.body,
    headers: { 'content-type': r.contentType },
    dispatcher: httpAgent,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const body = await res.body.text();
  return { status: res.statusCode, body, ...parseTraC(body) };
}

function failAnswer(what: string, r: PoolReceipt, a: Answer, why: string): never {
  throw new BenchFailure(
    `${what}: ${why}\n  request (${r.contentType}, ${r.body.length} B): ${r.body.toString('utf8').slice(0, 400)}${r.body.length > 400 ? '...' : ''}\n` +
      `  answer HTTP ${a.status}:\n${indent(a.body.slice(0, 4000), 30)}`,
  );
}

/** A registration the bench relies on: HTTP 200, RC OK, integer SQ, no #DUPLICATE marker. */
async function checkedRegistration(sp: ServerProcess, r: PoolReceipt, what: string): Promise<Answer> {
  let a: Answer;
  try {
    a = await post(sp.baseUrl, r);
  } catch (err) {
    throw new BenchFailure(`${what}: POST ${sp.baseUrl}/register failed: ${err instanceof Error ? err.message : String(err)}\n${indent(sp.outputTail())}`);
  }
  if (a.status !== 200) failAnswer(what, r, a, `expected HTTP 200, got ${a.status}`);
  if (a.rc !== 'OK') failAnswer(what, r, a, `expected Result RC "OK", got ${a.rc === undefined ? 'no RC' : `"${a.rc}"`}`);
  if (a.sq === undefined) failAnswer(what, r, a, 'the answer carries no integer TraC SQ');
  if (a.errorCode !== undefined && /DUPLICATE/i.test(a.errorCode)) {
    failAnswer(what, r, a, 'answered as a duplicate: the bench resends pool receipts without TN and needs each one registered anew');
  }
  return a;
}

// ---------------------------------------------------------------- data folder size

interface FolderSize {
  total: number;
  sqlite: number;
  files: { path: string; size: number }[];
}

const SQLITE_FILE = /(\.(db|sqlite|sqlite3|db3)(-wal|-shm|-journal)?|-wal|-shm)$/i;

function folderSize(root: string): FolderSize {
  const out: FolderSize = { total: 0, sqlite: 0, files: [] };
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) {
        const size = statSync(p).size;
        out.total += size;
        if (SQLITE_FILE.test(entry.name)) out.sqlite += size;
        out.files.push({ path: relative(root, p), size });
      }
    }
  };
  walk(root);
  out.files.sort((a, b) => b.size - a.size);
  return out;
}

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

// ---------------------------------------------------------------- main

type ServerName = 'efr' | 'reference';

interface Scenario {
  name: string;
  connections: number;
  /** the bodies this scenario sends: the same figures and bars for each format */
  kind: 'json' | 'xml';
}

const KINDS = ['json', 'xml'] as const;
const SCENARIOS: readonly Scenario[] = KINDS.flatMap((kind) => [
  { name: `single POS ${kind.toUpperCase()}`, connections: 1, kind },
  { name: `32 POS ${kind.toUpperCase()}`, connections: 32, kind },
]);

interface Row {
  scenario: Scenario;
  server: ServerName;
  runs: LoadResult[];
}

function fmt(n: number, digits: number): string {
  return Number.isNaN(n) ? '-' : n.toFixed(digits);
}

function rowMedians(row: Row): { reqPerSec: number; p50: number; p99: number; non2xx: number; errors: number } {
  return {
    reqPerSec: median(row.runs.map((r) => r.reqPerSec)),
    p50: median(row.runs.map((r) => r.p50)),
    p99: median(row.runs.map((r) => r.p99)),
    non2xx: row.runs.reduce((acc, r) => acc + r.non2xx, 0),
    errors: row.runs.reduce((acc, r) => acc + r.errors, 0),
  };
}

const flagged = (row: Row | undefined): boolean => row !== undefined && row.runs.some((r) => r.non2xx > 0 || r.errors > 0);

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const opts = readOptions();
  if (opts === undefined) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const repoRoot = fileURLToPath(new URL('..', import.meta.url));
  const pool = makePool(opts.poolSize, opts.seed);
  const jsonPool = pool.filter((r) => r.kind === 'json');
  const xmlPool = pool.filter((r) => r.kind === 'xml');
  const firstJson = jsonPool[0];
  const firstXml = xmlPool[0];
  if (firstJson === undefined || firstXml === undefined) throw new BenchFailure('BENCH_POOL must be at least 2 (one JSON and one XML receipt)');
  const meanSize = (rs: readonly PoolReceipt[]): number => rs.reduce((acc, r) => acc + r.body.length, 0) / rs.length;

  const [l1, l5] = loadavg();
  log(
    `EFR bench: node ${process.version}, ${availableParallelism()} cores, load average ${fmt(l1 ?? Number.NaN, 2)}/${fmt(l5 ?? Number.NaN, 2)}; ` +
      `${opts.runs} run(s) x ${opts.seconds} s per scenario and server after ${opts.warmupSeconds} s warm-up; ` +
      `pool ${pool.length} receipts (${jsonPool.length} JSON, ${xmlPool.length} XML; mean body ${meanSize(pool).toFixed(0)} B)`,
  );

  const RAM_FILESYSTEMS = new Set([0x01021994 /* tmpfs */, 0x858458f6 /* ramfs */]);
  if (RAM_FILESYSTEMS.has(statfsSync(tmpdir()).type)) {
    log(`WARNING: ${tmpdir()} is in memory (tmpfs): fsync costs nothing there, so neither figure is durable; set TMPDIR to a folder on disk`);
  }

  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  const cleanup = async (): Promise<void> => {
    await Promise.all(servers.map((s) => stopServer(s, 5000)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await httpAgent.close();
  };
  const onSignal = (): void => {
    log('interrupted: stopping servers and removing temp folders');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Last resort when the bench dies abruptly (uncaught error, closed output pipe): no orphans, no temp folders.
  process.stderr.on('error', () => undefined);
  process.stdout.on('error', () => undefined);
  process.once('exit', () => {
    for (const s of servers) if (s.exit === undefined) s.child.kill('SIGTERM');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  let exitCode = 0;
  try {
    // -- start both servers, each in its own process with a fresh temp folder
    const refDir = mkdtempSync(join(tmpdir(), 'efr-bench-ref-'));
    dirs.push(refDir);
    const refPort = await freePort();
    const reference = startServer('naive reference', ['--import', 'tsx', 'bench/naive-reference.ts', '--port', String(refPort), '--data', refDir], repoRoot, refPort);
    servers.push(reference);

    let efr: ServerProcess | undefined;
    let efrDir: string | undefined;
    if (!opts.referenceOnly) {
      efrDir = mkdtempSync(join(tmpdir(), 'efr-bench-data-'));
      dirs.push(efrDir);
      const port = await freePort();
      efr = startServer('EFR service', [...entryArgs(opts.serviceEntry), 'serve', '--port', String(port), '--data', efrDir], repoRoot, port);
      servers.push(efr);
    }
    const ready = (sp: ServerProcess): Promise<number> =>
      waitReady(sp).catch((err: unknown) => {
        throw new BenchFailure(err instanceof Error ? err.message : String(err));
      });
    const [refReady, efrReady] = await Promise.all([ready(reference), efr === undefined ? Promise.resolve(Number.NaN) : ready(efr)]);
    log(`ready: reference on :${reference.port} after ${refReady.toFixed(0)} ms` + (efr !== undefined ? `, EFR service on :${efr.port} after ${efrReady.toFixed(0)} ms (data ${efrDir ?? ''})` : ''));

    // -- checks before measuring: a broken service must never produce pretty numbers
    let efrOk = 0;
    if (efr !== undefined) {
      const a = await checkedRegistration(efr, firstJson, 'check JSON receipt');
      const b = await checkedRegistration(efr, firstXml, 'check XML receipt');
      const c = await checkedRegistration(efr, firstJson, 'check the same JSON receipt again (no TN, so a new registration)');
      efrOk += 3;
      if (!((a.sq ?? 0) < (b.sq ?? 0) && (b.sq ?? 0) < (c.sq ?? 0))) {
        throw new BenchFailure(`check: SQ does not increase over three registrations (${String(a.sq)}, ${String(b.sq)}, ${String(c.sq)})`);
      }
      log(`checks: EFR service answered 200 RC OK for JSON (SQ ${String(a.sq)}), XML (SQ ${String(b.sq)}) and a resent receipt (SQ ${String(c.sq)})`);
    }
    for (const r of [firstJson, firstXml]) {
      const a = await post(reference.baseUrl, r);
      if (a.status !== 200) failAnswer(`check reference ${r.kind}`, r, a, `expected HTTP 200, got ${a.status}`);
    }

    // -- load: per scenario warm up each server, then alternate the servers run by run
    const targets: { name: ServerName; sp: ServerProcess }[] = efr === undefined ? [{ name: 'reference', sp: reference }] : [
      { name: 'efr', sp: efr },
      { name: 'reference', sp: reference },
    ];
    const rows: Row[] = [];
    const ensureAlive = (sp: ServerProcess): void => {
      if (sp.exit !== undefined) throw new BenchFailure(`${sp.name} died under load (${describeExit(sp.exit)}); its output:\n${indent(sp.outputTail())}`);
    };
    for (const scenario of SCENARIOS) {
      const bodies = scenario.kind === 'json' ? jsonPool : xmlPool;
      for (const t of targets) {
        const w = await runLoad(t.sp.baseUrl, bodies, scenario.connections, opts.warmupSeconds);
        ensureAlive(t.sp);
        if (t.name === 'efr') efrOk += w.ok;
        log(`${scenario.name.padEnd(15)} ${t.name.padEnd(9)} warm-up: ${fmt(w.reqPerSec, 0)} req/s, non2xx ${w.non2xx}, errors ${w.errors}`);
      }
      const byServer = new Map<ServerName, Row>();
      for (const t of targets) {
        const row: Row = { scenario, server: t.name, runs: [] };
        byServer.set(t.name, row);
        rows.push(row);
      }
      for (let i = 0; i < opts.runs; i++) {
        const order = i % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          const r = await runLoad(t.sp.baseUrl, bodies, scenario.connections, opts.seconds);
          ensureAlive(t.sp);
          if (t.name === 'efr') efrOk += r.ok;
          byServer.get(t.name)?.runs.push(r);
          const codes = Object.entries(r.statusCodes).filter(([c]) => !c.startsWith('2')).map(([c, n]) => `${c}x${n}`).join(' ');
          log(
            `${scenario.name.padEnd(15)} ${t.name.padEnd(9)} run ${i + 1}/${opts.runs}: ${fmt(r.reqPerSec, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, ` +
              `non2xx ${r.non2xx}${codes ? ` (${codes})` : ''}, errors ${r.errors}${r.non2xx > 0 || r.errors > 0 ? '  <- FLAGGED' : ''}`,
          );
        }
      }
    }

    // -- after the load: one more checked registration gives the journal's record count, then stop the service
    let journalLine = 'journal bytes per receipt: - (no EFR service in this run)';
    let journalPerReceipt = Number.NaN;
    let lastSq: number | undefined;
    if (efr !== undefined && efrDir !== undefined) {
      const last = await checkedRegistration(efr, firstXml, 'check after the load');
      efrOk += 1;
      lastSq = last.sq;
      const stopped = await stopServer(efr);
      if (stopped.forced) log(`warning: the EFR service did not exit within 10 s of SIGTERM and was killed`);
      else if (stopped.exit.code !== 0) log(`warning: the EFR service exited with ${describeExit(stopped.exit)} after SIGTERM`);
      const size = folderSize(efrDir);
      const receipts = lastSq ?? efrOk;
      const journalBytes = size.sqlite > 0 ? size.sqlite : size.total;
      journalPerReceipt = journalBytes / receipts;
      const top = size.files.slice(0, 4).map((f) => `${f.path} ${bytes(f.size)}`).join(', ');
      journalLine =
        `journal bytes per receipt: ${journalPerReceipt.toFixed(0)} B (${size.sqlite > 0 ? 'SQLite files' : 'no SQLite file found; whole data folder'} ${bytes(journalBytes)} / ${receipts} receipts); ` +
        `whole data folder ${(size.total / receipts).toFixed(0)} B per receipt (${size.files.length} files: ${top})\n` +
        `mean request body: ${meanSize(pool).toFixed(0)} B (JSON ${meanSize(jsonPool).toFixed(0)} B, XML ${meanSize(xmlPool).toFixed(0)} B)`;
      if (lastSq !== undefined && lastSq < efrOk) {
        journalLine += `\nWARNING: last SQ ${lastSq} is below the ${efrOk} answers with 2xx: some answers were not new registrations`;
      }
    }

    // -- table
    const lines: string[] = [];
    lines.push(`${'scenario'.padEnd(17)}${'server'.padEnd(11)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'non2xx'.padStart(8)}${'errors'.padStart(8)}`);
    for (const row of rows) {
      const m = rowMedians(row);
      lines.push(
        `${row.scenario.name.padEnd(17)}${row.server.padEnd(11)}${fmt(m.reqPerSec, 0).padStart(8)}${fmt(m.p50, 2).padStart(9)}${fmt(m.p99, 2).padStart(9)}` +
          `${String(m.non2xx).padStart(8)}${String(m.errors).padStart(8)}${flagged(row) ? '  FLAGGED' : ''}`,
      );
    }
    const find = (scenario: string, server: ServerName): Row | undefined => rows.find((r) => r.scenario.name === scenario && r.server === server);
    for (const kind of KINDS) {
      const format = kind.toUpperCase();
      const efrSingle = find(`single POS ${format}`, 'efr');
      const efrMulti = find(`32 POS ${format}`, 'efr');
      const refMulti = find(`32 POS ${format}`, 'reference');
      if (efrSingle === undefined || efrMulti === undefined || refMulti === undefined) continue;
      const single = rowMedians(efrSingle);
      const multi = rowMedians(efrMulti);
      const ratio = multi.reqPerSec / rowMedians(refMulti).reqPerSec;
      const bar = (pass: boolean, rowsUsed: readonly (Row | undefined)[]): string => (rowsUsed.some(flagged) ? 'FLAGGED' : pass ? 'ok' : 'MISS');
      lines.push(
        `${format}: ratio efr/reference (32 POS): ${fmt(ratio, 2)}x   bars: single p50<${BARS.singleP50Ms}ms [${bar(single.p50 < BARS.singleP50Ms, [efrSingle])}], ` +
          `32 POS >=${BARS.multiReqPerSec} req/s [${bar(multi.reqPerSec >= BARS.multiReqPerSec, [efrMulti])}], ` +
          `p99<${BARS.multiP99Ms}ms [${bar(multi.p99 < BARS.multiP99Ms, [efrMulti])}], ` +
          `>=${BARS.ratio}x ref [${bar(ratio >= BARS.ratio, [efrMulti, refMulti])}]`,
      );
    }
    lines.push(`journal<${BARS.journalBytes}B/receipt [${journalPerReceipt < BARS.journalBytes ? 'ok' : 'MISS'}]`);
    lines.push(journalLine);
    if (rows.some(flagged)) lines.push('FLAGGED rows had non-2xx answers or connection errors during measured runs: their figures are not valid.');
    lines.push(`(medians of ${opts.runs} run(s) of ${opts.seconds} s; req/s counts 2xx answers only; latency of 2xx answers)`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    if (!opts.referenceOnly) {
      const records = Number(process.env['BENCH_FIND_RECORDS'] ?? (opts.quick ? 100_000 : 1_000_000));
      process.stdout.write(`\n/find on a journal of ${records} records (BENCH_FIND_RECORDS)...\n`);
      const find = await runFindBench(repoRoot, opts.serviceEntry, records, opts.quick ? 100 : 500);
      process.stdout.write(`${find.lines.join('\n')}\n`);
    }
  } catch (err) {
    if (!(err instanceof BenchFailure)) throw err;
    process.stderr.write(`\nBENCH FAILED: ${err.message}\n`);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const expected = err instanceof BenchFailure || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'));
    process.stderr.write(`\nBENCH FAILED: ${err instanceof Error ? (expected ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
    process.exit(1);
  },
);
