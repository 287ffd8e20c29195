/**
 * The journal on PostgreSQL, for cloud instances where several register-service processes share one
 * database. The same contract as the SQLite journal, byte for byte the same records (data is stored
 * deflate-compressed as there, and comes back as the exact text).
 *
 * Appends: one statement, `SELECT journal_append(...)` (migrations.ts), in its own transaction with the
 * server's default synchronous_commit: it locks the registers written in rid order (SELECT ... FOR UPDATE),
 * refuses a stale register (StaleRegister: another process appended meanwhile), inserts the records and moves
 * each register's head and state. Appends are applied in the order they are made, one transaction at a
 * time; the appends that queue up while one commits go into the next transaction together (a second group
 * commit, below the one of group-commit.ts), so a commit's round trip is shared by everything waiting.
 *
 * int8 comes back as strings (converted: SQ and ids stay far below 2^53); bytea as Buffers.
 */
import pg from 'pg';
import type { PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { inTransaction, openPool } from '../../../shared/postgres.js';
import { type StoredRow, recordOfRow } from '../stored-row.js';
import { packRecordText } from '../record-text.js';
import {
  FIND_EQUAL_COLUMNS,
  RegisterExists, StaleRegister,
  type FindQuery, type JournalCut, type JournalRecord, type JournalStore, type RegisterState,
} from '../types.js';
import { JOURNAL_MIGRATIONS, STALE_REGISTER_SQLSTATE } from './migrations.js';

/** Records removed per cleaning step (one transaction each), as in SQLite. */
export const CUT_STEP = 2000;
/** Records per page of range(). */
const RANGE_PAGE = 500;

const MIGRATE_LOCK = "hashtext('efr journal store: migrate')";

type Row = StoredRow<string>;

/** int8 comes as a string: a number it must be, and a safe one. */
function int(v: string | number): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`stored integer out of range: ${v}`);
  return n;
}


/** journal_append's refusal of a stale register as StaleRegister; everything else as it is. */
function mapAppendError(err: unknown): unknown {
  if (!(err instanceof Error) || !('code' in err) || err.code !== STALE_REGISTER_SQLSTATE) return err;
  const detail = 'detail' in err && typeof err.detail === 'string' ? err.detail : '';
  const [rid, expected, found] = detail.split(',').map(Number);
  if (rid === undefined || expected === undefined || found === undefined || [rid, expected, found].some((n) => !Number.isSafeInteger(n))) return err;
  return new StaleRegister(rid, expected, found);
}

interface Queued {
  records: readonly JournalRecord[];
  states: ReadonlyMap<number, string>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The arguments of journal_append() for records and states (in the order they were made). */
export function appendArguments(records: readonly JournalRecord[], states: ReadonlyMap<number, string>): unknown[] {
  const heads = new Map<number, { expected: number; last: number }>();
  for (const r of records) {
    const h = heads.get(r.rid);
    if (!h) heads.set(r.rid, { expected: r.sq - 1, last: r.sq });
    else if (r.sq !== h.last + 1) throw new Error(`the records of register ${r.rid} are not consecutive: SQ ${r.sq} after ${h.last}`);
    else h.last = r.sq;
  }
  const headRids = [...heads.keys()].sort((a, b) => a - b);
  const lock = [...new Set([...headRids, ...states.keys()])].sort((a, b) => a - b);
  const col = <T>(f: (r: JournalRecord) => T): T[] => records.map(f);
  return [
    lock,
    headRids,
    headRids.map((rid) => heads.get(rid)?.expected ?? 0),
    headRids.map((rid) => heads.get(rid)?.last ?? 0),
    [...states.keys()],
    [...states.values()],
    col((r) => r.rid), col((r) => r.sq), col((r) => r.type), col((r) => r.d),
    col((r) => r.tl ?? null), col((r) => r.tt ?? null), col((r) => r.tn ?? null), col((r) => r.fn ?? null),
    col((r) => r.t ?? null), col((r) => r.nfs ?? null), col((r) => r.bc ?? null), col((r) => r.ch ?? null), col((r) => r.rh ?? null),
    col((r) => r.ref ?? null), col((r) => r.resume ?? null),
    // the record's JSON text, compressed as in SQLite (record-text.ts)
    col((r) => packRecordText(r.data)),
    col((r) => r.hash), col((r) => r.sig),
  ];
}

const APPEND_SQL = 'SELECT journal_append($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::bytea[], $19::bytea[], $20::text[], $21::text[], $22::bytea[], $23::bytea[], $24::bytea[])';

export interface PostgresJournalOptions {
  /** postgres://user[:password]@host[:port]/database[?options=-c search_path=...] */
  url: string;
  /** the schema to work in (search_path of every pooled connection); default: the URL's or the server's */
  schema?: string;
  /** pooled connections, default 10 (one at a time appends, the others read) */
  poolSize?: number;
  /** appends queued while one commits go into the next transaction together (default true) */
  mergeQueued?: boolean;
}

export class PostgresJournalStore implements JournalStore {
  /** several processes may append to it */
  readonly shared = true;
  private readonly pool: pg.Pool;
  private readonly mergeQueued: boolean;
  private queue: Queued[] = [];
  private running = false;
  private writing: Promise<void> = Promise.resolve();
  /** a failed append stops the later ones until resume() */
  private failed: unknown;
  /** the last error of an idle pooled connection (the pool replaces it; without a listener it would end the process) */
  lastIdleError: Error | undefined;
  /** transactions committed by append (a measure of how many appends share one) */
  commits = 0;

