/**
 * POST /disk/clean: when the data folder is larger than the quota, remove what may go until it is at
 * 80 % of the quota, cheapest loss first:
 *   1. logs: every file in log/ except the one being written (log/efr.log), oldest first;
 *   2. exports: the files /retrieve wrote into retrieve/, oldest first (the journal or its archive
 *      holds the same records);
 *   3. old backups: the German TSE and DSFinV-K backups (files directly in de/<RN>/backup/, schedule.ts)
 *      modified before `keep`, oldest first, the newest file of each such folder always kept; nothing
 *      else is a backup here (a register named `backup` has its TSE keys in de/backup/);
 *   4. journal records that are archived and dated before `keep`, from the start of each register's
 *      chain (clean-journal.ts), after which the journal file gives the space back.
 * Never removed: a file of an incremental backup chain (`<root>/<RN>/<nnnn>.zip`, restored in order, so
 * one missing file breaks every later one): any file named <nnnn>.zip, and everything under the configured
 * incremental root (/service/config) or the root of a register's last incremental backup when it lies in
 * the data folder. Nothing is removed when the folder is within the quota.
 */
import { rmdir, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ServiceContext } from '../context.js';
import { parseLocalDateTime } from '../esr/datetime.js';
import { cleanJournal, type JournalCleaned } from './clean-journal.js';
import { archivedUpTo } from './archive-marks.js';
import { safeRn } from './backup-format.js';
import type { CleanOptions } from './clean-options.js';
import { diskMonitor } from './disk-quota.js';
import { type FolderEntry, type FolderScan, type StorageRecord, scanFolder, storageRecord } from './disk-usage.js';
import { serviceConfig } from './service-config.js';

/** The log file the service is writing; the logs module rotates it into other names in log/. */
export const ACTIVE_LOG = 'log/efr.log';
/** share of the quota cleaning goes down to */
export const CLEAN_TO = 0.8;

export type CleanKind = 'log' | 'export' | 'backup';

export interface CleanResult {
  /** the storage record after cleaning */
  record: StorageRecord;
  /** bytes before cleaning, the quota and the target (80 % of it) */
  before: number;
  quota: number;
  target: number;
  files: Record<CleanKind, { files: number; bytes: number }>;
  journal: JournalCleaned[];
}

/** A TSE or DSFinV-K backup of the German fiscal module: a file directly in de/<RN>/backup/. */
const isTseBackup = (e: FolderEntry): boolean => /^de\/[^/]+\/backup\/[^/]+$/.test(e.path);
/** A file of an incremental backup chain, wherever it lies. */
const isChainFile = (e: FolderEntry): boolean => /^\d{4,}\.zip$/i.test(e.path.slice(e.path.lastIndexOf('/') + 1));

/**
 * The files cleaning may remove, in the order it removes them.
 * @param kept folders (relative to the data folder, `/` separators) whose files are never removed
 */
export function fileCandidates(scan: FolderScan, keepFrom: string, kept: readonly string[] = []): Array<{ kind: CleanKind; entry: FolderEntry }> {
  const inKept = (e: FolderEntry): boolean => kept.some((k) => k === '' || e.path.startsWith(`${k}/`));
  const files = scan.entries.filter((e) => !e.dir && !isChainFile(e) && !inKept(e));
  const oldestFirst = (a: FolderEntry, b: FolderEntry): number => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : 1);
  const logs = files.filter((e) => e.path.startsWith('log/') && e.path !== ACTIVE_LOG).sort(oldestFirst);
  const exports = files.filter((e) => e.path.startsWith('retrieve/')).sort(oldestFirst);
  const keepMs = (parseLocalDateTime(`${keepFrom}T00:00:00`) ?? new Date(0)).getTime();
  const newest = new Map<string, FolderEntry>();
  const backups = files.filter(isTseBackup);
  for (const e of backups) {
    const folder = dirname(e.path);
    const n = newest.get(folder);
    if (!n || e.mtimeMs > n.mtimeMs) newest.set(folder, e);
  }
  const oldBackups = backups.filter((e) => e.mtimeMs < keepMs && newest.get(dirname(e.path)) !== e).sort(oldestFirst);
  return [
    ...logs.map((entry) => ({ kind: 'log' as const, entry })),
    ...exports.map((entry) => ({ kind: 'export' as const, entry })),
    ...oldBackups.map((entry) => ({ kind: 'backup' as const, entry })),
  ];
}

