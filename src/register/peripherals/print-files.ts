/**
 * The peripherals' files in the data folder, per register: `<data>/print/<RN>/` (RN as one folder name,
 * as for layouts): the virtual printer's paper and display, the Print_Log check files, and the marks of
 * receipts journaled but not printed yet (`unprinted/<SQ>.json`).
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { rnFolder } from '../render/layout-store.js';

export function printFolder(dataDir: string, rn: string): string {
  return join(dataDir, 'print', rnFolder(rn));
}

export function appendPrintFile(dataDir: string, rn: string, name: string, text: string): string {
  const dir = printFolder(dataDir, rn);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  appendFileSync(path, text);
  return path;
}

export function writePrintFile(dataDir: string, rn: string, name: string, text: string): string {
  const dir = printFolder(dataDir, rn);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  return path;
}

/**
 * A receipt that is journaled (or being sealed) and must still be printed: `<SQ>.json`, written in the step
 * the record is sealed, before it is submitted (docs/peripherals.md). It names the request's content hash,
 * so a mark left by a record that was never committed (a crash between seal and commit; the SQ taken again
 * by another record) is recognised as not belonging to the record of that SQ.
 */
export interface Unprinted {
  sq: number;
  tl: string;
  tt: string;
  /** base64 of the request's content hash (`ch`) */
  ch: string;
  /** ms since 1970 when the mark was written (the age of a retry without TN) */
  at: number;
  /** the printout was handed to the printer but not confirmed: a retry prints it marked as a copy */
  maybe?: boolean;
}

/** A mark as found: `mark` undefined when the file cannot be read or parsed (it still counts: unprinted). */
export interface FoundMark {
  mark: Unprinted | undefined;
  /** when the file was last written, ms since 1970 */
  mtimeMs: number;
}

function unprintedDir(dataDir: string, rn: string): string {
  return join(printFolder(dataDir, rn), 'unprinted');
}

function markPath(dataDir: string, rn: string, sq: number): string {
  return join(unprintedDir(dataDir, rn), `${sq}.json`);
}

/** Writes a file so that it is either absent, the old one, or complete: temp file, fsync, rename, fsync of the folder. */
function writeDurably(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // a file system that cannot sync a folder: the rename is as durable as it gets there
  }
}

/** Writes the mark durably; throws when it cannot (the caller then registers nothing). */
export function markUnprinted(dataDir: string, rn: string, mark: Unprinted): void {
  writeDurably(markPath(dataDir, rn, mark.sq), JSON.stringify(mark));
}

export function clearUnprinted(dataDir: string, rn: string, sq: number): void {
  rmSync(markPath(dataDir, rn, sq), { force: true });
}

/** The mark of a SQ; undefined when there is none. A file that cannot be read or parsed is a mark without content. */
export function findMark(dataDir: string, rn: string, sq: number): FoundMark | undefined {
  const path = markPath(dataDir, rn, sq);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { mark: undefined, mtimeMs: Date.now() };
  }
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Partial<Unprinted>;
    const ok = typeof m.sq === 'number' && typeof m.tl === 'string' && typeof m.tt === 'string' && typeof m.ch === 'string' && typeof m.at === 'number';
    return { mark: ok ? (m as Unprinted) : undefined, mtimeMs };
  } catch {
    return { mark: undefined, mtimeMs };
  }
}
