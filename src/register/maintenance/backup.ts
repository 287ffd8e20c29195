/**
 * A register's backup as a zip (format in backup-format.ts): GET /backup streams it, /backup/incremental
 * writes it to a file. Consistent while transactions keep arriving: the register's state is read as
 * committed (one store read), and the records up to its SQ are read after it; records are never changed,
 * so later commits cannot change what the zip holds.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { GENESIS } from '../journal/chain.js';
import { periodSqRange } from '../journal/period-range.js';
import { archivedUpTo, markArchived, type ArchiveKind } from './archive-marks.js';
import { archivedInDataFolder } from './clean-journal.js';
import { type BackupFile, registerFiles } from './backup-folders.js';
import {
  BACKUP_FORMAT, type BackupManifest, ENTRY_JOURNAL, ENTRY_MANIFEST, ENTRY_SETTINGS, ENTRY_STATE, FILES_PREFIX, type StoredState,
  backupName, parseBackupName, recordLine, safeRn,
} from './backup-format.js';

export interface BackupRequest {
  /** YYYY-MM-DD: records dated from this day on (the contiguous SQ range, see period-range.ts) */
  from?: string;
  /** the name of the last backup received: only what came after it */
  last?: string;
  /** a continuation of a known SQ (the incremental files): records after it */
  afterSq?: number;
  /** false: the instance's private keys stay out (a backup for someone holding only the register's credentials) */
  instanceKeys?: boolean;
}

export interface PlannedBackup {
  rid: number;
  manifest: BackupManifest;
  state: StoredState;
  settings: Record<string, string>;
  files: BackupFile[];
}

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** What a backup of `rn` holds now; BAD for a bad `from` or `last`, 404 for an unknown register. */
export async function planBackup(ctx: ServiceContext, rn: string, request: BackupRequest = {}): Promise<PlannedBackup> {
  const reg = ctx.registers.get(rn);
  if (!reg) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  const rid = reg.state.rid;
  // the committed state: the in-memory head may be ahead while a commit is in flight
  const committed = (await ctx.store.loadRegisters()).find((s) => s.rid === rid);
  if (!committed) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
  const { rid: _rid, ...state } = committed;
  const head = state.sq;
  let firstSQ = 1;
  let kind: BackupManifest['kind'] = 'full';
  let after: string | undefined;
  if (request.last !== undefined && request.last !== '') {
    const parsed = parseBackupName(request.last);
    if (!parsed) throw new FiscalError('#INVALID_VALUE', { field: 'last', detail: `"${request.last}" is not the name of a backup (<RN>_<SQ>.zip)` });
    if (parsed.rn !== safeRn(rn)) throw new FiscalError('#INVALID_VALUE', { field: 'last', detail: `"${request.last}" is a backup of register ${parsed.rn}, not of ${rn}` });
    if (parsed.lastSq > head) throw new FiscalError('#INVALID_VALUE', { field: 'last', detail: `"${request.last}" ends at SQ ${parsed.lastSq}, after the journal's last SQ ${head}` });
    firstSQ = parsed.lastSq + 1;
    kind = 'incremental';
    after = backupName(rn, parsed.lastSq);
  } else if (request.afterSq !== undefined) {
    firstSQ = Math.min(request.afterSq, head) + 1;
    kind = request.afterSq > 0 ? 'incremental' : 'full';
    if (kind === 'incremental') after = backupName(rn, firstSQ - 1);
  } else if (request.from !== undefined && request.from !== '') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(request.from) || Number.isNaN(Date.parse(request.from))) {
      throw new FiscalError('#INVALID_VALUE', { field: 'from', detail: `a date YYYY-MM-DD, got "${request.from}"` });
    }
    const range = await periodSqRange(ctx.store, rid, head, { from: request.from });
    firstSQ = range ? range.firstSQ : head + 1;
    if (firstSQ > 1) kind = 'partial';
  }
  // a cleaned register (POST /disk/clean) starts after its cut: its records up to the cut are in earlier backups
  const cut = await ctx.store.cutOf(rid);
  if (cut && firstSQ <= cut.sq) {
    if (kind === 'incremental') {
      throw new FiscalError('#INVALID_VALUE', { field: 'last', detail: `the records up to SQ ${cut.sq} were cleaned after they were archived; ask for what came after SQ ${cut.sq} or later` });
    }
    // what the journal still holds, continuing the backup that ends at the cut
    firstSQ = cut.sq + 1;
    kind = 'incremental';
    after = backupName(rn, cut.sq);
  }
  const lastSQ = head;
  let prevHash: string | undefined = GENESIS;
  if (firstSQ > 1) prevHash = cut && cut.sq === firstSQ - 1 ? cut.hash : (await ctx.store.get(rid, firstSQ - 1))?.hash.toString('hex');
  if (prevHash === undefined) throw new FiscalError('#INTERNAL');
  const lastHash = lastSQ >= firstSQ ? state.hash : prevHash;
  const profile = await ctx.store.getSetting(`profile:${rn}`);
  const settings: Record<string, string> = profile === undefined ? {} : { [`profile:${rn}`]: profile };
  const files = registerFiles(ctx.dataDir, state, ctx.profiles.settings(rn).raw, request.instanceKeys !== false);
  const stateText = JSON.stringify(state);
  const settingsText = JSON.stringify(settings);
  const hashes: Record<string, string> = { [ENTRY_STATE]: sha256(stateText), [ENTRY_SETTINGS]: sha256(settingsText) };
  for (const f of files) hashes[FILES_PREFIX + f.path] = sha256(f.data);
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    name: backupName(rn, lastSQ),
    RN: rn,
    kind,
    firstSQ,
    lastSQ,
    count: lastSQ - firstSQ + 1,
    prevHash,
    lastHash,
    ...(after !== undefined ? { after } : {}),
    ...(kind === 'partial' && request.from ? { from: request.from } : {}),
    createdAt: ctx.clock.now().toISOString(),
    generator: `efr ${ctx.version}`,
    keyId: ctx.signer.keyId,
    sha256: hashes,
  };
  return { rid, manifest, state, settings, files };
}

