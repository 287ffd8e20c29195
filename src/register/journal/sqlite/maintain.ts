/**
 * Cleaning's writes to the journal file, one small step each: removing records up to a cut, giving freed
 * pages back (incremental_vacuum of a bounded number of pages) and the final WAL checkpoint. They run where
 * the appends run (the writer thread, or inline), one step per message, so that append batches queued
 * meanwhile are committed between two steps instead of waiting for the lock.
 */
import type { Database as Db } from 'better-sqlite3';

/** Records removed per step. */
export const CUT_STEP = 2000;
/** Pages given back per step (4 KiB each by default): an append waits at most for one such step. */
export const VACUUM_STEP = 256;

export type MaintainOp =
  | { op: 'cut'; rid: number; lo: number; hi: number; at: string }
  | { op: 'vacuum'; pages: number }
  | { op: 'checkpoint' };

/** Runs one step; answers the records removed (cut), the free pages left (vacuum), or 0. */
export function maintainStep(db: Db, m: MaintainOp): number {
  switch (m.op) {
    case 'cut':
      return cutStep(db, m.rid, m.lo, m.hi, m.at);
    case 'vacuum': {
      const pages = Math.max(1, Math.min(VACUUM_STEP, Math.floor(m.pages)));
      db.exec(`PRAGMA incremental_vacuum(${pages})`);
      return db.pragma('freelist_count', { simple: true }) as number;
    }
    case 'checkpoint':
      // the WAL file is truncated: the space of the moved pages comes back too
      db.pragma('wal_checkpoint(TRUNCATE)');
      return 0;
  }
}

/** Removes records lo+1..hi of a register, moving its cut to hi first (in the same transaction). */
function cutStep(db: Db, rid: number, lo: number, hi: number, at: string): number {
  const anchorOf = db.prepare('SELECT hash, d FROM journal WHERE rid = ? AND sq = ?');
  const setCut = db.prepare('INSERT INTO journal_cut (rid, sq, hash, d, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (rid) DO UPDATE SET sq = excluded.sq, hash = excluded.hash, d = excluded.d, at = excluded.at');
  const remove = db.prepare('DELETE FROM journal WHERE rid = ? AND sq > ? AND sq <= ?');
  return db.transaction((): number => {
    const anchor = anchorOf.get(rid, hi) as { hash: Buffer; d: string } | undefined;
    if (!anchor) throw new Error(`journal of register ${rid} has no record SQ ${hi}: cannot cut there`);
    setCut.run(rid, hi, anchor.hash, anchor.d, at);
    return remove.run(rid, lo, hi).changes;
  })();
}
