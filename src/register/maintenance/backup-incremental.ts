/**
 * GET /backup/incremental: the next numbered backup file `<path>/<RN>/<nnnn>.zip` (0001.zip holds the
 * journal from SQ 1, each next one what came after the one before it, read from that file's manifest).
 * Written under a temporary name, flushed and renamed: a crash never leaves a half file with a number.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, parse, resolve } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import { writeStreamAtomic } from '../../shared/files.js';
import type { ServiceContext } from '../context.js';
import { safeRn } from './backup-format.js';
import { backupZip, noteBackup, planBackup } from './backup.js';
import { openBackup } from './restore-read.js';

export interface IncrementalResult {
  file: string;
  number: number;
  firstSQ: number;
  lastSQ: number;
  count: number;
  bytes: number;
}

const NUMBERED = /^(\d{4,})\.zip$/;

/** The highest numbered file of the folder, if any. */
function lastNumbered(dir: string): { n: number; file: string } | undefined {
  if (!existsSync(dir)) return undefined;
  let best: { n: number; file: string } | undefined;
  for (const name of readdirSync(dir)) {
    const m = NUMBERED.exec(name);
    if (!m) continue;
    const n = Number(m[1]);
    if (!best || n > best.n) best = { n, file: join(dir, name) };
  }
  return best;
}

export async function writeIncremental(ctx: ServiceContext, rn: string, root: string): Promise<IncrementalResult> {
  if (!root) throw new FiscalError('#MISSING_FIELD', { field: 'path' });
  if (!isAbsolute(root)) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `an absolute folder path, got "${root}"` });
  // the storage root must be there: a backup drive that is not mounted is never replaced by the local disk
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `${root} is not an existing folder (is the backup drive mounted?)` });
  if (parse(resolve(root)).root === resolve(root)) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: 'a folder for backups, not the root of the file system' });
  if (!ctx.registers.get(rn)) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  const dir = join(root, safeRn(rn));
  const previous = lastNumbered(dir);
  let afterSq = 0;
  if (previous) {
    const b = await openBackup(previous.file);
    try {
      if (b.manifest.RN !== rn) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `${previous.file} is a backup of register ${b.manifest.RN}, not of ${rn}` });
      afterSq = b.manifest.lastSQ;
    } finally {
      b.close();
    }
  }
  const plan = await planBackup(ctx, rn, { afterSq });
  if (afterSq > plan.manifest.lastSQ) {
    throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `${previous?.file ?? dir} ends at SQ ${afterSq}, after the journal's last SQ ${plan.manifest.lastSQ}: the folder belongs to another journal` });
  }
  const number = (previous?.n ?? 0) + 1;
  const file = join(dir, `${String(number).padStart(4, '0')}.zip`);
  try {
    if (!existsSync(dir)) mkdirSync(dir);
    await writeStreamAtomic(file, backupZip(ctx, plan));
  } catch (e) {
    throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `cannot write ${file}: ${e instanceof Error ? e.message : String(e)}` });
  }
  await noteBackup(ctx, plan, 'incremental', file);
  const m = plan.manifest;
  return { file, number, firstSQ: m.firstSQ, lastSQ: m.lastSQ, count: m.count, bytes: statSync(file).size };
}
