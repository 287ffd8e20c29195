/**
 * What the tests of the SAF-T Cash Register exports of every country use: counting the records read
 * between turns of the event loop, reading a zip back, xmllint against a schema with its keyrefs applied to
 * namespaced elements, and a report's fields.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPromise } from 'yauzl';
import type { JournalRecord } from '../../journal/types.js';

/** The writers give the event loop a turn at least this often (passes.ts YIELD_EVERY). */
export const YIELD_EVERY = 500;

/**
 * Runs `work` with a setImmediate loop beside it. `count` wraps a journal read so that every record read is
 * counted; at each turn of the loop the count so far is noted. A writer that yields to the event loop every
 * 500 records lets the loop turn at least that often; one that built the file in one go (the journal is read
 * without a macrotask in between) would read the whole journal without a single turn.
 */
export async function withLoopTurns<T>(work: (count: (records: AsyncIterable<JournalRecord>) => AsyncIterable<JournalRecord>) => Promise<T>): Promise<{ result: T; read: number; turns: number; mostReadWithoutTurn: number }> {
  let read = 0;
  const noted = [0];
  let running = true;
  const turn = (): void => {
    if (!running) return;
    noted.push(read);
    setImmediate(turn);
  };
  setImmediate(turn);
  async function* count(records: AsyncIterable<JournalRecord>): AsyncIterable<JournalRecord> {
    for await (const r of records) {
      read += 1;
      yield r;
    }
  }
  try {
    const result = await work(count);
    noted.push(read);
    const gaps = noted.slice(1).map((n, k) => n - (noted[k] as number));
    // a reduce, not Math.max(...gaps): a loaded machine turns the loop often, and a spread of that many overflows the stack
    return { result, read, turns: noted.length - 2, mostReadWithoutTurn: gaps.reduce((a, b) => Math.max(a, b), 0) };
  } finally {
    running = false;
  }
}

export async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function unzip(zip: Buffer, dir: string): Promise<Record<string, string>> {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(path, zip);
  const z = await openPromise(path, { lazyEntries: true, autoClose: false });
  const out: Record<string, string> = {};
  try {
    for await (const e of z.eachEntry()) out[e.fileName] = (await drain(await z.openReadStreamPromise(e))).toString('utf8');
  } finally {
    await z.close();
  }
  return out;
}

/** xmllint against the schema and against a copy whose identity constraints match namespaced elements (keyrefs, unique basicIDs). */
export function xmllint(xml: string, xsd: string, ns: string, dir: string, env: NodeJS.ProcessEnv = process.env): { status: number | null; stderr: string } {
  const file = join(dir, 'saft.xml');
  writeFileSync(file, xml);
  const schema = readFileSync(xsd, 'utf8')
    .replace(/(<xsd:(?:selector|field) xpath=")([^"]*)"/g, (_m, head: string, path: string) =>
      `${head}${path.split('/').map((step) => (step === '.' || step === '' ? step : `n:${step}`)).join('/')}"`)
    .replace('<xsd:schema ', `<xsd:schema xmlns:n="${ns}" `);
  const keyrefs = join(dir, 'keyrefs.xsd');
  writeFileSync(keyrefs, schema);
  try {
    for (const s of [xsd, keyrefs]) {
      const r = spawnSync('xmllint', ['--nonet', '--noout', '--schema', s, file], { encoding: 'utf8', env });
      if (r.status !== 0) return { status: r.status, stderr: r.stderr.slice(0, 2000) };
    }
    return { status: 0, stderr: '' };
  } finally {
    rmSync(keyrefs, { force: true });
  }
}

export const lastReport = (xml: string): string => xml.slice(xml.lastIndexOf('<eventReport>'), xml.lastIndexOf('</eventReport>'));
export const field = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
