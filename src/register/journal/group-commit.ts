/**
 * Group commit: appends submitted during one turn of the event loop go to the store as one batch
 * (one transaction, one fsync), and every submitter learns the outcome only after the commit.
 * Batches are handed over without waiting for the previous commit (the store applies them in order),
 * so the disk is never idle while requests wait.
 *
 * A failed batch breaks the chain for everything handed over after it: those fail too, and so does
 * anything submitted before the registers' state has been read back from the store.
 */
import type { JournalRecord, JournalStore } from './types.js';

interface Waiting {
  record: JournalRecord;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class GroupCommitter {
  private queue: Waiting[] = [];
  private scheduled = false;
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** set by a failed batch until the state is read back and the store resumed */
  private broken: { error: unknown; rids: Set<number> } | undefined;

  /**
   * @param stateOf the serialized state of a register as of everything submitted so far
   * @param onFailure reads the state of these registers back from the store
   */
  constructor(
    private readonly store: JournalStore,
    private readonly stateOf: (rid: number) => string,
    private readonly onFailure: (rids: ReadonlySet<number>, error: unknown) => Promise<void>,
  ) {}

  submit(record: JournalRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (this.broken) {
      this.fail(batch, this.broken.error);
      return;
    }
    const states = new Map<number, string>();
    for (const w of batch) if (!states.has(w.record.rid)) states.set(w.record.rid, this.stateOf(w.record.rid));
    this.inFlight += 1;
    this.store.append(batch.map((w) => w.record), states).then(
      () => {
        for (const w of batch) w.resolve();
        this.settled();
      },
      (error: unknown) => {
        this.broken ??= { error, rids: new Set() };
        this.fail(batch, error);
        this.settled();
      },
    );
  }

  private fail(batch: Waiting[], error: unknown): void {
    for (const w of batch) {
      this.broken?.rids.add(w.record.rid);
      w.reject(error);
    }
  }

  private settled(): void {
    this.inFlight -= 1;
    if (this.inFlight > 0) return;
    const broken = this.broken;
    if (!broken) {
      for (const f of this.idle.splice(0)) f();
      return;
    }
    // everything handed over has settled: read the state back, then accept appends again
    this.inFlight += 1;
    this.onFailure(broken.rids, broken.error)
      .catch(() => undefined)
      .then(() => this.store.resume())
      .finally(() => {
        this.broken = undefined;
        this.settled();
      });
  }

  /** Waits until everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.queue.length || this.inFlight || this.scheduled) {
      if (this.inFlight) await new Promise<void>((r) => this.idle.push(r));
      else await new Promise((r) => setImmediate(r));
    }
  }
}
