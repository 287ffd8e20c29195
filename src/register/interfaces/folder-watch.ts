/**
 * Tells when a folder may have changed. Native watching (inotify, ReadDirectoryChangesW, FSEvents)
 * where the folder allows it, with a slow sweep besides (an event lost to a full kernel queue is
 * found within seconds); polling every 300 ms where native watching cannot be opened or fails, and
 * for network folders, whose changes made by other machines reach no native watcher.
 *
 * Events carry no file names here: the owner looks at the whole folder on each call, so events that
 * are merged, repeated or lost change nothing but the delay.
 */
import { type FSWatcher, watch } from 'node:fs';
import type { LogSink } from '../security/tls-runtime.js';

export interface FolderWatchOptions {
  /** polling interval without native watching (ms) */
  pollMs: number;
  /** sweep interval with native watching (ms) */
  sweepMs: number;
  /** poll only (a network folder) */
  polling: boolean;
}

export type WatchMode = 'native' | 'polling';

export class FolderWatch {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private current: WatchMode = 'polling';

  constructor(
    private readonly dir: string,
    private readonly changed: () => void,
    private readonly options: FolderWatchOptions,
    private readonly log?: LogSink,
  ) {
    if (options.polling) this.poll();
    else this.native();
  }

  get mode(): WatchMode {
    return this.current;
  }

  private native(): void {
    try {
      this.watcher = watch(this.dir, { persistent: true }, () => this.changed());
    } catch (e) {
      this.log?.warn({ type: 'FILE_IF', dir: this.dir, err: e }, 'the folder cannot be watched natively; it is polled every 300 ms');
      this.poll();
      return;
    }
    this.watcher.on('error', (e) => {
      this.log?.warn({ type: 'FILE_IF', dir: this.dir, err: e }, 'native watching of the folder failed; it is polled every 300 ms');
      this.watcher?.close();
      this.watcher = undefined;
      if (!this.closed) this.poll();
    });
    this.current = 'native';
    this.timer = setInterval(() => this.changed(), this.options.sweepMs);
  }

  private poll(): void {
    if (this.timer) clearInterval(this.timer);
    this.current = 'polling';
    this.timer = setInterval(() => this.changed(), this.options.pollMs);
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
