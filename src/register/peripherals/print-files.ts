/**
 * The peripherals' files in the data folder, per register: `<data>/print/<RN>/` (RN as one folder name,
 * as for layouts): the virtual printer's paper and display, the Print_Log check files, and the marks of
 * receipts journaled but not printed yet (`unprinted/<SQ>.json`).
 */
import { appendFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** A receipt that is journaled and must still be printed: its TL/TT and the content hash of the request. */
export interface Unprinted {
  sq: number;
  tl: string;
  tt: string;
  /** base64 of the request's content hash (`ch`): the same request again is this receipt */
  ch: string;
}

function unprintedDir(dataDir: string, rn: string): string {
  return join(printFolder(dataDir, rn), 'unprinted');
}

export function markUnprinted(dataDir: string, rn: string, mark: Unprinted): void {
  const dir = unprintedDir(dataDir, rn);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${mark.sq}.json`), JSON.stringify(mark));
}

export function clearUnprinted(dataDir: string, rn: string, sq: number): void {
  rmSync(join(unprintedDir(dataDir, rn), `${sq}.json`), { force: true });
}

export function isUnprinted(dataDir: string, rn: string, sq: number): boolean {
  try {
    readFileSync(join(unprintedDir(dataDir, rn), `${sq}.json`));
    return true;
  } catch {
    return false;
  }
}

/** The unprinted receipts of a register (few: one per failed printout until it is retried). */
export function unprintedOf(dataDir: string, rn: string): Unprinted[] {
  let names: string[];
  try {
    names = readdirSync(unprintedDir(dataDir, rn));
  } catch {
    return [];
  }
  const out: Unprinted[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    try {
      out.push(JSON.parse(readFileSync(join(unprintedDir(dataDir, rn), name), 'utf8')) as Unprinted);
    } catch {
      // a mark cut short by a crash: the receipt is found by SQ on a /restart or TN retry all the same
    }
  }
  return out.sort((a, b) => a.sq - b.sq);
}
