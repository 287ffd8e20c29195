/**
 * Restoring a register from backup zips (a full one, or a full one and the incremental ones after it),
 * only onto a new, unused instance:
 *   IN_USE   the register has journal records (or records being committed), or one of its own folders
 *            (at/<cashbox>, de/<RN>, fr/<RN>) exists, or another file it brings differs from the one in
 *            place, or the instance key differs while the instance already has journal records
 *   ONLINE   the instance has registered something (any register's SQ moved) since it started; there is
 *            no portal connection yet, when there is, being connected counts too
 * Everything is read and checked first (manifests, SHA-256 of the entries, the records as one chain from
 * SQ 1, signatures with the backup's instance key), streamed, within RESTORE_LIMITS; only the files a
 * register's backup holds (backup-folders.ts isRegisterFile) are accepted; they are staged in a temporary
 * folder of the data folder. Then, with the whole instance closed to registrations (ctx.restoring: any
 * register's request is answered #BACKUP_BUSY, RC NO, since the instance key may be replaced) and ONLINE
 * and IN_USE checked again, the files are moved into place, the profile set, and the records with the
 * register's state appended in one store transaction. A failure on the way moves everything back: never a
 * half-restored register.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import type { JournalRecord } from '../journal/types.js';
import { type Register, initialState } from '../registers.js';
import { loadOrCreateSigner } from '../security/signer.js';
import { type BackupManifest, type StoredState, FILES_PREFIX } from './backup-format.js';
import { INSTANCE_KEY_FILES, isRegisterFile } from './backup-folders.js';
import type { CountryFiles } from '../fiscal/country-files.js';
import { moduleFor } from '../fiscal/registry.js';
import { type OpenedBackup, RESTORE_LIMITS, backupPublicKey, backupSettings, backupState, openBackup } from './restore-read.js';
import { noteBackupResult } from './service-config.js';

/** GET /backup/info. */
export interface RestoreInfo {
  /** IDLE (none since start), RUNNING, DONE, FAILED, or the refusal IN_USE / ONLINE */
  state: 'IDLE' | 'RUNNING' | 'DONE' | 'FAILED' | 'IN_USE' | 'ONLINE';
  /** while RUNNING: reading (manifests), checking (records), writing (into place) */
  step?: 'reading' | 'checking' | 'writing';
  RN?: string;
  /** the backup files, in the order applied */
  sources?: string[];
  /** records read and checked so far, of `total` */
  records: number;
  total: number;
  firstSQ?: number;
  lastSQ?: number;
  startedAt?: string;
  finishedAt?: string;
  /** the reason of a refusal or failure, or what was restored */
  message?: string;
}

const KEY_FILES = INSTANCE_KEY_FILES.map((f) => f.path);
/** The instance's public key a backup may carry without its private half, and that half. */
const INSTANCE_KEY_PAIR = ['keys/instance.pub.pem', 'keys/instance.key.pem'] as const;

class Restorer {
  info: RestoreInfo = { state: 'IDLE', records: 0, total: 0 };
  private running = false;
  /** each register's SQ when the service started (or was restored): a change means the instance is online */
  private baseline = new Map<number, number>();

  constructor(private readonly ctx: ServiceContext) {}

  markStarted(): void {
    for (const reg of this.ctx.registers.list()) this.baseline.set(reg.state.rid, reg.state.sq);
  }

  private online(): string | undefined {
    for (const reg of this.ctx.registers.list()) {
      if (reg.state.sq !== (this.baseline.get(reg.state.rid) ?? 0)) return `register ${reg.state.rn} has registered since the service started`;
    }
    return undefined;
  }

