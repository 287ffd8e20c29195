/**
 * The backup zip (GET /backup, /backup/incremental; read back by /backup/restore), format `efr-backup-1`:
 *   manifest.json   RN, kind, SQ range (firstSQ..lastSQ, count), prevHash (hash before firstSQ), lastHash,
 *                   the instance key id, and the SHA-256 of every other entry but journal.jsonl
 *   state.json      the register's committed state (counters, chain head, Cfg) at lastSQ
 *   settings.json   the register's settings of the store (profile:<RN>, ...), key to text
 *   files/...       the register's key and device folders of the data folder (keys/instance.*.pem,
 *                   at/<cashbox>/, de/<RN>/, fr/<RN>/, es/<NIF>/, pt/...), by their path under the data folder
 *   journal.jsonl   the records firstSQ..lastSQ, one JSON object a line (every stored column), in SQ order;
 *                   checked on restore by the chain itself (hash from prevHash, SQ by SQ, ending at lastHash)
 * The name is `<RN>_<lastSQ>.zip` (RN with only [A-Za-z0-9._-]): a backup without new records has the
 * name of the one before it.
 */
import type { JournalRecord, RecordType, RegisterState } from '../journal/types.js';
import { RECORD_TYPES } from '../journal/types.js';

export const BACKUP_FORMAT = 'efr-backup-1';

export type BackupKind = 'full' | 'incremental' | 'partial';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** the backup's name without .zip */
  name: string;
  RN: string;
  /** full: from SQ 1; incremental: what came after the backup `after`; partial: from a date (not restorable alone) */
  kind: BackupKind;
  firstSQ: number;
  lastSQ: number;
  count: number;
  prevHash: string;
  lastHash: string;
  /** the name of the backup this one continues (incremental) */
  after?: string;
  from?: string;
  createdAt: string;
  generator: string;
  keyId: string;
  /** SHA-256 (hex) of every entry except journal.jsonl and manifest.json */
  sha256: Record<string, string>;
}

export const ENTRY_MANIFEST = 'manifest.json';
export const ENTRY_STATE = 'state.json';
export const ENTRY_SETTINGS = 'settings.json';
export const ENTRY_JOURNAL = 'journal.jsonl';
export const FILES_PREFIX = 'files/';

/** A register number as a file name part. */
export function safeRn(rn: string): string {
  return rn.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'register';
}

export function backupName(rn: string, lastSq: number): string {
  return `${safeRn(rn)}_${lastSq}`;
}

/** `def_123`, `def_123.zip` or a path ending in one: the RN part and the last SQ; undefined when it is no backup name. */
export function parseBackupName(name: string): { rn: string; lastSq: number } | undefined {
  const base = name.split(/[\\/]/).pop() ?? '';
  const m = /^(.+)_(\d{1,15})(?:\.zip)?$/i.exec(base);
  if (!m) return undefined;
  return { rn: m[1] as string, lastSq: Number(m[2]) };
}

interface RecordLine {
  sq: number;
  type: string;
  d: string;
  tl?: string; tt?: string; tn?: string; fn?: string; t?: string; nfs?: string; bc?: string;
  ch?: string; rh?: string; ref?: string; resume?: string;
  data: string;
  hash: string;
  sig: string;
}

const TEXT_COLUMNS = ['tl', 'tt', 'tn', 'fn', 't', 'nfs', 'bc', 'ref', 'resume'] as const;

/** One record as a line of journal.jsonl (with its line feed). */
export function recordLine(r: JournalRecord): string {
  const line: RecordLine = { sq: r.sq, type: r.type, d: r.d, data: r.data, hash: r.hash.toString('hex'), sig: r.sig.toString('base64') };
  for (const c of TEXT_COLUMNS) if (r[c] !== undefined) line[c] = r[c];
  if (r.ch) line.ch = r.ch.toString('base64');
  if (r.rh) line.rh = r.rh.toString('base64');
  return `${JSON.stringify(line)}\n`;
}

/** A line of journal.jsonl back as a record of register `rid`; throws a message naming what is wrong. */
export function parseRecordLine(text: string, rid: number): JournalRecord {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('a line of journal.jsonl is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('a line of journal.jsonl is not an object');
  const o = v as Record<string, unknown>;
  const text_ = (k: string): string | undefined => {
    const x = o[k];
    if (x === undefined) return undefined;
    if (typeof x !== 'string') throw new Error(`field ${k} of a record is not text`);
    return x;
  };
  const sq = o.sq;
  if (typeof sq !== 'number' || !Number.isSafeInteger(sq) || sq < 1) throw new Error('a record has no valid sq');
  const type = text_('type');
  if (!type || !(RECORD_TYPES as readonly string[]).includes(type)) throw new Error(`record SQ ${sq} has an unknown type`);
  const data = text_('data');
  const hash = text_('hash');
  const sig = text_('sig');
  const d = text_('d');
  if (data === undefined || hash === undefined || sig === undefined || d === undefined) throw new Error(`record SQ ${sq} lacks data, hash, sig or d`);
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`record SQ ${sq} has no valid hash`);
  const rec: JournalRecord = { rid, sq, type: type as RecordType, d, data, hash: Buffer.from(hash, 'hex'), sig: Buffer.from(sig, 'base64') };
  for (const c of TEXT_COLUMNS) {
    const x = text_(c);
    if (x !== undefined) rec[c] = x;
  }
  const ch = text_('ch');
  const rh = text_('rh');
  if (ch !== undefined) rec.ch = Buffer.from(ch, 'base64');
  if (rh !== undefined) rec.rh = Buffer.from(rh, 'base64');
  return rec;
}

/** The state as stored (without rid). */
export type StoredState = Omit<RegisterState, 'rid'>;

/** Reads and checks a manifest.json text; throws a message naming what is wrong. */
export function parseManifest(text: string): BackupManifest {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('manifest.json is not JSON');
  }
  if (typeof v !== 'object' || v === null) throw new Error('manifest.json is not an object');
  const m = v as Partial<BackupManifest>;
  if (m.format !== BACKUP_FORMAT) throw new Error(`manifest.json is not of format ${BACKUP_FORMAT}`);
  const int = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (typeof m.RN !== 'string' || m.RN === '') throw new Error('manifest.json names no RN');
  if (!int(m.firstSQ) || !int(m.lastSQ) || !int(m.count)) throw new Error('manifest.json has no valid SQ range');
  if ((m.count as number) !== (m.lastSQ as number) - (m.firstSQ as number) + 1) throw new Error('manifest.json: count does not match firstSQ..lastSQ');
  if (typeof m.prevHash !== 'string' || typeof m.lastHash !== 'string') throw new Error('manifest.json has no prevHash or lastHash');
  if (typeof m.sha256 !== 'object' || m.sha256 === null) throw new Error('manifest.json has no sha256 list');
  if (m.kind !== 'full' && m.kind !== 'incremental' && m.kind !== 'partial') throw new Error('manifest.json has no valid kind');
  return m as BackupManifest;
}
