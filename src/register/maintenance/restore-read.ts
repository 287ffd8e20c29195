/**
 * Reading backup zips for a restore: the manifest, the small entries checked against its SHA-256 list,
 * and the records of journal.jsonl checked as a chain (SQ by SQ from prevHash to lastHash, each record's
 * hash over its data, its signature with the backup's instance key). Nothing is written here.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import { FiscalError } from '../../shared/errors.js';
import { chainHash, signingPayload } from '../journal/chain.js';
import type { JournalRecord } from '../journal/types.js';
import { verifySignature } from '../security/signer.js';
import { type BackupManifest, ENTRY_JOURNAL, ENTRY_MANIFEST, ENTRY_SETTINGS, ENTRY_STATE, FILES_PREFIX, type StoredState, parseManifest, parseRecordLine } from './backup-format.js';

/** Limits of what a restore reads (a zip bomb, or a crafted entry, is refused before it fills the memory). */
export const RESTORE_LIMITS = {
  /** entries of one zip (a German register's de/<RN>/backup/ gains two files a day) */
  entries: 100_000,
  /** manifest.json, state.json, settings.json, each */
  small: 16 * 1024 * 1024,
  /** one entry under files/ (keys, certificates, a TSE's files and its daily backups), read whole */
  file: 64 * 1024 * 1024,
  /** all entries under files/ of one zip (staged on disk one at a time, never all in memory) */
  files: 1024 * 1024 * 1024,
  /** one line of journal.jsonl (a record: a request of at most 4 MiB, escaped twice) */
  line: 32 * 1024 * 1024,
  /** journal.jsonl of all the backups of one restore: the records are held for one store transaction */
  journal: 512 * 1024 * 1024,
} as const;

export interface OpenedBackup {
  /** the file it was read from */
  source: string;
  manifest: BackupManifest;
  /** the uncompressed size of journal.jsonl (0 without one) */
  journalBytes: number;
  /** an entry's bytes, checked against the manifest's SHA-256 */
  entry(name: string): Promise<Buffer>;
  /** names of the entries under files/ (without the prefix) */
  fileNames(): string[];
  /** the records of journal.jsonl, checked as a chain, as records of register `rid` */
  records(rid: number, publicKey: KeyObject): AsyncIterable<JournalRecord>;
  close(): void;
}

const bad = (source: string, detail: string): FiscalError => new FiscalError('#BACKUP_INVALID', { value: source.split(/[\\/]/).pop() ?? source, detail });

const MiB = 1024 * 1024;

/** An entry's bytes, at most `limit` (yauzl also checks that the entry holds no more than its stated size). */
async function readAll(source: string, zip: ZipFile, entry: Entry, limit: number): Promise<Buffer> {
  const tooLarge = (): FiscalError => bad(source, `the entry ${entry.fileName} is larger than ${limit / MiB} MiB`);
  if (entry.uncompressedSize > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await zip.openReadStreamPromise(entry)) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The lines of a stream, each at most `limit` bytes (UTF-8 decoded whole, never split inside a character). */
async function* linesOf(stream: NodeJS.ReadableStream, limit: number, tooLong: () => Error): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    let chunk = c as Buffer;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10)) {
      if (size + nl > limit) throw tooLong();
      parts.push(chunk.subarray(0, nl));
      yield Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
      parts = [];
      size = 0;
      chunk = chunk.subarray(nl + 1);
    }
    size += chunk.length;
    if (size > limit) throw tooLong();
    if (chunk.length > 0) parts.push(chunk);
  }
  if (size > 0) yield Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
}