/** Removes the folders under retrieve/ that cleaning emptied (deepest first; a folder with files stays). */
async function removeEmptyFolders(dataDir: string, scan: FolderScan): Promise<void> {
  const dirs = scan.entries.filter((e) => e.dir && e.path.startsWith('retrieve/')).map((e) => e.path).sort((a, b) => b.length - a.length);
  for (const d of dirs) await rmdir(join(dataDir, d)).catch(() => undefined);
}

/**
 * The folders of incremental backup chains inside the data folder (relative, `/` separators): the
 * configured root and the root of each register's last incremental backup, and in them each register's
 * folder. A root outside the data folder is not ours to clean anyway.
 */
export async function chainFolders(ctx: ServiceContext): Promise<string[]> {
  const roots = new Set<string>();
  const configured = (await serviceConfig(ctx.store)).incrementalPath;
  if (configured && isAbsolute(configured)) roots.add(resolve(configured));
  const rns = ctx.registers.list().map((r) => r.state.rn);
  for (const rn of rns) {
    const mark = await archivedUpTo(ctx.store, rn);
    if (mark?.kind === 'incremental' && mark.file !== undefined && isAbsolute(mark.file)) roots.add(dirname(dirname(resolve(mark.file))));
  }
  const data = resolve(ctx.dataDir);
  const inside = (abs: string): string | undefined => {
    const rel = relative(data, abs);
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : rel.split(sep).join('/');
  };
  const out = new Set<string>();
  for (const root of roots) {
    const rel = inside(root);
    // the data folder itself as root: only the registers' folders in it are chains
    if (rel !== undefined && rel !== '') out.add(rel);
    for (const rn of rns) {
      const folder = inside(join(root, safeRn(rn)));
      if (folder !== undefined && folder !== '') out.add(folder);
    }
  }
  return [...out];
}

const running = new WeakMap<ServiceContext, Promise<unknown>>();

/** Cleans the data folder; one cleaning at a time per service (a second one waits for the first). */
export async function cleanDisk(ctx: ServiceContext, options: CleanOptions): Promise<CleanResult> {
  const previous = running.get(ctx) ?? Promise.resolve();
  const mine = previous.catch(() => undefined).then(() => cleanNow(ctx, options));
  running.set(ctx, mine);
  try {
    return await mine;
  } finally {
    if (running.get(ctx) === mine) running.delete(ctx);
  }
}

async function cleanNow(ctx: ServiceContext, options: CleanOptions): Promise<CleanResult> {
  const dataDir = ctx.dataDir;
  let scan = await scanFolder(dataDir);
  const before = scan.total;
  const target = Math.floor(options.quota * CLEAN_TO);
  const files: CleanResult['files'] = { log: { files: 0, bytes: 0 }, export: { files: 0, bytes: 0 }, backup: { files: 0, bytes: 0 } };
  let journal: JournalCleaned[] = [];
  if (before > options.quota) {
    let usage = before;
    for (const { kind, entry } of fileCandidates(scan, options.keepFrom, await chainFolders(ctx))) {
      if (usage <= target) break;
      try {
        await unlink(join(dataDir, entry.path));
      } catch {
        continue; // gone already, or not ours to remove
      }
      usage -= entry.size;
      files[kind].files += 1;
      files[kind].bytes += entry.size;
    }
    await removeEmptyFolders(dataDir, scan);
    if (usage > target) {
      journal = await cleanJournal(ctx, options.keepFrom);
      if (journal.some((j) => j.removed > 0)) await ctx.store.compact();
    }
    scan = await scanFolder(dataDir);
    const monitor = diskMonitor(ctx);
    monitor.invalidate();
    await monitor.refresh();
  }
  return { record: storageRecord(scan), before, quota: options.quota, target, files, journal };
}