  private async inUse(rn: string, reg: Register | undefined, files: readonly string[], country: CountryFiles | undefined, staging: string | undefined): Promise<string | undefined> {
    if (reg && (reg.state.sq > 0 || reg.pending.size > 0 || (await this.ctx.store.count(reg.state.rid)) > 0)) return `register ${rn} has journal records`;
    const ownFolder = (f: string): string | undefined => country?.ownFolder?.(f);
    const merged = country?.merged ?? {};
    const own = new Set(files.map(ownFolder).filter((f): f is string => f !== undefined));
    for (const folder of own) if (existsSync(join(this.ctx.dataDir, folder))) return `the folder ${folder} of register ${rn} exists`;
    if (staging === undefined) return undefined;
    // a backup made with a register's own credentials holds the public half of the instance's keys only: it
    // continues on the instance that made it, where the private half is; elsewhere the pair would not match
    for (const [pub, key] of [INSTANCE_KEY_PAIR, ...(country?.keyPairs ?? [])]) {
      if (!files.includes(pub) || files.includes(key)) continue;
      const target = join(this.ctx.dataDir, pub);
      if (!existsSync(target) || !existsSync(join(this.ctx.dataDir, key)) || !readFileSync(target).equals(readFileSync(join(staging, pub)))) {
        return `the backup holds no private key for ${pub} (it was made with a register's own credentials): restore it on the instance that made it, or make the backup with the instance password`;
      }
    }
    for (const f of files) {
      if (ownFolder(f) !== undefined || Object.hasOwn(merged, f)) continue;
      const target = join(this.ctx.dataDir, f);
      if (!existsSync(target) || readFileSync(target).equals(readFileSync(join(staging, f)))) continue;
      if (KEY_FILES.includes(f)) {
        if ((await this.ctx.store.count()) > 0) return 'the instance key differs from the backup\'s and signs journals of other registers';
        continue;
      }
      return `the file ${f} exists with another content`;
    }
    for (const [f, merge] of Object.entries(merged)) {
      if (!files.includes(f) || !existsSync(join(this.ctx.dataDir, f))) continue;
      if (!merge(readFileSync(join(this.ctx.dataDir, f)), readFileSync(join(staging, f)))) return `an entry of ${f} belongs to another register`;
    }
    return undefined;
  }

  private refuse(state: 'IN_USE' | 'ONLINE', detail: string): never {
    this.info = { ...this.info, state, message: detail, finishedAt: new Date().toISOString() };
    throw new FiscalError(state === 'IN_USE' ? '#IN_USE' : '#ONLINE', { detail });
  }

