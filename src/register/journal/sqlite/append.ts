/**
 * The one SQLite write path of the journal: records and register states in one transaction.
 * Used on the main thread, or in the writer thread (writer-thread.ts).
 */
import type { Database as Db } from 'better-sqlite3';
import type { KeyObject } from 'node:crypto';
import { signWithKey } from '../../security/signer.js';
import { packRecordText } from '../record-text.js';
import type { JournalRecord } from '../types.js';

/**
 * Writes records and states in one transaction; returns the signatures it made (JournalStore.signsRecords),
 * by the records' positions, for records handed over unsigned.
 */
export type Appender = (
  records: readonly JournalRecord[],
  states: ReadonlyMap<number, string> | ReadonlyArray<[number, string]>,
  signingKey?: KeyObject,
) => Array<Buffer | undefined>;

/** Buffers that crossed a thread boundary arrive as plain Uint8Arrays. */
function buf(v: Uint8Array | undefined): Buffer | null {
  if (v === undefined) return null;
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function openForWriting(db: Db, nosync = false): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${nosync ? 'OFF' : 'FULL'}`);
  db.pragma('busy_timeout = 10000');
}

export function createAppender(db: Db): Appender {
  const insert = db.prepare(
    'INSERT INTO journal (rid, sq, type, d, tl, tt, tn, fn, t, nfs, bc, ch, rh, ref, resume, data, hash, sig) VALUES (@rid, @sq, @type, @d, @tl, @tt, @tn, @fn, @t, @nfs, @bc, @ch, @rh, @ref, @resume, @data, @hash, @sig)',
  );
  const updateState = db.prepare('UPDATE registers SET state = ? WHERE rid = ?');
  return db.transaction((records: readonly JournalRecord[], states: ReadonlyMap<number, string> | ReadonlyArray<[number, string]>, signingKey?: KeyObject) => {
    const made: Array<Buffer | undefined> = [];
    for (const r of records) {
      let sig = buf(r.sig);
      if ((sig === null || sig.length === 0) && r.payload !== undefined && signingKey !== undefined) {
        sig = signWithKey(signingKey, r.payload);
        made[made.length] = sig;
      } else made[made.length] = undefined;
      insert.run({
        rid: r.rid, sq: r.sq, type: r.type, d: r.d, tl: r.tl ?? null, tt: r.tt ?? null, tn: r.tn ?? null, fn: r.fn ?? null,
        t: r.t ?? null, nfs: r.nfs ?? null, bc: r.bc ?? null, ch: buf(r.ch), rh: buf(r.rh), ref: r.ref ?? null, resume: r.resume ?? null,
        data: packRecordText(r.data), hash: buf(r.hash), sig,
      });
    }
    for (const [rid, state] of states) updateState.run(state, rid);
    return made;
  });
}
