/**
 * Group commit: every submitter learns the outcome of its append only after the commit. A record submitted
 * while the store is idle is handed over at once (after the synchronous section that sealed it, so that
 * records sealed together go together): a lone request waits for no timer. While MAX_IN_FLIGHT batches are
 * being committed, submissions gather and go as the next batch (one transaction, one fsync) when one of them
 * settles: the busier the store, the larger the batches. Two batches in flight keep the disk busy while the
 * main thread takes the answer of the first; the store applies them in order.
 *
 * A failed batch breaks the chain for everything handed over after it: the store refuses those too. Once
 * everything handed over has settled, the registers' state is read back from the store and put in memory in
 * one synchronous step, together with the refusal of what was submitted meanwhile for those registers (sealed
 * on the old state); then the store is resumed.
 *
 * A batch refused because a register was stale (StaleRegister: another process sharing the journal wrote it
 * since this one read its state) is not a failure of the other registers in it: their records are written
 * again without the stale register's (one more transaction), and the stale register's records are answered
 * with StaleAttempt after its state was read back, so that their transactions can be run again from the
 * start. Any other failure is answered as before (the submitter answers #JOURNAL).
 */
import type { KeyObject } from 'node:crypto';
import { signWithKey } from '../security/signer.js';
import { type JournalRecord, type JournalStore, StaleRegister } from './types.js';

/**
 * A record not written because its register had been written by another process: nothing of it is in the
 * journal, and the register's state in memory has been read back from the store (it is current as of now).
 * Its transaction may be run again from the start.
 */
export class StaleAttempt extends Error {
  override readonly name = 'StaleAttempt';
  constructor(readonly rid: number) {
    super(`register ${rid} was written by another process meanwhile; its state was read back: run the transaction again`);
  }
}

interface Waiting {
  record: JournalRecord;
  /** the key the store signs the record with (handed over unsigned) */
  key?: KeyObject;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Batch {
  items: Waiting[];
  /** the serialized state of each register, as of the batch's last record of it */
  states: ReadonlyMap<number, string>;
  /** the key of the batch's unsigned records */
  key?: KeyObject;
}

/**
 * The key the store signs a batch's records with: the one they were sealed for. Records sealed for another
 * key (the instance key was replaced meanwhile by a restore) are signed here, so that one key goes along.
 */
function batchKey(items: readonly Waiting[]): KeyObject | undefined {
  let key: KeyObject | undefined;
  for (const w of items) {
    if (!w.key) continue;
    if (key === undefined) key = w.key;
    else if (w.key !== key && w.record.payload !== undefined) {
      w.record.sig = signWithKey(w.key, w.record.payload);
      delete w.key;
    }
  }
  return key;
}

/**
 * Reads the state of these registers back from the store; resolves with the function that puts it in
 * memory (called by the committer in the same synchronous step as the refusal of what was sealed on the
 * old state), or with nothing when the state is in memory already.
 */
export type ReadBack = (rids: ReadonlySet<number>, error: unknown) => Promise<(() => void) | void>;

/** Counters of stale refusals (shared journals), for measurements and logs. */
export interface StaleCounters {
  /** appends refused with StaleRegister */
  refusals: number;
  /** records of other registers written again after such a refusal */
  rewritten: number;
  /** records answered StaleAttempt (their transactions run again) */
  retried: number;
}

/** Batches handed to the store and not yet settled, at most; what is submitted meanwhile waits for the next batch. */
const MAX_IN_FLIGHT = 2;

/** Rounds of writing again after stale refusals in one recovery (each drops one more stale register). */
const MAX_REWRITES = 16;

export class GroupCommitter {
  private queue: Waiting[] = [];
  private scheduled = false;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** set by a failed batch until the state is read back and the store resumed */
  private broken: { error: unknown; rids: Set<number>; held: Batch[] } | undefined;
  private recovering = false;
  readonly stale: StaleCounters = { refusals: 0, rewritten: 0, retried: 0 };

  /**
   * @param stateOf the serialized state of a register as of everything submitted so far
   * @param readBack reads the state of these registers back from the store (see ReadBack)
   */
  constructor(
    private readonly store: JournalStore,
    private readonly stateOf: (rid: number) => string,
    private readonly readBack: ReadBack,
  ) {}

  /** Whether the store signs records handed over unsigned (with a key): then signing leaves the main thread. */
  get signsRecords(): boolean {
    return this.store.signsRecords === true;
  }

