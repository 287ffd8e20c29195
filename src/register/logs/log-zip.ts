/**
 * GET /backup/log: the log files (current and rotated) as a zip, each under its own name, cut to the
 * period: a line is kept when its time is in [from, till); a line without a time (cut, or changed by
 * Log_remove) goes with the line before it. With a register, lines naming another register (`rn`) are left
 * out; lines naming none (service start, listener, certificates) stay. Files without a line in the
 * period are left out. Read in chunks from the files as they were when asked (a rotation meanwhile
 * changes nothing).
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { type LogFileView, LogSnapshot } from './log-snapshot.js';

export interface LogFilter {
  /** epoch ms, inclusive */
  from?: number;
  /** epoch ms, exclusive */
  till?: number;
  /** keep only lines of this register (and lines of none) */
  rn?: string;
}

const CHUNK = 64 * 1024;

/** The time and register of a JSON log line; undefined time when it has none. */
function lineFacts(line: string): { time?: number; rn?: string } {
  try {
    const r = JSON.parse(line) as unknown;
    if (r === null || typeof r !== 'object') return {};
    const o = r as { time?: unknown; rn?: unknown };
    return { ...(typeof o.time === 'number' ? { time: o.time } : {}), ...(typeof o.rn === 'string' ? { rn: o.rn } : {}) };
  } catch {
    return {};
  }
}

/** The lines of one file that pass the filter, in chunks of text. */
export async function* filteredLines(snapshot: LogSnapshot, file: LogFileView, filter: LogFilter): AsyncGenerator<string> {
  let keep = filter.from === undefined;
  let rest = '';
  let out: string[] = [];
  for (let pos = 0; pos < file.size; pos += CHUNK) {
    const text = rest + snapshot.read(file, pos, Math.min(file.size, pos + CHUNK)).toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const facts = lineFacts(line);
      if (facts.time !== undefined) keep = (filter.from === undefined || facts.time >= filter.from) && (filter.till === undefined || facts.time < filter.till);
      if (keep && (filter.rn === undefined || facts.rn === undefined || facts.rn === filter.rn)) out.push(`${line}\n`);
    }
    if (out.length) {
      yield out.join('');
      out = [];
    }
  }
}

/** Whether a file has at least one line that passes the filter. */
async function hasLines(snapshot: LogSnapshot, file: LogFileView, filter: LogFilter): Promise<boolean> {
  for await (const chunk of filteredLines(snapshot, file, filter)) if (chunk.length) return true;
  return false;
}

/**
 * The zip of the log folder `dir`, as a stream; `done` must be called when the answer is finished or
 * aborted (it closes the files).
 */
export async function logZip(dir: string, filter: LogFilter, modified: Date): Promise<{ zip: NodeJS.ReadableStream; files: string[]; done: () => void }> {
  const snapshot = LogSnapshot.open(dir);
  try {
    const zip = new ZipFile();
    const files: string[] = [];
    const whole = filter.from === undefined && filter.till === undefined && filter.rn === undefined;
    for (const file of snapshot.files) {
      if (file.size === 0 || !(whole || (await hasLines(snapshot, file, filter)))) continue;
      files.push(file.name);
      zip.addReadStream(Readable.from(filteredLines(snapshot, file, filter)), file.name, { mtime: modified, mode: 0o100644 });
    }
    zip.end();
    return { zip: zip.outputStream, files, done: () => snapshot.close() };
  } catch (e) {
    snapshot.close();
    throw e;
  }
}
