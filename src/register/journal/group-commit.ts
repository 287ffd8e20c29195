/**
 * Group commit: appends submitted during one turn of the event loop are written in one
 * transaction (one fsync), and every submitter learns the outcome only after the commit.
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
  private flushing: Promise<void> | undefined;

  /**
   * @param stateOf the serialized state of a register as of everything submitted so far
   * @param onFailure called once per failed batch with the registers whose memory state is now ahead of the store
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
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) await this.flushing;
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const states = new Map<number, string>();
    for (const w of batch) if (!states.has(w.record.rid)) states.set(w.record.rid, this.stateOf(w.record.rid));
    const run = (async () => {
      try {
        await this.store.append(batch.map((w) => w.record), states);
      } catch (error) {
        // Everything queued behind this batch was chained on top of it: it fails too.
        const failed = [...batch, ...this.queue];
        this.queue = [];
        await this.onFailure(new Set(failed.map((w) => w.record.rid)), error).catch(() => undefined);
        for (const w of failed) w.reject(error);
        return;
      }
      for (const w of batch) w.resolve();
    })();
    this.flushing = run;
    await run;
    this.flushing = undefined;
  }

  /** Waits until everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.queue.length || this.flushing) {
      if (this.flushing) await this.flushing;
      else await new Promise((r) => setImmediate(r));
    }
  }
}
