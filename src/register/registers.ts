/**
 * The registers an instance serves, with their in-memory state (the head of each chain and
 * its counters), the cache of last responses for GET /last, and the records still being committed.
 */
import { type Lang, asLang } from '../shared/errors.js';
import { type Obj, obj, str } from './codec/index.js';
import { GENESIS } from './journal/chain.js';
import { emptyTotals } from './closing/z-report.js';
import { KeyLocks } from './key-locks.js';
import { assertRegisterRoom } from './register-limit.js';
import { type JournalRecord, type JournalStore, type RecordType, type RegisterState, RegisterExists } from './journal/types.js';

export interface CachedResponse {
  root: string;
  body: Obj;
}

export interface Register {
  state: RegisterState;
  /** last answered response per record type, and under 'any' the very last */
  last: Map<RecordType | 'any', CachedResponse>;
  /** records submitted but not yet committed, by SQ */
  pending: Map<number, Promise<void>>;
  /** TL/TT/TN of pending transactions, to their SQ */
  pendingTn: Map<string, number>;
  /** originals referred to by pending records (voids, returns, reprints), to the record's SQ */
  pendingRef: Map<string, number>;
  /** parked receipts (FN) resumed by pending records, to the record's SQ */
  pendingResume: Map<string, number>;
  /** set while a Z is being computed from the journal: transactions wait for it */
  closing?: Promise<void>;
}

export function initialState(rn: string): Omit<RegisterState, 'rid'> {
  return { rn, sq: 0, hash: GENESIS, fn: 0, tid: 0, tn: {}, lastTT: {}, last: {}, cfg: {}, zi: 0, zSq: 0, zCount: 0, zLastD: '', gt: emptyTotals(), country: {} };
}

export class Registers {
  /** serializes transactions with the same TN or naming the same original (pipeline.ts) */
  readonly locks = new KeyLocks();
  private readonly byRn = new Map<string, Register>();
  private readonly byRid = new Map<number, Register>();
  private readonly creating = new Map<string, Promise<Register>>();

  /** the most POS installations (registers other than def) the instance serves; undefined: no limit (register-limit.ts) */
  maxPos: number | undefined;

  constructor(private readonly store: JournalStore) {}

  async load(): Promise<void> {
    for (const state of await this.store.loadRegisters()) this.add(state);
  }

  private add(stored: RegisterState): Register {
    // a state written before a field existed gets that field's initial value
    const state: RegisterState = { ...initialState(stored.rn), ...stored };
    const reg: Register = { state, last: new Map(), pending: new Map(), pendingTn: new Map(), pendingRef: new Map(), pendingResume: new Map() };
    this.byRn.set(state.rn, reg);
    this.byRid.set(state.rid, reg);
    return reg;
  }

  get(rn: string): Register | undefined {
    return this.byRn.get(rn);
  }

  byId(rid: number): Register | undefined {
    return this.byRid.get(rid);
  }

  list(): Register[] {
    return [...this.byRn.values()];
  }

  async getOrCreate(rn: string): Promise<Register> {
    const existing = this.byRn.get(rn);
    if (existing) return existing;
    let p = this.creating.get(rn);
    if (!p) {
      p = (async () => {
        // every way a register is made (a transaction, POST /cfg of Multi POS, PUT /repo) passes here
        await assertRegisterRoom({ maxPos: this.maxPos, store: this.store }, rn);
        const init = initialState(rn);
        try {
          const rid = await this.store.createRegister(rn, init);
          return this.add({ ...init, rid });
        } catch (e) {
          // another process sharing the journal created it meanwhile: go on with its state from the store
          if (!(e instanceof RegisterExists)) throw e;
          const stored = (await this.store.loadRegisters()).find((s) => s.rid === e.rid);
          if (!stored) throw e;
          return this.byRid.get(stored.rid) ?? this.add(stored);
        }
      })();
      this.creating.set(rn, p);
      p.finally(() => this.creating.delete(rn)).catch(() => undefined);
    }
    return p;
  }

  /**
   * After a failed commit (or a stale register: another process wrote it), the memory state is not the
   * store's: reads the state of these registers back and returns the function that puts it in memory. The
   * group commit calls it in the same synchronous step as it refuses the records sealed on the old state, so
   * nothing of a failed attempt survives: the state (counters, country state), the cached answers of GET
   * /last and the maps of pending records (all of them failed) are replaced.
   */
  async readBack(rids: ReadonlySet<number>): Promise<() => void> {
    const states = await this.store.loadRegisters([...rids]);
    return () => {
      for (const s of states) {
        const reg = this.byRid.get(s.rid);
        if (!reg) continue;
        reg.state = { ...initialState(s.rn), ...s };
        reg.last.clear();
        reg.pending.clear();
        reg.pendingTn.clear();
        reg.pendingRef.clear();
        reg.pendingResume.clear();
      }
    };
  }

  /**
   * Read-through for a journal other processes write too (PostgreSQL): registers created elsewhere are
   * loaded, and a register whose stored head is past this process's (another process wrote it meanwhile) is
   * read back, unless records of this process are pending or a closing runs (the commit brings it up to date).
   * Without `rn` every register (GET /state); with `rn` that one. Nothing to do on a journal of one process.
   */
  async catchUp(rn?: string): Promise<void> {
    if (!this.store.shared) return;
    const heads = await this.store.heads(rn);
    const behind = new Set<number>();
    const unknown = new Set<number>();
    for (const h of heads) {
      const reg = this.byRid.get(h.rid);
      if (!reg) unknown.add(h.rid);
      else if (h.sq > reg.state.sq && reg.pending.size === 0 && !reg.closing) behind.add(h.rid);
    }
    if (behind.size === 0 && unknown.size === 0) return;
    const states = await this.store.loadRegisters([...behind, ...unknown]);
    for (const s of states) {
      const reg = this.byRid.get(s.rid);
      if (!reg) {
        this.add(s);
        continue;
      }
      // checked again in the step that replaces it: a record sealed meanwhile keeps the memory state
      if (s.sq <= reg.state.sq || reg.pending.size > 0 || reg.closing) continue;
      reg.state = { ...initialState(s.rn), ...s };
      reg.last.clear();
    }
  }

  /** readBack and put the state in memory at once. */
  async reload(rids: ReadonlySet<number>): Promise<void> {
    (await this.readBack(rids))();
  }

  stateJson(rid: number): string {
    const reg = this.byRid.get(rid);
    if (!reg) throw new Error(`unknown register id ${rid}`);
    const { rid: _rid, ...rest } = reg.state;
    return JSON.stringify(rest);
  }

  /** A committed or pending record of this register. */
  async record(reg: Register, sq: number): Promise<JournalRecord | undefined> {
    const pending = reg.pending.get(sq);
    if (pending) await pending;
    return this.store.get(reg.state.rid, sq);
  }

  /** The operator language of a register, from Cfg.Trm.Lang (else the instance's, else en). */
  lang(reg: Register | undefined): Lang {
    const own = reg ? str(obj(reg.state.cfg, 'Trm') ?? {}, 'Lang') : undefined;
    if (own) return asLang(own);
    const def = this.byRn.get('def');
    return asLang(def ? str(obj(def.state.cfg, 'Trm') ?? {}, 'Lang') : undefined);
  }
}
