/**
 * Serializes the transactions that must see each other: the same TL/TT/TN (a duplicate or a used TN)
 * and the same original (voids, returns and reprints of one receipt). A transaction holds its keys from
 * its journal lookups until its record is committed, so the next one looks up what the first wrote.
 * Deadlock-free because a transaction takes its TN key first and an original's key last, and nobody
 * waits for a TN key while holding an original's.
 */
export class KeyLocks {
  private readonly held = new Map<string, Promise<void>>();

  /** Waits until none of `keys` is held, then holds them all. */
  async acquire(keys: readonly string[]): Promise<Lease> {
    const lease = new Lease(this.held);
    for (const key of keys) await lease.add(key);
    return lease;
  }
}

export class Lease {
  private readonly mine = new Map<string, () => void>();

  constructor(private readonly held: Map<string, Promise<void>>) {}

  holds(key: string): boolean {
    return this.mine.has(key);
  }

  /** Holds one more key, waiting for its holder first; true when it had to wait (what was looked up before may be stale). */
  async add(key: string): Promise<boolean> {
    if (this.mine.has(key)) return false;
    let waited = false;
    for (let h = this.held.get(key); h !== undefined; h = this.held.get(key)) {
      waited = true;
      await h;
    }
    let release!: () => void;
    this.held.set(key, new Promise<void>((resolve) => (release = resolve)));
    this.mine.set(key, release);
    return waited;
  }

  release(): void {
    for (const [key, resolve] of this.mine) {
      this.held.delete(key);
      resolve();
    }
    this.mine.clear();
  }
}
