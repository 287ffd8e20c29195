/**
 * What the data folder holds: one walk (lstat, symbolic links not followed) that gives the storage record
 * of GET /disk, the listing of GET /disk/dir and the file list cleaning chooses from.
 */
import type { Dirent } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Obj, Value } from '../codec/index.js';
import { formatLocalDateTime } from '../esr/datetime.js';

export interface FolderEntry {
  /** path relative to the data folder, with `/` */
  path: string;
  dir: boolean;
  /** bytes (files; 0 for folders) */
  size: number;
  mtimeMs: number;
}

/** Deeper folders are not walked: the data folder's own layout is at most four levels deep. */
const MAX_DEPTH = 16;
/** A walk stops here (a folder of millions of files would otherwise take the service's memory). */
export const MAX_ENTRIES = 200_000;

export interface FolderScan {
  entries: FolderEntry[];
  /** bytes of every file */
  total: number;
  /** MAX_ENTRIES was reached: the numbers are a lower bound */
  truncated: boolean;
}

/** Walks the data folder. Files that vanish during the walk are skipped. */
export async function scanFolder(root: string): Promise<FolderScan> {
  const scan: FolderScan = { entries: [], total: 0, truncated: false };
  async function walk(abs: string, rel: string, depth: number): Promise<void> {
    let names: Dirent[];
    try {
      names = await readdir(abs, { withFileTypes: true });
    } catch {
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const d of names) {
      if (scan.entries.length >= MAX_ENTRIES) {
        scan.truncated = true;
        return;
      }
      const path = rel ? `${rel}/${d.name}` : d.name;
      const p = join(abs, d.name);
      try {
        const s = await lstat(p);
        if (s.isDirectory()) {
          scan.entries.push({ path, dir: true, size: 0, mtimeMs: s.mtimeMs });
          if (depth < MAX_DEPTH) await walk(p, path, depth + 1);
        } else {
          scan.entries.push({ path, dir: false, size: s.size, mtimeMs: s.mtimeMs });
          scan.total += s.size;
        }
      } catch {
        // removed while we walk
      }
    }
  }
  await walk(root, '', 0);
  return scan;
}

/** Bytes of the files under a folder, walked synchronously (once, when the quota is first checked). */
export function folderBytesSync(dir: string, depth = 0): number {
  let total = 0;
  let names: Dirent[];
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const d of names) {
    const p = join(dir, d.name);
    try {
      if (d.isDirectory()) total += depth < MAX_DEPTH ? folderBytesSync(p, depth + 1) : 0;
      else total += lstatSync(p).size;
    } catch {
      // removed meanwhile
    }
  }
  return total;
}

export interface PathUsage {
  dirs: number;
  files: number;
  size: number;
}

export interface StorageRecord {
  /** total MB (2^20 bytes), three decimals */
  Usage: number;
  /** per folder of the data folder; files directly in it under "." */
  Path: Record<string, PathUsage>;
}

const MB = 1_048_576;

export function storageRecord(scan: FolderScan): StorageRecord {
  const path: Record<string, PathUsage> = {};
  for (const e of scan.entries) {
    const slash = e.path.indexOf('/');
    const top = slash < 0 ? (e.dir ? e.path : '.') : e.path.slice(0, slash);
    const usage = (path[top] ??= { dirs: 0, files: 0, size: 0 });
    if (slash < 0 && e.dir) continue; // the top folder itself
    if (e.dir) usage.dirs += 1;
    else {
      usage.files += 1;
      usage.size += e.size;
    }
  }
  return { Usage: Number((scan.total / MB).toFixed(3)), Path: path };
}

/** The XML form: `<Disk Usage=".."><Path><Dir Name="journal" dirs=".." files=".." size=".."/></Path></Disk>`. */
export function storageModel(record: StorageRecord, extra: Obj = {}): Obj {
  const dirs: Value[] = Object.entries(record.Path).map(([name, u]) => ({ _: 'Dir', Name: name, dirs: String(u.dirs), files: String(u.files), size: String(u.size) }));
  return { Usage: record.Usage.toFixed(3), Path: dirs, ...extra };
}

/**
 * GET /disk/dir: one line per folder and file, `<modified, local time>  <size in bytes>  <path>`,
 * folders with a trailing `/` and the bytes of everything under them.
 */
export function folderListing(scan: FolderScan, dataDir: string): string {
  const sizes = new Map<string, number>();
  for (const e of scan.entries) {
    if (e.dir) continue;
    // add the file's size to every folder above it
    for (let i = e.path.indexOf('/'); i >= 0; i = e.path.indexOf('/', i + 1)) {
      const dir = e.path.slice(0, i);
      sizes.set(dir, (sizes.get(dir) ?? 0) + e.size);
    }
  }
  const width = String(scan.total).length;
  const lines = [`# ${dataDir}: ${scan.entries.filter((e) => !e.dir).length} files, ${scan.total} bytes${scan.truncated ? ` (stopped after ${MAX_ENTRIES} entries)` : ''}`];
  for (const e of scan.entries) {
    const size = e.dir ? (sizes.get(e.path) ?? 0) : e.size;
    lines.push(`${formatLocalDateTime(new Date(e.mtimeMs))}  ${String(size).padStart(width)}  ${e.path}${e.dir ? '/' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