  async restore(sources: readonly string[], wantedRn: string | undefined): Promise<RestoreInfo> {
    if (this.running) throw new FiscalError('#BACKUP_BUSY', { value: wantedRn ?? '' });
    this.running = true;
    this.info = { state: 'RUNNING', step: 'reading', sources: [...sources], records: 0, total: 0, startedAt: new Date().toISOString() };
    const opened: OpenedBackup[] = [];
    const staging = join(this.ctx.dataDir, `restore.tmp-${randomBytes(6).toString('hex')}`);
    try {
      for (const s of sources) opened.push(await openBackup(s));
      const chain = orderChain(opened);
      const latest = chain[chain.length - 1] as OpenedBackup;
      const m = latest.manifest;
      const rn = wantedRn ?? m.RN;
      if (m.RN !== rn) throw invalid(latest, `it holds register ${m.RN}, not ${rn}`);
      this.info = { ...this.info, RN: rn, total: chain.reduce((n, b) => n + b.manifest.count, 0), firstSQ: 1, lastSQ: m.lastSQ, sources: chain.map((b) => b.source) };
      const state = await backupState(latest);
      if (state.rn !== rn || state.sq !== m.lastSQ || state.hash !== m.lastHash) throw invalid(latest, 'state.json does not match the journal it comes with');
      const files = latest.fileNames();
      // only the files a backup of a register holds: nothing else is ever written into the data folder
      const foreign = files.find((f) => !isRegisterFile(f, state));
      if (foreign !== undefined) throw invalid(latest, `the entry ${FILES_PREFIX}${foreign} is none of a register's key or device files (the instance key pair keys/instance.*.pem, and the files its country keeps for it: docs/decisions.md, "Backup and restore")`);
      const journalBytes = chain.reduce((n, b) => n + b.journalBytes, 0);
      if (journalBytes > RESTORE_LIMITS.journal) {
        throw invalid(latest, `its journal is ${Math.ceil(journalBytes / 2 ** 20)} MiB, more than one restore holds (${RESTORE_LIMITS.journal / 2 ** 20} MiB)`);
      }
      const early = await this.inUse(rn, this.ctx.registers.get(rn), files, moduleFor(state.cfg).files, undefined);
      if (early) this.refuse('IN_USE', early);
      const busy = this.online();
      if (busy) this.refuse('ONLINE', busy);
      // every record read and checked before anything is written
      this.info.step = 'checking';
      const keyId = m.keyId;
      const records: JournalRecord[] = [];
      for (const b of chain) {
        if (b.manifest.keyId !== keyId) throw invalid(b, `its records are signed with key ${b.manifest.keyId}, the others with ${keyId}`);
        const key = await backupPublicKey(b);
        for await (const r of b.records(0, key)) {
          records.push(r);
          this.info.records = records.length;
        }
      }
      const settings = await backupSettings(latest);
      for (const k of Object.keys(settings)) if (k !== `profile:${rn}`) delete settings[k];
      mkdirSync(staging, { recursive: true, mode: 0o700 });
      for (const f of files) {
        const target = join(staging, f);
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, await latest.entry(FILES_PREFIX + f), { mode: f.endsWith('.pem') || f.endsWith('.key') ? 0o600 : 0o644 });
      }
      this.info.step = 'writing';
      const count = records.length;
      await this.apply(rn, state, records, settings, files, staging);
      this.info = { ...this.info, state: 'DONE', step: undefined, finishedAt: new Date().toISOString(), message: `register ${rn} restored: SQ 1 to ${m.lastSQ} (${count} records) from ${chain.length} backup file(s)` };
      return this.info;
    } catch (e) {
      if (this.info.state === 'RUNNING') {
        this.info = { ...this.info, state: 'FAILED', finishedAt: new Date().toISOString(), message: e instanceof FiscalError ? e.message : 'the restore failed; nothing was changed' };
      }
      throw e instanceof FiscalError ? e : new FiscalError('#BACKUP_INVALID', { value: sources.join(', '), detail: e instanceof Error ? e.message : String(e) });
    } finally {
      for (const b of opened) b.close();
      rmSync(staging, { recursive: true, force: true });
      this.running = false;
      const { state, RN, message } = this.info;
      await noteBackupResult(this.ctx.store, { at: new Date().toISOString(), action: 'restore', rn: RN ?? wantedRn ?? '', ok: state === 'DONE', info: `${state}: ${message ?? ''}` }).catch(() => undefined);
    }
  }

  /**
   * With the whole instance closed to registrations (ctx.restoring: the pipeline seals nothing, answers
   * #BACKUP_BUSY), ONLINE and IN_USE checked again under it: files, profile, then records and state in one
   * store transaction; undone on failure.
   */
  private async apply(rn: string, state: StoredState, records: JournalRecord[], settings: Record<string, string>, files: readonly string[], staging: string): Promise<void> {
    const ctx = this.ctx;
    if (ctx.restoring !== undefined) throw new FiscalError('#BACKUP_BUSY', { value: ctx.restoring });
    // set and checked in one synchronous step: a record sealed before it moved an SQ (ONLINE), none after it
    ctx.restoring = rn;
    const undo: Array<() => void> = [];
    const undoSettings: Array<[string, string]> = [];
    let keyReplaced = false;
    try {
      const busy = this.online();
      if (busy) this.refuse('ONLINE', busy);
      const reg = await ctx.registers.getOrCreate(rn);
      const country = moduleFor(state.cfg).files;
      const late = await this.inUse(rn, reg, files, country, staging);
      if (late) this.refuse('IN_USE', late);
      const saved = join(staging, '.replaced');
      for (const f of files) {
        const from = join(staging, f);
        const target = join(ctx.dataDir, f);
        const merge = country?.merged && Object.hasOwn(country.merged, f) ? country.merged[f] : undefined;
        if (merge && existsSync(target)) {
          // checked by inUse: it does not clash
          const merged = merge(readFileSync(target), readFileSync(from)) as Buffer;
          const before = readFileSync(target);
          writeFileSync(from, merged);
          renameSync(from, target);
          undo.push(() => writeFileSync(target, before));
          continue;
        }
        if (existsSync(target)) {
          if (readFileSync(target).equals(readFileSync(from))) continue;
          // only the instance key of an instance without records (checked above)
          const keep = join(saved, f);
          mkdirSync(dirname(keep), { recursive: true });
          renameSync(target, keep);
          renameSync(from, target);
          undo.push(() => renameSync(keep, target));
          keyReplaced = true;
          continue;
        }
        const created = mkdirs(dirname(target), ctx.dataDir);
        renameSync(from, target);
        undo.push(() => {
          rmSync(target, { force: true });
          for (const d of created.reverse()) rmdirQuiet(d);
        });
      }
      for (const [k, v] of Object.entries(settings)) {
        undoSettings.push([k, (await ctx.store.getSetting(k)) ?? '{}']);
        await ctx.store.putSetting(k, v);
      }
      for (const r of records) r.rid = reg.state.rid;
      try {
        // one transaction: all or nothing (the SQLite writer thread holds its own copy while it writes)
        await ctx.store.append(records, new Map([[reg.state.rid, JSON.stringify(state)]]));
      } catch (e) {
        await ctx.store.resume();
        throw new FiscalError('#BACKUP_INVALID', { value: rn, detail: `the journal could not be written (${e instanceof Error ? e.message : String(e)}); nothing was restored` });
      }
      reg.state = { ...initialState(rn), ...state, rid: reg.state.rid };
      reg.last.clear();
      this.baseline.set(reg.state.rid, reg.state.sq);
      if (keyReplaced) ctx.signer = loadOrCreateSigner(ctx.dataDir);
      await ctx.profiles.load([rn]);
    } catch (e) {
      for (const [k, v] of undoSettings.reverse()) await ctx.store.putSetting(k, v).catch(() => undefined);
      for (const u of undo.reverse()) {
        try {
          u();
        } catch {
          // keep undoing the rest
        }
      }
      throw e;
    } finally {
      ctx.restoring = undefined;
    }
  }
}

