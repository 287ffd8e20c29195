/**
 * The journal's data types and the JournalStore interface that SQLite and PostgreSQL
 * implement. A journal is append-only: records are never changed, and deleted only by cleaning,
 * from the start of a register's chain and keeping the hash the rest builds on (JournalCut).
 */
import type { KeyObject } from 'node:crypto';
import type { Obj } from '../codec/index.js';
import type { GrandTotals } from '../closing/z-report.js';

export type RecordType = 'Tra' | 'TraS' | 'TraU' | 'TraV' | 'Rep' | 'Cfg' | 'log' | 'Audit';
export const RECORD_TYPES: readonly RecordType[] = ['Tra', 'TraS', 'TraU', 'TraV', 'Rep', 'Cfg', 'log', 'Audit'];

/** Transactions: a receipt (Tra) and the start, update and abort of a TSE transaction (Germany). */
export type TransactionType = 'Tra' | 'TraS' | 'TraU' | 'TraV';

/** The per-register counters, kept in memory and stored with every append in the same transaction. */
export interface RegisterState {
  rn: string;
  rid: number;
  /** SQ of the last record (0: none yet) */
  sq: number;
  /** hex SHA-256 of the last record (GENESIS before the first) */
  hash: string;
  /** last fiscal number allocated */
  fn: number;
  /** last TSE-style transaction id allocated by TraS */
  tid: number;
  /** last TN per `TL/TT`, in the year y */
  tn: Record<string, { y: number; n: number }>;
  /** last Tra per `TL/TT`, with its restart hash, for POST /restart without TN */
  lastTT: Record<string, { sq: number; rh: string }>;
  /** SQ of the last record per record type */
  last: Partial<Record<RecordType, number>>;
  /** the current configuration (Cfg) of the register */
  cfg: Obj;
  /** the index and SQ of the last Z; the transactions since it and the D of the last one (Fiscal_ZLaunch) */
  zi: number;
  zSq: number;
  zCount: number;
  zLastD: string;
  /** perpetual grand totals (Fis_Tot) */
  gt: GrandTotals;
  /** the country module's own counters (e.g. the RKSV turnover counter and chain) */
  country: Record<string, string>;
}

/** One journal record as stored. `data` is the exact JSON text that was hashed and signed. */
export interface JournalRecord {
  rid: number;
  sq: number;
  type: RecordType;
  /** ESR.D of transactions, else the time of recording */
  d: string;
  tl?: string;
  tt?: string;
  tn?: string;
  fn?: string;
  t?: string;
  nfs?: string;
  bc?: string;
  /** content hash of the request, for duplicate detection */
  ch?: Buffer;
  /** content hash without D and TN, for POST /restart */
  rh?: Buffer;
  /** the original a void, return or reprint refers to: `FN:<RFN>` or `TN:<RTL>/<RTT>/<RTN>` */
  ref?: string;
  /** the FN of the parked receipt this transaction resumes (ESR.ResumeFN) */
  resume?: string;
  data: string;
  hash: Buffer;
  /** the instance signature of `payload`; empty until the store signs it (see JournalStore.signsRecords) */
  sig: Buffer;
  /** the text the instance key signs (chain.ts signingPayload), on a record handed to the store unsigned */
  payload?: string;
}

/** Indexed criteria of GET /find and GET /retrieve; every one given must match. */
export interface FindQuery {
  type?: RecordType;
  fn?: string;
  tl?: string;
  tt?: string;
  tn?: string;
  /** D equal to this value, or starting with it (a date matches the whole day) */
  d?: string;
  /** D on or after (local date or date-time) */
  from?: string;
  /** D before (exclusive; the caller turns a date into the next day) */
  before?: string;
  t?: string;
  nfs?: string;
  bc?: string;
  sq?: number;
  /** records naming this original (or file, for the audit trail) */
  ref?: string;
  /** SQ strictly after (asc) or before (desc) this one: the continuation */
  afterSq?: number;
  /** last SQ to return (inclusive), for /retrieve */
  endSq?: number;
  sort: 'asc' | 'desc';
}

/** The FindQuery fields matched by equality on their own index column, in the order both stores test them. */
export const FIND_EQUAL_COLUMNS = ['type', 'fn', 'tn', 'tt', 'tl', 't', 'nfs', 'bc', 'sq', 'ref'] as const satisfies ReadonlyArray<keyof FindQuery>;

/**
 * Where a cleaned register's journal starts: records 1..sq were removed (POST /disk/clean, after they
 * were archived). `hash` is the hash of record sq, the previous hash of the first remaining record: the
 * rest verifies from it (verifyChain(range(sq + 1), key, sq + 1, hash)), as a period export does.
 */
export interface JournalCut {
  sq: number;
  /** hex SHA-256 of record sq */
  hash: string;
  /** D of record sq */
  d: string;
  /** ISO time of the cleaning */
  at: string;
}