  constructor(options: PostgresJournalOptions) {
    this.mergeQueued = options.mergeQueued !== false;
    this.pool = openPool(options, (err) => {
      this.lastIdleError = err;
    });
  }

  private async rows<R extends QueryResultRow>(query: string | QueryConfig, params?: unknown[]): Promise<R[]> {
    return (await this.pool.query<R>(typeof query === 'string' ? { text: query, values: params ?? [] } : { ...query, values: params ?? [] })).rows;
  }

  private tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }

  /** Brings the schema to the newest version, once however many processes start at the same time. */
  async migrate(): Promise<void> {
    await this.tx(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
      await c.query('CREATE TABLE IF NOT EXISTS journal_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)');
      const applied = (await c.query<{ version: number }>('SELECT version FROM journal_migrations')).rows.map((r) => r.version);
      const newest = JOURNAL_MIGRATIONS.reduce((n, m) => Math.max(n, m.version), 0);
      const beyond = applied.filter((v) => v > newest);
      if (beyond.length > 0) throw new Error(`the journal database has schema version ${Math.max(...beyond)}, newer than this program knows (${newest}); update the program`);
      for (const m of [...JOURNAL_MIGRATIONS].sort((a, b) => a.version - b.version)) {
        if (applied.includes(m.version)) continue;
        await c.query(m.sql);
        await c.query('INSERT INTO journal_migrations (version, name, applied_at) VALUES ($1, $2, now())', [m.version, m.name]);
      }
    });
  }

  async loadRegisters(rids?: readonly number[]): Promise<RegisterState[]> {
    const rows = rids === undefined
      ? await this.rows<{ rid: string; state: string }>('SELECT rid, state FROM journal_registers ORDER BY rid')
      : await this.rows<{ rid: string; state: string }>('SELECT rid, state FROM journal_registers WHERE rid = ANY($1::bigint[]) ORDER BY rid', [rids.map(String)]);
    return rows.map((r) => ({ ...(JSON.parse(r.state) as RegisterState), rid: int(r.rid) }));
  }

  /** Two processes creating the same register: one inserts it, the other gets RegisterExists with its id. */
  async createRegister(rn: string, state: Omit<RegisterState, 'rid'>): Promise<number> {
    const made = await this.rows<{ rid: string }>('INSERT INTO journal_registers (rn, state) VALUES ($1, $2) ON CONFLICT (rn) DO NOTHING RETURNING rid', [rn, JSON.stringify(state)]);
    if (made[0]) return int(made[0].rid);
    const existing = await this.rows<{ rid: string }>('SELECT rid FROM journal_registers WHERE rn = $1', [rn]);
    if (!existing[0]) throw new Error(`register ${rn} could not be created`);
    throw new RegisterExists(rn, int(existing[0].rid));
  }

  append(records: readonly JournalRecord[], states: ReadonlyMap<number, string>): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ records, states, resolve, reject });
      if (!this.running) {
        this.running = true;
        this.writing = this.write();
      }
    });
  }

  /**
   * Commits the queue in order: everything queued at the time in one transaction (or one at a time).
   * `running` is cleared in the same turn as the queue is found empty, so an append made later starts anew.
   */
  private async write(): Promise<void> {
    for (;;) {
      if (this.queue.length === 0) {
        this.running = false;
        return;
      }
      const taken = this.mergeQueued ? this.queue.splice(0) : this.queue.splice(0, 1);
      if (this.failed !== undefined) {
        for (const q of taken) q.reject(this.failed);
        continue;
      }
      try {
        let args: unknown[];
        if (taken.length === 1) args = appendArguments((taken[0] as Queued).records, (taken[0] as Queued).states);
        else {
          const states = new Map<number, string>();
          for (const q of taken) for (const [rid, s] of q.states) states.set(rid, s);
          args = appendArguments(taken.flatMap((q) => q.records), states);
        }
        await this.pool.query({ name: 'journal_append', text: APPEND_SQL, values: args });
        this.commits += 1;
        for (const q of taken) q.resolve();
      } catch (err) {
        this.failed = mapAppendError(err);
        for (const q of taken) q.reject(this.failed);
      }
    }
  }

  async resume(): Promise<void> {
    this.failed = undefined;
  }

  async get(rid: number, sq: number): Promise<JournalRecord | undefined> {
    const rows = await this.rows<Row>({ name: 'journal_get', text: 'SELECT * FROM journal WHERE rid = $1 AND sq = $2' }, [rid, sq]);
    return rows[0] ? recordOfRow(rows[0], int) : undefined;
  }

  async byTn(rid: number, tl: string, tt: string, tn: string): Promise<JournalRecord[]> {
    const rows = await this.rows<Row>({ name: 'journal_by_tn', text: 'SELECT * FROM journal WHERE rid = $1 AND tn = $2 AND tt = $3 AND tl = $4 ORDER BY sq' }, [rid, tn, tt, tl]);
    return rows.map((r) => recordOfRow(r, int));
  }

  async byFn(rid: number, fn: string): Promise<JournalRecord[]> {
    return (await this.rows<Row>({ name: 'journal_by_fn', text: 'SELECT * FROM journal WHERE rid = $1 AND fn = $2 ORDER BY sq' }, [rid, fn])).map((r) => recordOfRow(r, int));
  }

  async byRef(rid: number, ref: string): Promise<JournalRecord[]> {
    return (await this.rows<Row>({ name: 'journal_by_ref', text: 'SELECT * FROM journal WHERE rid = $1 AND ref = $2 ORDER BY sq' }, [rid, ref])).map((r) => recordOfRow(r, int));
  }

  async byResume(rid: number, fn: string): Promise<JournalRecord[]> {
    return (await this.rows<Row>({ name: 'journal_by_resume', text: 'SELECT * FROM journal WHERE rid = $1 AND resume = $2 ORDER BY sq' }, [rid, fn])).map((r) => recordOfRow(r, int));
  }

  async *range(rid: number, from: number, to = Number.MAX_SAFE_INTEGER): AsyncIterable<JournalRecord> {
    let next = from;
    for (;;) {
      const rows = await this.rows<Row>(
        { name: 'journal_range', text: `SELECT * FROM journal WHERE rid = $1 AND sq >= $2 AND sq <= $3 ORDER BY sq LIMIT ${RANGE_PAGE}` },
        [rid, next, to],
      );
      for (const row of rows) yield recordOfRow(row, int);
      if (rows.length < RANGE_PAGE) return;
      next = int((rows[rows.length - 1] as Row).sq) + 1;
    }
  }

  /** Pages by keyset (SQ after the last one seen), never by OFFSET. */
  async *find(rid: number, q: FindQuery, pageSize = 200): AsyncIterable<JournalRecord> {
    const params: unknown[] = [rid];
    const bind = (v: unknown): string => {
      params.push(v);
      return `$${params.length}`;
    };
    const where: string[] = ['rid = $1'];
    const eq = (column: string, value: string | number | undefined): void => {
      if (value !== undefined) where.push(`${column} = ${bind(value)}`);
    };
    for (const column of FIND_EQUAL_COLUMNS) eq(column, q[column]);
    // a date or date-time prefix: a range on the index (COLLATE "C": byte order, as SQLite)
    if (q.d !== undefined) where.push(`d >= ${bind(q.d)} AND d < ${bind(`${q.d}\uffff`)}`);
    if (q.from !== undefined) where.push(`d >= ${bind(q.from)}`);
    if (q.before !== undefined) where.push(`d < ${bind(q.before)}`);
    if (q.endSq !== undefined) where.push(`sq <= ${bind(q.endSq)}`);
    const asc = q.sort === 'asc';
    const size = Math.max(1, Math.floor(pageSize));
    const afterParam = `$${params.length + 1}`;
    const sql = (withAfter: boolean): string =>
      `SELECT * FROM journal WHERE ${where.join(' AND ')}${withAfter ? ` AND sq ${asc ? '>' : '<'} ${afterParam}` : ''} ORDER BY sq ${asc ? 'ASC' : 'DESC'} LIMIT ${size}`;
    let after = q.afterSq;
    for (;;) {
      const rows = await this.rows<Row>(sql(after !== undefined), after === undefined ? params : [...params, after]);
      for (const row of rows) yield recordOfRow(row, int);
      if (rows.length < size) return;
      after = int((rows[rows.length - 1] as Row).sq);
    }
  }

  async count(rid?: number): Promise<number> {
    const rows = rid === undefined
      ? await this.rows<{ n: string }>('SELECT count(*) AS n FROM journal')
      : await this.rows<{ n: string }>('SELECT count(*) AS n FROM journal WHERE rid = $1', [rid]);
    return int(rows[0]?.n ?? '0');
  }

  async cutOf(rid: number): Promise<JournalCut | undefined> {
    const rows = await this.rows<{ sq: string; hash: Buffer; d: string; at: string }>('SELECT sq, hash, d, at FROM journal_cut WHERE rid = $1', [rid]);
    const row = rows[0];
    return row ? { sq: int(row.sq), hash: row.hash.toString('hex'), d: row.d, at: row.at } : undefined;
  }

  /**
   * Cleaning in steps of CUT_STEP records, each one transaction that moves the cut first and removes the
   * records it lets go; appends go on meanwhile (they touch other rows).
   */
  async removeUpTo(rid: number, sq: number, at: string): Promise<number> {
    const from = (await this.cutOf(rid))?.sq ?? 0;
    if (!Number.isSafeInteger(sq) || sq <= from) return 0;
    const last = int((await this.rows<{ sq: string | null }>('SELECT max(sq) AS sq FROM journal WHERE rid = $1', [rid]))[0]?.sq ?? '0');
    if (sq >= last) throw new Error(`the last record of a register stays: cannot remove up to SQ ${sq} of ${last}`);
    let removed = 0;
    for (let lo = from; lo < sq; lo = Math.min(sq, lo + CUT_STEP)) {
      const hi = Math.min(sq, lo + CUT_STEP);
      removed += await this.tx(async (c) => {
        const anchor = (await c.query<{ hash: Buffer; d: string }>('SELECT hash, d FROM journal WHERE rid = $1 AND sq = $2', [rid, hi])).rows[0];
        if (!anchor) throw new Error(`journal of register ${rid} has no record SQ ${hi}: cannot cut there`);
        await c.query(
          'INSERT INTO journal_cut (rid, sq, hash, d, at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (rid) DO UPDATE SET sq = excluded.sq, hash = excluded.hash, d = excluded.d, at = excluded.at',
          [rid, hi, anchor.hash, anchor.d, at],
        );
        return (await c.query('DELETE FROM journal WHERE rid = $1 AND sq > $2 AND sq <= $3', [rid, lo, hi])).rowCount ?? 0;
      });
    }
    return removed;
  }

  /**
   * A plain VACUUM of the journal: the space of removed records becomes reusable by later records at once
   * (autovacuum would do the same later). It does not block appends and gives no space back to the file
   * system (VACUUM FULL would, by rewriting the table under an exclusive lock: not while the service runs).
   */
  async compact(): Promise<void> {
    await this.pool.query('VACUUM journal');
  }

  async getSetting(key: string): Promise<string | undefined> {
    return (await this.rows<{ value: string }>('SELECT value FROM journal_settings WHERE key = $1', [key]))[0]?.value;
  }

  async putSetting(key: string, value: string): Promise<void> {
    await this.pool.query('INSERT INTO journal_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  async swapSetting(key: string, expected: string | undefined, value: string): Promise<boolean> {
    const r = expected === undefined
      ? await this.pool.query('INSERT INTO journal_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value])
      : await this.pool.query('UPDATE journal_settings SET value = $3 WHERE key = $1 AND value = $2', [key, expected, value]);
    return r.rowCount === 1;
  }

  async heads(rn?: string): Promise<Array<{ rid: number; rn: string; sq: number }>> {
    const rows = rn === undefined
      ? await this.rows<{ rid: string; rn: string; sq: string }>('SELECT rid, rn, sq FROM journal_registers ORDER BY rid')
      : await this.rows<{ rid: string; rn: string; sq: string }>('SELECT rid, rn, sq FROM journal_registers WHERE rn = $1', [rn]);
    return rows.map((r) => ({ rid: int(r.rid), rn: r.rn, sq: int(r.sq) }));
  }

  /** Waits for the appends under way, then closes the pool. */
  async close(): Promise<void> {
    while (this.running) await this.writing;
    await this.pool.end();
  }
}