function invalid(b: OpenedBackup, detail: string): FiscalError {
  return new FiscalError('#BACKUP_INVALID', { value: b.source.split(/[\\/]/).pop() ?? b.source, detail });
}

/** Creates the missing folders of `dir` (inside the data folder); returns those it created, outermost first. */
function mkdirs(dir: string, root: string): string[] {
  const missing: string[] = [];
  for (let d = dir; d.length > root.length && !existsSync(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) mkdirSync(d, { mode: 0o700 });
  return missing;
}

function rmdirQuiet(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty or gone
  }
}

/**
 * The backups as one chain from SQ 1: ordered by SQ, a repeated one dropped, each continuing the one
 * before it (its first SQ right after, its prevHash the other's lastHash).
 */
export function orderChain(backups: readonly OpenedBackup[]): OpenedBackup[] {
  if (backups.length === 0) throw new FiscalError('#MISSING_FIELD', { field: 'path' });
  const sorted = [...backups].sort((a, b) => a.manifest.firstSQ - b.manifest.firstSQ || a.manifest.lastSQ - b.manifest.lastSQ);
  const first = sorted[0] as OpenedBackup;
  if (first.manifest.firstSQ !== 1 || first.manifest.kind === 'partial') {
    throw invalid(first, `it starts at SQ ${first.manifest.firstSQ}${first.manifest.from ? ` (from ${first.manifest.from})` : ''}: a restore needs the journal from SQ 1 (a full backup, then the incremental ones)`);
  }
  const chain: OpenedBackup[] = [first];
  for (const b of sorted.slice(1)) {
    const prev = (chain[chain.length - 1] as OpenedBackup).manifest;
    const m: BackupManifest = b.manifest;
    if (m.RN !== prev.RN) throw invalid(b, `it holds register ${m.RN}, the others ${prev.RN}`);
    if (m.firstSQ === prev.firstSQ && m.lastSQ === prev.lastSQ && m.lastHash === prev.lastHash) continue;
    if (m.firstSQ === 1 && m.kind !== 'partial') {
      // a later full backup holds everything the ones before it held
      chain.length = 0;
      chain.push(b);
      continue;
    }
    if (m.firstSQ !== prev.lastSQ + 1 || m.prevHash !== prev.lastHash) {
      throw invalid(b, `it holds SQ ${m.firstSQ} to ${m.lastSQ} and does not continue ${prev.name} (SQ ${prev.firstSQ} to ${prev.lastSQ})`);
    }
    chain.push(b);
  }
  return chain;
}

const restorers = new WeakMap<ServiceContext, Restorer>();

export function restorerOf(ctx: ServiceContext): Restorer {
  let r = restorers.get(ctx);
  if (!r) {
    r = new Restorer(ctx);
    restorers.set(ctx, r);
  }
  return r;
}

export type { Restorer };
