/**
 * The receipts a register journaled but has not printed, as the printout keeps them (print-files.ts: the mark
 * `print/<RN>/unprinted/<SQ>.json` lives from the sealing of the record until the printer confirmed the
 * printout). Only read here: the pages show and filter these receipts, the printout alone writes the marks.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findMark, printFolder } from '../peripherals/print-files.js';

export interface UnprintedReceipt {
  sq: number;
  /** handed to the printer without its confirmation: the paper may or may not have come out */
  maybe: boolean;
}

/** The register's unprinted receipts by SQ; none when it never printed (no folder). */
export function unprintedReceipts(dataDir: string, rn: string): ReadonlyMap<number, UnprintedReceipt> {
  let names: string[];
  try {
    names = readdirSync(join(printFolder(dataDir, rn), 'unprinted'));
  } catch {
    return new Map();
  }
  const out = new Map<number, UnprintedReceipt>();
  for (const name of names) {
    const m = /^(\d{1,15})\.json$/.exec(name);
    if (!m) continue;
    const sq = Number(m[1]);
    const found = findMark(dataDir, rn, sq);
    // a mark that cannot be read still counts: the receipt is not known to be printed
    if (found) out.set(sq, { sq, maybe: found.mark?.maybe === true });
  }
  return out;
}