/** The zip of a planned backup, streamed: the records are read page by page as the zip is written. */
export function backupZip(ctx: ServiceContext, plan: PlannedBackup): NodeJS.ReadableStream {
  const zip = new ZipFile();
  const { manifest } = plan;
  zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2)), ENTRY_MANIFEST);
  zip.addBuffer(Buffer.from(JSON.stringify(plan.state)), ENTRY_STATE);
  zip.addBuffer(Buffer.from(JSON.stringify(plan.settings)), ENTRY_SETTINGS);
  for (const f of plan.files) zip.addBuffer(f.data, FILES_PREFIX + f.path);
  const store = ctx.store;
  async function* lines(): AsyncGenerator<string> {
    if (manifest.count === 0) return;
    let chunk = '';
    for await (const r of store.range(plan.rid, manifest.firstSQ, manifest.lastSQ)) {
      chunk += recordLine(r);
      if (chunk.length > 256 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  zip.addReadStream(Readable.from(lines()), ENTRY_JOURNAL);
  zip.end();
  return zip.outputStream;
}

/**
 * After a backup was handed over (GET /backup: the response finished) or written (/backup/incremental,
 * from the manifest of the file really written): the archive mark that cleaning relies on, only when the
 * backup's records join what is archived already, so that every record up to its last SQ is in some
 * archive: it starts at SQ 1, or right after (or within) the current mark. A `last` named by the client or
 * a folder's previous file therefore never marks records nobody received. A mark naming a file inside the
 * data folder does not count as archived (clean-journal.ts), so nothing continues it either. Answers
 * whether the mark moved.
 */
export async function noteBackup(ctx: ServiceContext, m: BackupManifest, kind: ArchiveKind, file?: string): Promise<boolean> {
  if (m.kind === 'partial' || m.lastSQ < 1 || m.keyId !== ctx.signer.keyId) return false;
  if (m.firstSQ > 1) {
    const known = await archivedUpTo(ctx.store, m.RN);
    const archived = known && !archivedInDataFolder(ctx.dataDir, known) ? known.sq : 0;
    if (m.firstSQ - 1 > archived) return false;
  }
  await markArchived(ctx.store, m.RN, { sq: m.lastSQ, at: ctx.clock.now().toISOString(), kind, file: file ?? `${m.name}.zip` });
  return true;
}
