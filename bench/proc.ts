// Child server processes for the bench: free port, start, wait for readiness, stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';

/** One keep-alive pool for the bench's own checks; close it at the end. */
export const httpAgent = new Agent({ connections: 4 });

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  name: string;
  port: number;
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<Exit>;
  exit: Exit | undefined;
  /** last lines the process wrote to stdout and stderr */
  outputTail(): string;
}

const OUTPUT_KEEP = 64 * 1024;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

/** The node arguments that run a service entry: a .ts file under tsx, a .js file (the build) as it is. */
export function entryArgs(entry: string): string[] {
  return entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry];
}

export function startServer(name: string, args: readonly string[], cwd: string, port: number): ServerProcess {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail += chunk.toString('utf8');
    if (tail.length > OUTPUT_KEEP) tail = tail.slice(tail.length - OUTPUT_KEEP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const sp: ServerProcess = {
    name,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    exit: undefined,
    exited: new Promise<Exit>((resolve) => {
      child.once('error', (err) => {
        keep(Buffer.from(`\n[bench] spawn error: ${err.message}\n`));
        sp.exit = { code: -1, signal: null };
        resolve(sp.exit);
      });
      child.once('exit', (code, signal) => {
        sp.exit = { code, signal };
        resolve(sp.exit);
      });
    }),
    outputTail: () => tail,
  };
  return sp;
}

export function describeExit(e: Exit): string {
  return e.signal !== null ? `signal ${e.signal}` : `exit code ${String(e.code)}`;
}

export function indent(text: string, lines = 40): string {
  if (text.trim() === '') return '  | (no output)';
  const all = text.trimEnd().split('\n');
  const shown = all.slice(-lines);
  return (all.length > lines ? `  ... (${all.length - lines} earlier lines)\n` : '') + shown.map((l) => `  | ${l}`).join('\n');
}

/** Polls GET /state every intervalMs until it answers 200; throws after timeoutMs or if the process exits. */
export async function waitReady(sp: ServerProcess, timeoutMs = 20_000, intervalMs = 50): Promise<number> {
  const start = performance.now();
  let last = 'no answer yet';
  for (;;) {
    if (sp.exit !== undefined) {
      throw new Error(`${sp.name} exited (${describeExit(sp.exit)}) before answering GET /state; its output:\n${indent(sp.outputTail())}`);
    }
    try {
      const res = await request(`${sp.baseUrl}/state`, { method: 'GET', dispatcher: httpAgent, headersTimeout: 2000, bodyTimeout: 2000 });
      const text = await res.body.text();
      if (res.statusCode === 200) return performance.now() - start;
      last = `HTTP ${res.statusCode}: ${text.slice(0, 300)}`;
    } catch (err) {
      last = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    const elapsed = performance.now() - start;
    if (elapsed >= timeoutMs) {
      throw new Error(
        `${sp.name} did not answer GET ${sp.baseUrl}/state with 200 within ${timeoutMs / 1000} s (last: ${last}); its output:\n${indent(sp.outputTail())}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** SIGTERM, wait for exit; SIGKILL after graceMs. */
export async function stopServer(sp: ServerProcess, graceMs = 10_000): Promise<{ exit: Exit; forced: boolean }> {
  if (sp.exit !== undefined) return { exit: sp.exit, forced: false };
  sp.child.kill('SIGTERM');
  const timer = sleep(graceMs, 'timeout' as const, { ref: false });
  const first = await Promise.race([sp.exited, timer]);
  if (first !== 'timeout') return { exit: first, forced: false };
  sp.child.kill('SIGKILL');
  return { exit: await sp.exited, forced: true };
}
