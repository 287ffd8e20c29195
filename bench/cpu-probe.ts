// CPU time per request of each thread of the service (and of the load generator) under load: where a
// request's CPU goes, and how busy each thread is. Less sensitive to a busy machine than req/s, which is what
// `npm run bench` reports. Usage: npm run bench:cpu -- [json|xml] [connections=32] [seconds=5]
// (needs the build: npm run build). Linux only (reads /proc).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './load.js';
import { entryArgs, freePort, startServer, stopServer, waitReady } from './proc.js';
import { makePool } from './receipts.js';

function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    const key = `${comm}#${t}`;
    out.set(key, ticks);
  }
  return out;
}

const kind = (process.argv[2] ?? 'json') as 'json' | 'xml';
const conns = Number(process.argv[3] ?? 32);
const secs = Number(process.argv[4] ?? 5);
const dir = mkdtempSync(join(tmpdir(), 'efr-cpu-'));
const port = await freePort();
const sp = startServer('efr', [...entryArgs('bin/efr.js'), 'serve', '--port', String(port), '--data', dir], process.cwd(), port);
await waitReady(sp);
const pool = makePool(500, 20240601).filter((r) => r.kind === kind);
const pid = sp.child.pid;
if (pid === undefined) throw new Error('the service did not start');
await runLoad(`http://127.0.0.1:${port}`, pool, conns, 2);
const before = threads(pid);
const acBefore = process.cpuUsage();
const r = await runLoad(`http://127.0.0.1:${port}`, pool, conns, secs);
const after = threads(pid);
const ac = process.cpuUsage(acBefore);
let total = 0;
const rows: string[] = [];
for (const [k, v] of after) {
  const d = v - (before.get(k) ?? 0);
  total += d;
  if (d > 0) rows.push(`${k.padEnd(24)} ${((d * 10 * 1000) / r.ok).toFixed(1).padStart(7)} µs/req  ${((d / 100 / r.seconds) * 100).toFixed(0)}% busy`);
}
console.log(`${kind} ${conns} conns: ${r.reqPerSec.toFixed(0)} req/s p50 ${r.p50.toFixed(2)} p99 ${r.p99.toFixed(2)} non2xx ${r.non2xx}`);
console.log(rows.join('\n'));
console.log(`load generator ${((ac.user + ac.system) / r.ok).toFixed(1)} µs/req`);
console.log(`total ${((total * 10 * 1000) / r.ok).toFixed(1)} µs/req`);
await stopServer(sp);
rmSync(dir, { recursive: true, force: true });
