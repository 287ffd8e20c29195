/**
 * GET /backup/incremental: the next numbered backup file `<path>/<RN>/<nnnn>.zip` (0001.zip holds the
 * journal from SQ 1, each next one what came after the one before it, read from that file's manifest).
 *   - A folder is continued only when it is this instance's chain: its last file was signed with this
 *     instance's key and ends at a record of this journal (its lastHash is the stored hash at its lastSQ).
 *     A folder of another instance with the same RN (a shared NAS) is refused, never continued.
 *   - One backup per folder at a time (serialized in this process); the numbered file is created
 *     exclusively (written under a temporary name, flushed, then linked to its number, which fails when
 *     the number exists): another writer's file is never overwritten.
 *   - The archive mark comes from the manifest of the file really written.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, copyFileSync, createWriteStream, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, parse, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { GENESIS } from '../journal/chain.js';
import { KeyLocks } from '../key-locks.js';
import { type BackupManifest, safeRn } from './backup-format.js';
import { backupZip, noteBackup, planBackup } from './backup.js';
import { openBackup } from './restore-read.js';

export interface IncrementalResult {
  file: string;
  number: number;
  firstSQ: number;
  lastSQ: number;
  count: number;
  bytes: number;
  /** whether the archive mark moved to lastSQ */
  marked: boolean;
}

const NUMBERED = /^(\d{4,})\.zip$/;

/** one incremental backup per folder at a time, per service */
const folderLocks = new WeakMap<ServiceContext, KeyLocks>();

function locksOf(ctx: ServiceContext): KeyLocks {
  let l = folderLocks.get(ctx);
  if (!l) {
    l = new KeyLocks();
    folderLocks.set(ctx, l);
  }
  return l;
}

const badPath = (detail: string): FiscalError => new FiscalError('#INVALID_VALUE', { field: 'path', detail });

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

async function manifestOf(file: string): Promise<BackupManifest> {
  const b = await openBackup(file);
  try {
    return b.manifest;
  } finally {
    b.close();
  }
}

/**
 * The SQ the folder's last file ends at, when that file belongs to this instance's chain of `rn`;
 * a clear refusal otherwise.
 */
async function continuation(ctx: ServiceContext, rn: string, file: string): Promise<number> {
  const m = await manifestOf(file);
  const reg = ctx.registers.get(rn);
  if (!reg) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  const foreign = `${file} is not a backup of this instance's register ${rn}`;
  const advice = 'choose another folder for this instance (or move the folder away)';
  if (m.RN !== rn) throw badPath(`${file} is a backup of register ${m.RN}, not of ${rn}`);
  if (m.keyId !== ctx.signer.keyId) throw badPath(`${foreign}: it was signed with the instance key ${m.keyId}, this instance's is ${ctx.signer.keyId}; ${advice}`);
  const committed = (await ctx.store.loadRegisters()).find((s) => s.rid === reg.state.rid);
  const head = committed?.sq ?? 0;
  if (m.lastSQ > head) throw badPath(`${file} ends at SQ ${m.lastSQ}, after the journal's last SQ ${head}: the folder belongs to another journal; ${advice}`);
  let hash: string | undefined;
  if (m.lastSQ === 0) hash = GENESIS;
  else {
    const cut = await ctx.store.cutOf(reg.state.rid);
    if (cut && cut.sq === m.lastSQ) hash = cut.hash;
    else hash = (await ctx.store.get(reg.state.rid, m.lastSQ))?.hash.toString('hex');
    if (hash === undefined) throw badPath(`${file} ends at SQ ${m.lastSQ}, whose record was cleaned from the journal: it cannot be checked against this journal; start a new folder`);
  }
  if (hash !== m.lastHash) throw badPath(`${foreign}: its record SQ ${m.lastSQ} differs from this journal's; ${advice}`);
  return m.lastSQ;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the stream to `file`, which must not exist: into a temporary file of the same folder, flushed,
 * then linked to its name (atomic and exclusive). Where the file system has no hard links, an exclusive
 * copy. #BACKUP_BUSY when the name was taken meanwhile.
 */
async function writeExclusive(file: string, stream: NodeJS.ReadableStream, rn: string): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await pipeline(stream, createWriteStream(tmp, { flags: 'wx', mode: 0o644 }));
    fsyncPath(tmp);
    try {
      linkSync(tmp, file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new FiscalError('#BACKUP_BUSY', { value: rn });
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
      try {
        copyFileSync(tmp, file, constants.COPYFILE_EXCL);
      } catch (c) {
        if ((c as NodeJS.ErrnoException).code === 'EEXIST') throw new FiscalError('#BACKUP_BUSY', { value: rn });
        rmSync(file, { force: true });
        throw c;
      }
      fsyncPath(file);
    }
    try {
      fsyncPath(dirname(file));
    } catch {
      // not every platform flushes a folder
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

export async function writeIncremental(ctx: ServiceContext, rn: string, root: string): Promise<IncrementalResult> {
  if (!root) throw new FiscalError('#MISSING_FIELD', { field: 'path' });
  if (!isAbsolute(root)) throw badPath(`an absolute folder path, got "${root}"`);
  // the storage root must be there: a backup drive that is not mounted is never replaced by the local disk
  if (!existsSync(root) || !statSync(root).isDirectory()) throw badPath(`${root} is not an existing folder (is the backup drive mounted?)`);
  if (parse(resolve(root)).root === resolve(root)) throw badPath('a folder for backups, not the root of the file system');
  if (!ctx.registers.get(rn)) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  const dir = join(resolve(root), safeRn(rn));
  const lease = await locksOf(ctx).acquire([dir]);
  try {
    return await writeNext(ctx, rn, dir);
  } finally {
    lease.release();
  }
}

async function writeNext(ctx: ServiceContext, rn: string, dir: string): Promise<IncrementalResult> {
  const previous = lastNumbered(dir);
  const afterSq = previous ? await continuation(ctx, rn, previous.file) : 0;
  const plan = await planBackup(ctx, rn, { afterSq });
  const number = (previous?.n ?? 0) + 1;
  const file = join(dir, `${String(number).padStart(4, '0')}.zip`);
  try {
    if (!existsSync(dir)) mkdirSync(dir);
    await writeExclusive(file, backupZip(ctx, plan), rn);
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw badPath(`cannot write ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // the mark from what the file holds, not from what was meant to be written
  const written = await manifestOf(file);
  const p = plan.manifest;
  if (written.RN !== p.RN || written.firstSQ !== p.firstSQ || written.lastSQ !== p.lastSQ || written.lastHash !== p.lastHash) {
    throw badPath(`${file} does not hold the backup just written (SQ ${written.firstSQ} to ${written.lastSQ} instead of ${p.firstSQ} to ${p.lastSQ})`);
  }
  const marked = await noteBackup(ctx, written, 'incremental', file);
  return { file, number, firstSQ: written.firstSQ, lastSQ: written.lastSQ, count: written.count, bytes: statSync(file).size, marked };
}