/**
 * An append refused because the stored register is not where the records continue from: its SQ is not the
 * SQ before the first record appended for it (another process wrote meanwhile, or the caller's state is
 * stale). Nothing of the append was written; the caller reads the register's state back.
 */
export class StaleRegister extends Error {
  override readonly name = 'StaleRegister';
  constructor(
    readonly rid: number,
    /** the SQ the append continues from (its first record's SQ - 1) */
    readonly expectedSq: number,
    /** the SQ the store holds for the register */
    readonly foundSq: number,
  ) {
    super(`register ${rid} is stale: the append continues from SQ ${expectedSq}, the journal is at SQ ${foundSq}`);
  }
}

/** createRegister of a register number that exists (created meanwhile by another process): its id. */
export class RegisterExists extends Error {
  override readonly name = 'RegisterExists';
  constructor(
    readonly rn: string,
    readonly rid: number,
  ) {
    super(`register ${rn} exists (id ${rid})`);
  }
}

export interface JournalStore {
  /** All registers (or those with these ids) with their state, as of the last commit. */
  loadRegisters(rids?: readonly number[]): Promise<RegisterState[]>;
  /** Creates a register and returns its id; rejects a register number that exists (PostgreSQL: with RegisterExists, naming its id). */
  createRegister(rn: string, state: Omit<RegisterState, 'rid'>): Promise<number>;
  /**
   * Appends records and the new states of their registers in one durable transaction. Calls are
   * applied in the order they are made; once one fails, the later ones fail too until resume().
   * PostgreSQL locks the registers written (in rid order) and refuses with StaleRegister when a register's
   * stored SQ is not the SQ before its first record here (another process appended meanwhile).
   */
  append(records: readonly JournalRecord[], states: ReadonlyMap<number, string>, signingKey?: KeyObject): Promise<void>;
  /**
   * True when append signs, with the `signingKey` given, each record that has a `payload` and an empty `sig`
   * (where the records are written: SQLite's writer thread), setting `sig` on the records passed in before it
   * resolves. A store without it gets every record signed.
   */
  readonly signsRecords?: boolean;
  /** Accepts appends again after a failed one (the caller has read the state back). */
  resume(): Promise<void>;
  /** Records of a register with this TL/TT/TN (any year), oldest first. */
  byTn(rid: number, tl: string, tt: string, tn: string): Promise<JournalRecord[]>;
  get(rid: number, sq: number): Promise<JournalRecord | undefined>;
  /** Records of a register with this FN, oldest first. */
  byFn(rid: number, fn: string): Promise<JournalRecord[]>;
  /** Records of a register that refer to this original (voids and returns), oldest first. */
  byRef(rid: number, ref: string): Promise<JournalRecord[]>;
  /** Records of a register that resumed the parked receipt with this FN, oldest first. */
  byResume(rid: number, fn: string): Promise<JournalRecord[]>;
  /** Records of a register from SQ `from` to `to` inclusive, in SQ order, read in pages. */
  range(rid: number, from: number, to?: number): AsyncIterable<JournalRecord>;
  /** Records matching the query in SQ order, read in pages of `pageSize`. */
  find(rid: number, query: FindQuery, pageSize?: number): AsyncIterable<JournalRecord>;
  count(rid?: number): Promise<number>;
  /** The cut of a cleaned register, undefined when none of its records were removed. */
  cutOf(rid: number): Promise<JournalCut | undefined>;
  /**
   * Removes the records of a register up to SQ `sq` (cleaning; the caller decides what is archived and no
   * longer needed) and moves its cut there, keeping record sq's hash. The last record always stays; a cut
   * never moves back (an sq at or below the cut removes nothing). Returns the number of records removed.
   */
  removeUpTo(rid: number, sq: number, at: string): Promise<number>;
  /**
   * Gives the space of removed records back to the file system where the file allows it in small steps
   * (SQLite with auto_vacuum=INCREMENTAL); otherwise the freed pages stay for later records.
   */
  compact(): Promise<void>;
  getSetting(key: string): Promise<string | undefined>;
  putSetting(key: string, value: string): Promise<void>;
  /**
   * Compare and set: writes `value` only when the setting is `expected` now (undefined: absent), in one
   * statement, so that processes sharing the store can hand a lease over (the recorder's). True when written.
   */
  swapSetting(key: string, expected: string | undefined, value: string): Promise<boolean>;
  /** Every register's (or, given `rn`, that register's) number and the SQ of its last committed record, as the store has them now. */
  heads(rn?: string): Promise<Array<{ rid: number; rn: string; sq: number }>>;
  /** True when other processes may write this journal too (PostgreSQL): reads then check the store's heads. */
  readonly shared: boolean;
  close(): Promise<void>;
}
