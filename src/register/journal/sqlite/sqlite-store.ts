/**
 * The embedded journal: one SQLite file in the data folder, WAL mode with synchronous=FULL,
 * so that a commit is on disk before it returns. Triggers refuse any UPDATE of a record and any DELETE
 * but the one of cleaning: records up to a register's cut (journal_cut), which keeps the hash of the
 * last removed record so that the rest of the chain still verifies from it.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type StoredRow, recordOfRow } from '../stored-row.js';
import { Worker } from 'node:worker_threads';
import { type Appender, createAppender, openForWriting } from './append.js';
import { CUT_STEP, type MaintainOp, VACUUM_STEP, maintainStep } from './maintain.js';
import { FIND_EQUAL_COLUMNS, type FindQuery, type JournalCut, type JournalRecord, type JournalStore, type RegisterState } from '../types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS registers (
  rid   INTEGER PRIMARY KEY,
  rn    TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
  rid  INTEGER NOT NULL,
  sq   INTEGER NOT NULL,
  type TEXT NOT NULL,
  d    TEXT NOT NULL,
  tl   TEXT, tt TEXT, tn TEXT, fn TEXT, t TEXT, nfs TEXT, bc TEXT,
  ch   BLOB, rh BLOB, ref TEXT, resume TEXT,
  data BLOB NOT NULL, -- the record's JSON text, deflate-compressed (raw deflate)
  hash BLOB NOT NULL,
  sig  BLOB NOT NULL,
  UNIQUE (rid, sq)
);
-- lookups end with sq, so that they come out in SQ order without sorting (and the planner prefers them
-- to walking the (rid, sq) key)
CREATE INDEX IF NOT EXISTS journal_tn ON journal (rid, tn, tt, tl, sq) WHERE tn IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_fn ON journal (rid, fn, sq) WHERE fn IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_ref ON journal (rid, ref, sq) WHERE ref IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_d ON journal (rid, d);
CREATE INDEX IF NOT EXISTS journal_resume ON journal (rid, resume, sq) WHERE resume IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
  BEGIN SELECT RAISE(ABORT, 'journal records cannot be changed'); END;
-- cleaning (POST /disk/clean): records 1..sq of a register are removed; hash is record sq's, the
-- previous hash of the first remaining record. A cut only moves forward.
CREATE TABLE IF NOT EXISTS journal_cut (
  rid  INTEGER PRIMARY KEY,
  sq   INTEGER NOT NULL,
  hash BLOB NOT NULL,
  d    TEXT NOT NULL,
  at   TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS journal_cut_forward BEFORE UPDATE ON journal_cut
  WHEN NEW.sq < OLD.sq OR NEW.rid <> OLD.rid
  BEGIN SELECT RAISE(ABORT, 'a journal cut cannot move back'); END;
CREATE TRIGGER IF NOT EXISTS journal_cut_kept BEFORE DELETE ON journal_cut
  BEGIN SELECT RAISE(ABORT, 'a journal cut cannot be removed'); END;
CREATE TABLE IF NOT EXISTS settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/** Records can be deleted only up to their register's cut (journals made before cleaning existed refused every DELETE). */
const DELETE_TRIGGER = `
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
  WHEN OLD.sq > COALESCE((SELECT sq FROM journal_cut WHERE rid = OLD.rid), 0)
  BEGIN SELECT RAISE(ABORT, 'journal records cannot be deleted'); END;
`;

function installDeleteTrigger(db: Db): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'journal_no_delete'").get() as { sql: string } | undefined;
  if (row?.sql.includes('journal_cut')) return;
  db.transaction(() => {
    db.exec('DROP TRIGGER IF EXISTS journal_no_delete');
    db.exec(DELETE_TRIGGER);
  })();
}

type Row = StoredRow<number>;
const recordOf = (r: Row): JournalRecord => recordOfRow(r, (v) => v);

/** Event loop idle time that makes a batch a quiet one (commitsHere): more than the loop's own turn, less than any client's. */
const QUIET_IDLE_MS = 0.05;

/**
 * The most records a quiet batch has: a transaction with the automatic receipts sealed before it. A larger
 * batch (a restore appends a whole journal in one) goes to the writer, which keeps the event loop free meanwhile.
 */
const QUIET_MAX_RECORDS = 8;

/** The event loop's idle time so far, in ms: it grows only while the loop waits for work. */
const idleTime = (): number => performance.eventLoopUtilization().idle;