  /**
   * Hands a record to the store; settles after its commit. With `signingKey`, the record carries its
   * `payload` and an empty `sig`, and the store signs it (see signsRecords); `sig` is set when this resolves.
   */
  submit(record: JournalRecord, signingKey?: KeyObject): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push(signingKey ? { record, key: signingKey, resolve, reject } : { record, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    // after a failure, what is submitted waits for the recovery (which refuses what was sealed on a stale state)
    if (this.broken || this.recovering) return;
    const items = this.queue;
    this.queue = [];
    if (items.length === 0) return;
    const states = new Map<number, string>();
    for (const w of items) if (!states.has(w.record.rid)) states.set(w.record.rid, this.stateOf(w.record.rid));
    const key = batchKey(items);
    const batch: Batch = key ? { items, states, key } : { items, states };
    this.inFlight += 1;
    this.store.append(items.map((w) => w.record), states, key).then(
      () => {
        for (const w of items) w.resolve();
        this.settled();
      },
      (error: unknown) => {
        this.broken ??= { error, rids: new Set(), held: [] };
        if (error instanceof StaleRegister && this.broken.error instanceof StaleRegister) {
          // answered by the recovery: written again, or refused as stale
          this.broken.held.push(batch);
        } else {
          for (const w of items) {
            this.broken.rids.add(w.record.rid);
            w.reject(error);
          }
        }
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inFlight -= 1;
    // what gathered while the store was busy goes now; after a failure the recovery decides about it
    if (this.queue.length > 0 && !this.broken && !this.recovering) this.schedule();
    if (this.inFlight > 0) return;
    const broken = this.broken;
    if (!broken) {
      for (const f of this.idle.splice(0)) f();
      return;
    }
    if (this.recovering) return;
    // everything handed over has settled: write again what a stale register held up, read the state back
    this.recovering = true;
    this.inFlight += 1;
    this.recover(broken)
      .catch((e: unknown) => {
        // not expected (recover answers everything itself): whatever is still held fails
        for (const b of broken.held) for (const w of b.items) w.reject(e);
        this.broken = undefined;
        this.recovering = false;
      })
      .finally(() => {
        if (this.queue.length) this.schedule();
        this.settled();
      });
  }

  private async recover(broken: { error: unknown; rids: Set<number>; held: Batch[] }): Promise<void> {
    /** registers whose records failed for another reason: read back, answered with the error */
    const failed = new Set(broken.rids);
    /** registers refused as stale: read back, their records answered StaleAttempt */
    const stale = new Set<number>();
    const dropped: Waiting[] = [];
    let cause: unknown = broken.error;
    let items = broken.held.flatMap((b) => b.items);
    // the latest state of each register: the batches are in the order they were made
    const states = new Map<number, string>();
    for (const b of broken.held) for (const [rid, s] of b.states) states.set(rid, s);
    for (let round = 0; items.length > 0; round += 1) {
      if (cause instanceof StaleRegister) {
        this.stale.refusals += 1;
        stale.add(cause.rid);
        // the journal names one stale register; the heads say which others are stale too (one query, not a round each)
        const first = new Map<number, number>();
        for (const w of items) if (!first.has(w.record.rid)) first.set(w.record.rid, w.record.sq - 1);
        try {
          for (const s of await this.store.loadRegisters()) if (first.has(s.rid) && first.get(s.rid) !== s.sq) stale.add(s.rid);
        } catch {
          // the append below finds them one by one
        }
        if (round >= MAX_REWRITES) for (const rid of first.keys()) stale.add(rid);
        const keep: Waiting[] = [];
        for (const w of items) (stale.has(w.record.rid) ? dropped : keep).push(w);
        items = keep;
        for (const rid of stale) states.delete(rid);
        if (items.length === 0) break;
        try {
          await this.store.resume();
          await this.store.append(items.map((w) => w.record), states, batchKey(items));
          this.stale.rewritten += items.length;
          for (const w of items) w.resolve();
          items = [];
        } catch (e) {
          cause = e;
        }
      } else {
        for (const w of items) {
          failed.add(w.record.rid);
          w.reject(cause);
        }
        items = [];
      }
    }
    const rids = new Set([...failed, ...stale]);
    let install: (() => void) | void = undefined;
    let readError: unknown;
    let readFailed = false;
    try {
      install = await this.readBack(rids, broken.error);
    } catch (e) {
      readFailed = true;
      readError = e;
    }
    await this.store.resume().catch(() => undefined);
    // one synchronous step: the state in memory, and the refusal of everything sealed on the old one
    try {
      install?.();
    } catch (e) {
      readFailed = true;
      readError = e;
    }
    for (const w of dropped) {
      if (readFailed) w.reject(readError);
      else {
        this.stale.retried += 1;
        w.reject(new StaleAttempt(w.record.rid));
      }
    }
    const queued = this.queue;
    this.queue = [];
    for (const w of queued) {
      const rid = w.record.rid;
      if (!rids.has(rid)) this.queue.push(w);
      else if (readFailed) w.reject(readError);
      else if (stale.has(rid)) {
        this.stale.retried += 1;
        w.reject(new StaleAttempt(rid));
      } else w.reject(broken.error);
    }
    this.broken = undefined;
    this.recovering = false;
  }

  /** Waits until everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.queue.length || this.inFlight || this.scheduled) {
      if (this.inFlight) await new Promise<void>((r) => this.idle.push(r));
      else await new Promise((r) => setImmediate(r));
    }
  }
}
