/**
 * The two-pass streaming engine of the SAF-T Cash Register exports: a writer (PassWriter) is run over a
 * register's journal read twice, first to scan, then to write, yielding to the event loop as it goes and
 * handing its text over in chunks.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Obj } from '../../codec/index.js';

/** What the first pass learned that the export needs besides the XML (e.g. for previous-signature.txt). */
export interface SaftScan {
  /** the cashregister's registerID in the file */
  registerId: string;
  /** the signed cash transaction before the first exported one, when that one is not nr 1 */
  previous?: { nr: string; signature: string };
  /** number of cashtransactions and events written */
  transactions: number;
  events: number;
}

/**
 * A SAF-T writer in passes over the same records (each pass from the register's first record, in SQ order):
 * `scan` every record (codes, employees, rates, period bounds and the X/Z report figures, kept as it goes),
 * `endScan`, then `head` (header, company, basics ... up to registerID), `event` and `transaction` for every
 * record, `tail`. The events go to the main text (`take`), the cashtransactions to their own (`takeTransactions`):
 * the schema wants every event before the first cashtransaction.
 */
export interface PassWriter {
  scan(r: Obj, i: number): void;
  endScan(): SaftScan;
  /** the index of the last record in the period (the writing pass stops after it) */
  readonly lastIndex: number;
  head(): void;
  event(r: Obj, i: number): void;
  transaction(r: Obj, i: number): void;
  tail(): void;
  readonly size: number;
  take(): string;
  readonly transactionsSize: number;
  takeTransactions(): string;
}

/** Records given as a function that reads them again from the start on each call. */
export type RecordSource = () => AsyncIterable<Obj> | Iterable<Obj>;

/** Every how many records a pass yields to the event loop. */
const YIELD_EVERY = 500;
/** The text size at which a chunk is handed over. */
const CHUNK = 1 << 16;

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs a PassWriter over a record source in two reads of the records: the first scans, the second writes the
 * events (handed over as they come) and the cashtransactions (spilled to a temporary file, handed over after
 * the events, as the schema orders them; the file is removed at the end). Yields to the event loop every 500
 * records and hands over text chunks of about 64 KiB; nothing but the codes, the report figures and an FN
 * index is kept in memory.
 */
export async function* runPasses(w: PassWriter, records: RecordSource, onScanned?: (scan: SaftScan) => void): AsyncGenerator<string> {
  let i = 0;
  for await (const r of records()) {
    w.scan(r, i);
    i += 1;
    if (i % YIELD_EVERY === 0) await tick();
  }
  const scan = w.endScan();
  onScanned?.(scan);
  w.head();
  yield w.take();
  const dir = await mkdtemp(join(tmpdir(), 'efr-saft-'));
  const file = join(dir, 'cashtransactions.xml');
  const spill = createWriteStream(file, { encoding: 'utf8' });
  try {
    const write = async (text: string): Promise<void> => {
      if (!spill.write(text)) await once(spill, 'drain');
    };
    i = 0;
    for await (const r of records()) {
      if (i > w.lastIndex) break;
      w.event(r, i);
      w.transaction(r, i);
      i += 1;
      if (w.size >= CHUNK) yield w.take();
      if (w.transactionsSize >= CHUNK) await write(w.takeTransactions());
      if (i % YIELD_EVERY === 0) await tick();
    }
    yield w.take();
    await write(w.takeTransactions());
    await new Promise<void>((resolve, reject) => {
      spill.once('error', reject);
      spill.end(resolve);
    });
    for await (const text of createReadStream(file, { encoding: 'utf8', highWaterMark: CHUNK })) yield text as string;
  } finally {
    spill.destroy();
    await rm(dir, { recursive: true, force: true });
  }
  w.tail();
  yield w.take();
}

/** The same passes over an array, synchronously (the unit tests' string-returning writers). */
export function runPassesSync(w: PassWriter, records: readonly Obj[]): string {
  records.forEach((r, i) => w.scan(r, i));
  w.endScan();
  w.head();
  records.forEach((r, i) => {
    w.event(r, i);
    w.transaction(r, i);
  });
  const head = w.take();
  const transactions = w.takeTransactions();
  w.tail();
  return head + transactions + w.take();
}
