/** Test harness: a real service on a free port with a temporary data folder, and HTTP helpers. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openPromise } from 'yauzl';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Dispatcher, request } from 'undici';
import type { Clock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { ZERO, add, fmt, parseDec } from '../src/shared/money.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function tempDir(prefix = 'efr-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestService extends RunningService {
  dataDir: string;
  stop(): Promise<void>;
}

export async function startTestService(options: { clock?: Clock; env?: NodeJS.ProcessEnv; dataDir?: string } = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? tempDir();
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, log: false, ...(options.clock ? { clock: options.clock } : {}), env: options.env ?? {} });
  return {
    ...service,
    dataDir,
    async stop() {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test access to parsed JSON
  json: any;
}

export async function http(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: string | object, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  let payload: string | undefined;
  const h: Record<string, string> = { ...headers };
  if (typeof body === 'string') payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  return answerOf(await request(url, { method, body: payload, headers: h }));
}

/** The parsed JSON of a body, undefined when it is none. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Status, content type, text and (when it is JSON) the parsed body of an undici response. */
export async function answerOf(res: Dispatcher.ResponseData): Promise<HttpAnswer> {
  const text = await res.body.text();
  return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text, json: jsonOf(text) };
}

export const post = (url: string, body?: string | object, headers?: Record<string, string>): Promise<HttpAnswer> => http('POST', url, body, headers);
export const get = (url: string, headers?: Record<string, string>): Promise<HttpAnswer> => http('GET', url, undefined, headers);

/** A simple valid sale: positions by tax letter A (20 %) and B (10 %), paid cash, TaxA generated. */
export function sale(extra: Record<string, unknown> = {}, positions: Array<[string, string]> = [['A', '3.50'], ['B', '1.20']]): { Tra: { ESR: Record<string, unknown> } } {
  // deliberately malformed amounts (tests of refusals) count as zero here
  const total = positions.reduce((a, [, amt]) => add(a, parseDec(amt) ?? ZERO), ZERO);
  const t = fmt(total, 2);
  return {
    Tra: {
      ESR: {
        TL: '1',
        TT: '1',
        PosA: positions.map(([g, amt], i) => ({ _: 'Pos', PN: String(i + 1), Dsc: `Article ${i + 1}`, TaxG: g, Amt: amt })),
        PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: t }],
        ...extra,
      },
    },
  };
}

/** The service as a separate process (`node --import tsx src/cli.ts serve`), for kill and restart tests. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

export async function spawnService(dataDir: string, port: number): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited: ${output}`);
    try {
      const r = await get(`${url}/state`);
      if (r.status === 200) return { child, url, exited };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The files of a zip (as UTF-8 text), also written into `dir` (for tools that read files). */
export async function unzip(zip: Buffer, dir: string): Promise<Record<string, string>> {
  const path = join(dir, 'in.zip');
  writeFileSync(path, zip);
  const z = await openPromise(path, { lazyEntries: true, autoClose: false });
  const out: Record<string, string> = {};
  try {
    for await (const e of z.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const c of await z.openReadStreamPromise(e)) chunks.push(c as Buffer);
      const data = Buffer.concat(chunks);
      const target = join(dir, e.fileName);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data);
      out[e.fileName] = data.toString('utf8');
    }
  } finally {
    z.close();
  }
  return out;
}

/** Polls `fn` until it answers something other than undefined; fails naming `what` after `ms`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