/** The signatures the appender made, set on the records handed over unsigned (by position). */
function setSignatures(records: readonly JournalRecord[], sigs: ReadonlyArray<Uint8Array | undefined>): void {
  for (let i = 0; i < records.length; i++) {
    const sig = sigs[i];
    const r = records[i];
    if (sig !== undefined && sig !== null && r !== undefined) r.sig = Buffer.isBuffer(sig) ? sig : Buffer.from(sig.buffer, sig.byteOffset, sig.byteLength);
  }
}

export class SqliteJournalStore implements JournalStore {
  /** one process owns the file */
  readonly shared = false;
  private readonly db: Db;
  private readonly selectByTn: Statement;
  private readonly selectOne: Statement;
  private readonly selectByRef: Statement;
  private readonly selectByFn: Statement;
  private readonly selectByResume: Statement;
  private readonly selectRange: Statement;
  /** appends on this thread (every one without a writer thread, a quiet one with it: commitsHere), made at the first */
  private appendHere: Appender | undefined;
  private readonly writer: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (value: number, sigs?: ReadonlyArray<Uint8Array | undefined>) => void; reject: (e: Error) => void }>();
  readonly signsRecords = true;
  private nextBatch = 1;
  private writerError: Error | undefined;
  /** an append failed on this thread: it stops the later ones, on either thread, until resume() */
  private failed: Error | undefined;
  /** the event loop's idle time (ms, cumulative) when the last append settled (see commitsHere) */
  private idleAtSettle = 0;
  /** batches committed on this thread and by the writer thread (for measurements and tests) */
  readonly commits = { here: 0, writer: 0 };

  /** with a writer thread: whether a quiet batch is committed on this thread (commitsHere) */
  private readonly quietHere: boolean;

  /**
   * @param options.writerThread commit in a worker thread (the service does; tools and tests may not)
   * @param options.quietHere with the writer thread, commit a quiet batch on this thread (default true; see commitsHere)
   * @param options.nosync skip fsync (IO_nosync; never for fiscal use)
   */
  constructor(file: string, options: { nosync?: boolean; writerThread?: boolean; quietHere?: boolean } = {}) {
    this.quietHere = options.quietHere !== false;
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    // a new file gives the pages of cleaned records back (PRAGMA incremental_vacuum); must precede WAL
    this.db.pragma('auto_vacuum = INCREMENTAL');
    openForWriting(this.db, options.nosync);
    this.db.exec(SCHEMA);
    installDeleteTrigger(this.db);
    if (options.writerThread) {
      const workerData = { file, nosync: options.nosync === true };
      if (import.meta.url.endsWith('.ts')) {
        // run from the TypeScript sources (tests, bench): the thread registers the tsx loader first
        const entry = new URL('./writer-thread.ts', import.meta.url).href;
        const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
        this.writer = new Worker(boot, { eval: true, workerData });
      } else {
        this.writer = new Worker(new URL('./writer-thread.js', import.meta.url), { workerData });
      }
      this.writer.on('message', (m: { id: number; ok: boolean; value?: number; sigs?: Array<Uint8Array | undefined>; error?: string; code?: string }) => {
        this.idleAtSettle = idleTime();
        const w = this.waiting.get(m.id);
        if (!w) return;
        this.waiting.delete(m.id);
        if (m.ok) w.resolve(m.value ?? 0, m.sigs);
        else w.reject(Object.assign(new Error(m.error ?? 'journal write failed'), m.code ? { code: m.code } : {}));
      });
      const fail = (e: Error): void => {
        this.writerError = e;
        for (const w of this.waiting.values()) w.reject(e);
        this.waiting.clear();
      };
      this.writer.on('error', fail);
      this.writer.on('exit', (code) => fail(new Error(`journal writer stopped (${code})`)));
    }
    this.selectByTn = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND tn = ? AND tt = ? AND tl = ? ORDER BY sq');
    this.selectOne = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND sq = ?');
    this.selectByRef = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND ref = ? ORDER BY sq');
    this.selectByFn = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND fn = ? ORDER BY sq');
    this.selectByResume = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND resume = ? ORDER BY sq');
    this.selectRange = this.db.prepare('SELECT * FROM journal WHERE rid = ? AND sq >= ? AND sq <= ? ORDER BY sq LIMIT 500');
  }

  async loadRegisters(rids?: readonly number[]): Promise<RegisterState[]> {
    const rows = (rids === undefined
      ? this.db.prepare('SELECT rid, state FROM registers ORDER BY rid').all()
      : this.db.prepare("SELECT rid, state FROM registers WHERE rid IN (SELECT value FROM json_each(?)) ORDER BY rid").all(JSON.stringify(rids))) as { rid: number; state: string }[];
    return rows.map((r) => ({ ...(JSON.parse(r.state) as RegisterState), rid: r.rid }));
  }

  async createRegister(rn: string, state: Omit<RegisterState, 'rid'>): Promise<number> {
    const info = this.db.prepare('INSERT INTO registers (rn, state) VALUES (?, ?)').run(rn, JSON.stringify(state));
    return Number(info.lastInsertRowid);
  }

  async append(records: readonly JournalRecord[], states: ReadonlyMap<number, string>, signingKey?: KeyObject): Promise<void> {
    // after a failure nothing is chained on top of it, on either thread, until the state was read back
    if (this.failed) throw this.failed;
    if (this.writerError) throw this.writerError;
    if (!this.writer || this.commitsHere(records.length)) {
      this.appendHere ??= createAppender(this.db);
      try {
        setSignatures(records, this.appendHere(records, states, signingKey));
        this.commits.here += 1;
      } catch (e) {
        this.failed = e instanceof Error ? e : new Error(String(e));
        throw e;
      } finally {
        this.idleAtSettle = idleTime();
      }
      return;
    }
    this.commits.writer += 1;
    const id = this.nextBatch++;
    const done = new Promise<void>((resolve, reject) =>
      this.waiting.set(id, {
        resolve: (_value, sigs) => {
          setSignatures(records, sigs ?? []);
          resolve();
        },
        reject,
      }),
    );
    this.writer.postMessage({ id, records, states: [...states], ...(signingKey ? { key: signingKey } : {}) });
    return done;
  }

  /**
   * Whether a batch is committed on this thread rather than by the writer thread: when nothing is with the
   * writer and the event loop waited for work since the last append settled, no other request was ready
   * meanwhile. That is a lone request (one POS sending receipts one after the other, the common case): it
   * is committed here, without waking the writer thread and then this thread again (a thread that slept
   * runs its first work several times slower), which is a large part of its answer time. Under load the
   * event loop never waits between two appends, and batches go to the writer, so that this thread goes on
   * with the requests while the disk works.
   */
  private commitsHere(size: number): boolean {
    return this.quietHere && size <= QUIET_MAX_RECORDS && this.waiting.size === 0 && idleTime() - this.idleAtSettle > QUIET_IDLE_MS;
  }

  /** One step of cleaning, where the appends run: queued behind the batches posted before it. */
  private async maintain(op: MaintainOp): Promise<number> {
    if (!this.writer) return maintainStep(this.db, op);
    if (this.writerError) throw this.writerError;
    const id = this.nextBatch++;
    const done = new Promise<number>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.writer.postMessage({ id, maintain: op });
    return done;
  }

  async byTn(rid: number, tl: string, tt: string, tn: string): Promise<JournalRecord[]> {
    return (this.selectByTn.all(rid, tn, tt, tl) as Row[]).map(recordOf);
  }

  async get(rid: number, sq: number): Promise<JournalRecord | undefined> {
    const row = this.selectOne.get(rid, sq) as Row | undefined;
    return row ? recordOf(row) : undefined;
  }

  async resume(): Promise<void> {
    this.failed = undefined;
    this.writer?.postMessage('resume');
  }

  async byFn(rid: number, fn: string): Promise<JournalRecord[]> {
    return (this.selectByFn.all(rid, fn) as Row[]).map(recordOf);
  }

  async byResume(rid: number, fn: string): Promise<JournalRecord[]> {
    return (this.selectByResume.all(rid, fn) as Row[]).map(recordOf);
  }

  async byRef(rid: number, ref: string): Promise<JournalRecord[]> {
    return (this.selectByRef.all(rid, ref) as Row[]).map(recordOf);
  }

  async *range(rid: number, from: number, to = Number.MAX_SAFE_INTEGER): AsyncIterable<JournalRecord> {
    let next = from;
    for (;;) {
      const rows = this.selectRange.all(rid, next, to) as Row[];
      for (const row of rows) yield recordOf(row);
      if (rows.length < 500) return;
      next = (rows[rows.length - 1] as Row).sq + 1;
    }
  }

  async *find(rid: number, q: FindQuery, pageSize = 200): AsyncIterable<JournalRecord> {
    const where: string[] = ['rid = @rid'];
    const params: Record<string, string | number> = { rid };
    const eq = (column: string, value: string | number | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = @${column}`);
      params[column] = value;
    };
    for (const column of FIND_EQUAL_COLUMNS) eq(column, q[column]);
    if (q.d !== undefined) {
      // a date or date-time prefix: a range on the index
      where.push('d >= @dlo AND d < @dhi');
      params.dlo = q.d;
      params.dhi = `${q.d}\uffff`;
    }
    if (q.from !== undefined) {
      where.push('d >= @from');
      params.from = q.from;
    }
    if (q.before !== undefined) {
      where.push('d < @before');
      params.before = q.before;
    }
    if (q.endSq !== undefined) {
      where.push('sq <= @endSq');
      params.endSq = q.endSq;
    }
    const asc = q.sort === 'asc';
    let after = q.afterSq;
    const sql = (withAfter: boolean): string =>
      `SELECT * FROM journal WHERE ${where.join(' AND ')}${withAfter ? ` AND sq ${asc ? '>' : '<'} @after` : ''} ORDER BY sq ${asc ? 'ASC' : 'DESC'} LIMIT ${pageSize}`;
    const first = this.db.prepare(sql(after !== undefined));
    const next = this.db.prepare(sql(true));
    for (let page = 0; ; page++) {
      const stmt = page === 0 ? first : next;
      const rows = stmt.all(after === undefined ? params : { ...params, after }) as Row[];
      for (const row of rows) yield recordOf(row);
      if (rows.length < pageSize) return;
      after = (rows[rows.length - 1] as Row).sq;
      // a long search lets the registrations in between: one page at a time
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async count(rid?: number): Promise<number> {
    const row = (rid === undefined
      ? this.db.prepare('SELECT count(*) AS n FROM journal').get()
      : this.db.prepare('SELECT count(*) AS n FROM journal WHERE rid = ?').get(rid)) as { n: number };
    return row.n;
  }

  async cutOf(rid: number): Promise<JournalCut | undefined> {
    const row = this.db.prepare('SELECT sq, hash, d, at FROM journal_cut WHERE rid = ?').get(rid) as { sq: number; hash: Buffer; d: string; at: string } | undefined;
    return row ? { sq: row.sq, hash: row.hash.toString('hex'), d: row.d, at: row.at } : undefined;
  }

  async removeUpTo(rid: number, sq: number, at: string): Promise<number> {
    const from = (await this.cutOf(rid))?.sq ?? 0;
    if (!Number.isSafeInteger(sq) || sq <= from) return 0;
    const last = (this.db.prepare('SELECT max(sq) AS sq FROM journal WHERE rid = ?').get(rid) as { sq: number | null }).sq ?? 0;
    if (sq >= last) throw new Error(`the last record of a register stays: cannot remove up to SQ ${sq} of ${last}`);
    // steps of CUT_STEP records, each moving the cut first in the same transaction as the records it lets
    // go; the batches of registrations posted meanwhile are committed between them
    let removed = 0;
    for (let lo = from; lo < sq; lo = Math.min(sq, lo + CUT_STEP)) {
      removed += await this.maintain({ op: 'cut', rid, lo, hi: Math.min(sq, lo + CUT_STEP), at });
      if (!this.writer) await new Promise((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  /**
   * Gives the pages of removed records back, VACUUM_STEP pages per step, in turn with the appends.
   * A journal made before auto_vacuum was set (auto_vacuum=0) is never rewritten by VACUUM here (that
   * holds the file for as long as it takes to copy it, and appends would time out): its free pages are
   * reused by later records instead.
   */
  async compact(): Promise<void> {
    const mode = this.db.pragma('auto_vacuum', { simple: true }) as number;
    if (mode === 2) {
      let free = this.db.pragma('freelist_count', { simple: true }) as number;
      while (free > 0) {
        const left = await this.maintain({ op: 'vacuum', pages: VACUUM_STEP });
        if (left >= free) break; // nothing more to give back
        free = left;
        if (!this.writer) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await this.maintain({ op: 'checkpoint' });
  }

  async getSetting(key: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  async putSetting(key: string, value: string): Promise<void> {
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  async swapSetting(key: string, expected: string | undefined, value: string): Promise<boolean> {
    const r = expected === undefined
      ? this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value)
      : this.db.prepare('UPDATE settings SET value = ? WHERE key = ? AND value = ?').run(value, key, expected);
    return r.changes === 1;
  }

  async heads(rn?: string): Promise<Array<{ rid: number; rn: string; sq: number }>> {
    const sql = "SELECT rid, rn, json_extract(state, '$.sq') AS sq FROM registers";
    type Row = { rid: number; rn: string; sq: number | null };
    const rows = (rn === undefined ? this.db.prepare(`${sql} ORDER BY rid`).all() : this.db.prepare(`${sql} WHERE rn = ?`).all(rn)) as Row[];
    return rows.map((r) => ({ rid: r.rid, rn: r.rn, sq: r.sq ?? 0 }));
  }

  async close(): Promise<void> {
    if (this.writer && !this.writerError) {
      const exited = new Promise<void>((resolve) => this.writer?.once('exit', () => resolve()));
      this.writer.postMessage('close');
      await exited;
    }
    this.db.close();
  }
}
