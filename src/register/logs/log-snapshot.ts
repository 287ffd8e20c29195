/**
 * The log files at one moment: each opened (so that a rotation while reading changes nothing) with its
 * identity (inode) and size. Opened synchronously, one after the other: the service rotates only inside
 * a synchronous write, so no rotation can fall between two of them.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_FILE, logFileNames } from './log-file.js';

export interface LogFileView {
  name: string;
  fd: number;
  /** the file's identity (device, inode, first line): a rotated file keeps it under its new name */
  id: string;
  size: number;
}

/**
 * A digest of the file's first line (at most 256 bytes): with the inode it tells a file apart from a later
 * one that got the same inode after it was deleted. Lines are written whole, so the first line never
 * changes once the file has one.
 */
function firstLineDigest(fd: number, size: number): string {
  const head = Buffer.alloc(Math.min(size, 256));
  const n = head.length ? readSync(fd, head, 0, head.length, 0) : 0;
  const text = head.subarray(0, n);
  const nl = text.indexOf(10);
  return createHash('sha256').update(nl >= 0 ? text.subarray(0, nl + 1) : text).digest('base64url').slice(0, 16);
}

export class LogSnapshot {
  private done = false;

  private constructor(
    /** oldest first; the last one is `efr.log` when it exists */
    readonly files: readonly LogFileView[],
  ) {}

  static open(dir: string, base = LOG_FILE): LogSnapshot {
    const files: LogFileView[] = [];
    for (const name of logFileNames(dir, base)) {
      let fd: number;
      try {
        fd = openSync(join(dir, name), 'r');
      } catch {
        continue;
      }
      const st = fstatSync(fd, { bigint: true });
      const size = Number(st.size);
      files.push({ name, fd, id: `${st.dev}:${st.ino}:${firstLineDigest(fd, size)}`, size });
    }
    return new LogSnapshot(files);
  }

  get closed(): boolean {
    return this.done;
  }

  /**
   * Bytes [start, end) of one file; synchronous, so that no close (and no reuse of the descriptor's
   * number) can come between the check and the read.
   */
  read(file: LogFileView, start: number, end: number): Buffer {
    if (this.done) throw new Error('the log snapshot is closed');
    const buf = Buffer.alloc(Math.max(0, end - start));
    let done = 0;
    while (done < buf.length) {
      const n = readSync(file.fd, buf, done, buf.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    for (const f of this.files) {
      try {
        closeSync(f.fd);
      } catch {
        // already closed
      }
    }
  }
}