/** Opens a backup zip and reads its manifest; #BACKUP_INVALID when it is none. */
export async function openBackup(source: string): Promise<OpenedBackup> {
  let zip: ZipFile;
  try {
    zip = await openPromise(source, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw bad(source, `not a zip file (${e instanceof Error ? e.message : String(e)})`);
  }
  try {
    if (zip.entryCount > RESTORE_LIMITS.entries) throw bad(source, `it holds ${zip.entryCount} entries, more than a backup has (${RESTORE_LIMITS.entries})`);
    const entries = new Map<string, Entry>();
    let filesSize = 0;
    for await (const e of zip.eachEntry()) {
      if (e.fileName.endsWith('/')) continue;
      if (entries.has(e.fileName)) throw bad(source, `the entry ${e.fileName} is there twice`);
      if (e.fileName.startsWith(FILES_PREFIX)) {
        if (e.uncompressedSize > RESTORE_LIMITS.file) throw bad(source, `the entry ${e.fileName} is larger than ${RESTORE_LIMITS.file / MiB} MiB`);
        filesSize += e.uncompressedSize;
        if (filesSize > RESTORE_LIMITS.files) throw bad(source, `its entries under files/ are larger than ${RESTORE_LIMITS.files / MiB} MiB together`);
      }
      entries.set(e.fileName, e);
    }
    const manifestEntry = entries.get(ENTRY_MANIFEST);
    if (!manifestEntry) throw bad(source, 'it holds no manifest.json (is it a backup of GET /backup?)');
    let manifest: BackupManifest;
    const manifestText = (await readAll(source, zip, manifestEntry, RESTORE_LIMITS.small)).toString('utf8');
    try {
      manifest = parseManifest(manifestText);
    } catch (e) {
      throw bad(source, e instanceof Error ? e.message : String(e));
    }
    for (const name of [ENTRY_STATE, ENTRY_SETTINGS, ...Object.keys(manifest.sha256)]) {
      if (!entries.has(name)) throw bad(source, `the entry ${name} is missing`);
    }
    for (const name of entries.keys()) {
      if (name !== ENTRY_MANIFEST && name !== ENTRY_JOURNAL && manifest.sha256[name] === undefined) throw bad(source, `the entry ${name} is not in the manifest`);
      if (name.startsWith(FILES_PREFIX) && !safeRelative(name.slice(FILES_PREFIX.length))) throw bad(source, `the entry ${name} has an unsafe path`);
    }
    if (manifest.count > 0 && !entries.has(ENTRY_JOURNAL)) throw bad(source, 'journal.jsonl is missing');
    return {
      source,
      manifest,
      journalBytes: entries.get(ENTRY_JOURNAL)?.uncompressedSize ?? 0,
      async entry(name) {
        const e = entries.get(name);
        if (!e) throw bad(source, `the entry ${name} is missing`);
        const data = await readAll(source, zip, e, name.startsWith(FILES_PREFIX) ? RESTORE_LIMITS.file : RESTORE_LIMITS.small);
        if (createHash('sha256').update(data).digest('hex') !== manifest.sha256[name]) throw bad(source, `the entry ${name} does not match its SHA-256 in the manifest`);
        return data;
      },
      fileNames() {
        return [...entries.keys()].filter((n) => n.startsWith(FILES_PREFIX)).map((n) => n.slice(FILES_PREFIX.length)).sort();
      },
      async *records(rid, publicKey) {
        if (manifest.count === 0) return;
        const e = entries.get(ENTRY_JOURNAL) as Entry;
        const lines = linesOf(await zip.openReadStreamPromise(e), RESTORE_LIMITS.line, () => bad(source, `a line of journal.jsonl is longer than ${RESTORE_LIMITS.line / MiB} MiB`));
        let expected = manifest.firstSQ;
        let prev = manifest.prevHash;
        for await (const line of lines) {
          if (line === '') continue;
          let r: JournalRecord;
          try {
            r = parseRecordLine(line, rid);
          } catch (err) {
            throw bad(source, err instanceof Error ? err.message : String(err));
          }
          if (r.sq !== expected) throw bad(source, `record SQ ${r.sq} follows SQ ${expected - 1}: the journal has a gap or is reordered`);
          if (r.sq > manifest.lastSQ) throw bad(source, `record SQ ${r.sq} is after the manifest's last SQ ${manifest.lastSQ}`);
          if (!chainHash(prev, r.data).equals(r.hash)) throw bad(source, `record SQ ${r.sq}: the hash does not match its content and the previous hash`);
          let data: Record<string, unknown>;
          try {
            data = JSON.parse(r.data) as Record<string, unknown>;
          } catch {
            throw bad(source, `record SQ ${r.sq}: its data is not JSON`);
          }
          if (data.SQ !== String(r.sq) || data._ !== r.type) throw bad(source, `record SQ ${r.sq}: SQ or type inside the record differ`);
          if (!verifySignature(publicKey, signingPayload(data, r.hash.toString('hex')), r.sig)) throw bad(source, `record SQ ${r.sq}: the signature does not verify with the backup's instance key`);
          prev = r.hash.toString('hex');
          expected += 1;
          yield r;
        }
        if (expected !== manifest.lastSQ + 1) throw bad(source, `the journal ends at SQ ${expected - 1}, the manifest says ${manifest.lastSQ}`);
        if (prev !== manifest.lastHash) throw bad(source, 'the last record is not the one the manifest names (lastHash)');
      },
      close() {
        zip.close();
      },
    };
  } catch (e) {
    zip.close();
    throw e;
  }
}

/** A relative path that stays inside the data folder. */
export function safeRelative(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((p) => p !== '' && p !== '.' && p !== '..');
}

/** The backup zips a path names: the file itself, or the `.zip` files of a folder in name order (0001.zip, 0002.zip, ...). */
export function backupFilesOf(path: string): string[] {
  if (!existsSync(path)) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `${path} does not exist` });
  if (statSync(path).isFile()) return [path];
  const names = readdirSync(path).filter((n) => /\.zip$/i.test(n) && statSync(join(path, n)).isFile());
  if (names.length === 0) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `the folder ${path} holds no backup (.zip)` });
  return names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).map((n) => join(path, n));
}

/** The instance public key a backup's records are signed with (files/keys/instance.pub.pem). */
export async function backupPublicKey(b: OpenedBackup): Promise<KeyObject> {
  const name = `${FILES_PREFIX}keys/instance.pub.pem`;
  if (b.manifest.sha256[name] === undefined) throw bad(b.source, 'it holds no instance public key (files/keys/instance.pub.pem)');
  try {
    return createPublicKey(await b.entry(name));
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw bad(b.source, 'its instance public key cannot be read');
  }
}

export async function backupState(b: OpenedBackup): Promise<StoredState> {
  try {
    const s = JSON.parse((await b.entry(ENTRY_STATE)).toString('utf8')) as StoredState;
    if (typeof s !== 'object' || s === null || typeof s.sq !== 'number' || typeof s.hash !== 'string' || typeof s.rn !== 'string') throw new Error('no register state');
    return s;
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw bad(b.source, `state.json: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function backupSettings(b: OpenedBackup): Promise<Record<string, string>> {
  try {
    const s = JSON.parse((await b.entry(ENTRY_SETTINGS)).toString('utf8')) as unknown;
    if (typeof s !== 'object' || s === null || Array.isArray(s) || Object.values(s).some((v) => typeof v !== 'string')) throw new Error('not an object of texts');
    return s as Record<string, string>;
  } catch (e) {
    if (e instanceof FiscalError) throw e;
    throw bad(b.source, `settings.json: ${e instanceof Error ? e.message : String(e)}`);
  }
}
