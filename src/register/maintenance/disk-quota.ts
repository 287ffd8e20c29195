/**
 * DiskQuota (profile attribute, MB) and the full disk.
 *
 * A registration is refused with #DISK_FULL (RC NO, 406) before anything is sealed when the data folder
 * would exceed DiskQuota. The check is cheap: the size of the folder is walked at most every 30 s (in the
 * background, never on a request's path after the first), and only the journal's own files, which grow
 * with every registration, are measured at the time (a stat of each, at most every 200 ms).
 * A disk that is really full (ENOSPC, SQLITE_FULL) fails the journal's commit: isDiskFull maps that to
 * #DISK_FULL too; the transaction is rolled back whole and the next one continues the chain.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { folderBytesSync, scanFolder } from './disk-usage.js';

const MB = 1_048_576;
/** room a registration needs at least: a record, its index entries and WAL frames */
export const RECORD_ROOM = 16 * 1024;
const WALK_EVERY_MS = 30_000;
const JOURNAL_EVERY_MS = 200;

/** Error codes of a full disk or file system, from node (errno), SQLite (better-sqlite3's code) and PostgreSQL (SQLSTATE 53100 disk_full). */
const FULL_CODES: ReadonlySet<string> = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', 'EFBIG', '53100']);

/** Whether an error (of a commit, a file write, or one wrapping such an error as its cause) means a full disk. */
export function isDiskFull(e: unknown): boolean {
  for (let x: unknown = e, i = 0; x !== undefined && x !== null && i < 5; i++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
    x = (x as { cause?: unknown }).cause;
  }
  return false;
}

/** DiskQuota of the instance (`def` profile) in bytes; undefined when not set (not enforced). */
export function diskQuotaBytes(ctx: ServiceContext): number | undefined {
  const raw = ctx.profiles.settings('def').raw.get('diskquota');
  if (raw === undefined || raw.trim() === '') return undefined;
  const mb = Number(raw);
  return Number.isFinite(mb) && mb >= 0 ? mb * MB : undefined;
}

/** Parses a DiskQuota value (MB, a decimal number >= 0); undefined when it is not one. */
export function parseQuotaMb(text: string): number | undefined {
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

/** The data folder's size, kept up to date cheaply. */
export class DiskMonitor {
  private walked: { at: number; total: number; journal: number } | undefined;
  private walking: Promise<void> | undefined;
  private journalNow: { at: number; bytes: number } | undefined;
  private readonly journalDir: string;

  constructor(
    private readonly dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.journalDir = join(dataDir, 'journal');
  }

  /** Bytes of the journal folder's files now (the SQLite file, its WAL and shared memory). */
  private journalBytes(): number {
    let total = 0;
    let names: string[];
    try {
      names = readdirSync(this.journalDir);
    } catch {
      return 0;
    }
    for (const name of names) {
      try {
        total += statSync(join(this.journalDir, name)).size;
      } catch {
        // removed meanwhile
      }
    }
    return total;
  }

  /** The data folder's bytes: the last walk, with the journal's files as they are now. */
  usage(): number {
    const t = this.now();
    if (!this.walked) {
      // the first time only: walk now
      this.walked = { at: t, total: folderBytesSync(this.dataDir), journal: this.journalBytes() };
      this.journalNow = { at: t, bytes: this.walked.journal };
    } else if (t - this.walked.at > WALK_EVERY_MS) {
      void this.refresh();
    }
    if (!this.journalNow || t - this.journalNow.at > JOURNAL_EVERY_MS) this.journalNow = { at: t, bytes: this.journalBytes() };
    return Math.max(0, this.walked.total - this.walked.journal + this.journalNow.bytes);
  }

  /** Walks the folder again (in the background; after cleaning, awaited). */
  refresh(): Promise<void> {
    this.walking ??= (async () => {
      try {
        const scan = await scanFolder(this.dataDir);
        const t = this.now();
        const journal = this.journalBytes();
        this.walked = { at: t, total: scan.total, journal };
        this.journalNow = { at: t, bytes: journal };
      } catch {
        // keep the last numbers
      } finally {
        this.walking = undefined;
      }
    })();
    return this.walking;
  }

  /** Forgets the journal's measure (after the quota changed or the journal was cleaned). */
  invalidate(): void {
    this.journalNow = undefined;
  }
}

const monitors = new WeakMap<ServiceContext, DiskMonitor>();

/** The monitor of a service's data folder (one per context, made on first use; it holds no timer). */
export function diskMonitor(ctx: ServiceContext): DiskMonitor {
  let m = monitors.get(ctx);
  if (!m) {
    m = new DiskMonitor(ctx.dataDir);
    monitors.set(ctx, m);
  }
  return m;
}

/** Refuses a registration with #DISK_FULL when the data folder would exceed DiskQuota. */
export function assertDiskRoom(ctx: ServiceContext): void {
  const quota = diskQuotaBytes(ctx);
  if (quota === undefined) return;
  if (diskMonitor(ctx).usage() + RECORD_ROOM > quota) throw new FiscalError('#DISK_FULL');
}
