/**
 * The log file with rotation by size: `efr.log` is written; before a line would make it larger than the
 * limit it becomes `efr.log.1` (the older ones move up, `efr.log.<keep+1>` and beyond are deleted).
 * Each line is appended synchronously (open, write, close): the file always holds every complete line
 * that was logged, readers see them at once, a file deleted or moved by someone else (disk cleaning) is
 * simply started again, and there is no descriptor to close. The log is written rarely (start, errors,
 * refusals; every request only with Log_debug), so this costs nothing measurable.
 */
import { appendFileSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const LOG_FILE = 'efr.log';

export interface RotationLimits {
  maxBytes: number;
  keep: number;
}

/** `efr.log.3` → 3; undefined for other names. */
export function rotatedIndex(name: string, base = LOG_FILE): number | undefined {
  if (!name.startsWith(`${base}.`)) return undefined;
  const rest = name.slice(base.length + 1);
  return /^[1-9]\d{0,5}$/.test(rest) ? Number(rest) : undefined;
}

/** The log files of a folder, oldest first: `efr.log.<n>` … `efr.log.1`, then `efr.log`. */
export function logFileNames(dir: string, base = LOG_FILE): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = names
    .map((n) => [n, rotatedIndex(n, base)] as const)
    .filter((x): x is readonly [string, number] => x[1] !== undefined)
    .sort((a, b) => b[1] - a[1])
    .map(([n]) => n);
  return names.includes(base) ? [...rotated, base] : rotated;
}

export class LogFile {
  readonly path: string;
  /** a failure to write is reported once (to the process's warnings), never thrown at the caller */
  private failed = false;

  constructor(
    readonly dir: string,
    private readonly limits: () => RotationLimits,
    readonly base = LOG_FILE,
  ) {
    this.path = join(dir, base);
  }

  write(line: string): void {
    try {
      const { maxBytes, keep } = this.limits();
      const size = statSync(this.path, { throwIfNoEntry: false })?.size ?? 0;
      if (size > 0 && size + Buffer.byteLength(line) > maxBytes) this.rotate(keep);
      try {
        appendFileSync(this.path, line);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        mkdirSync(this.dir, { recursive: true });
        appendFileSync(this.path, line);
      }
      this.failed = false;
    } catch (e) {
      if (!this.failed) process.emitWarning(`the log ${this.path} cannot be written: ${e instanceof Error ? e.message : String(e)}`, { code: 'EFR_LOG' });
      this.failed = true;
    }
  }

  /** efr.log → efr.log.1 → … → efr.log.<keep>; older ones are deleted. */
  rotate(keep: number): void {
    for (const name of logFileNames(this.dir, this.base)) {
      const i = rotatedIndex(name, this.base);
      if (i !== undefined && i >= keep) rmSync(join(this.dir, name), { force: true });
    }
    for (let i = keep - 1; i >= 1; i--) {
      const from = `${this.path}.${i}`;
      if (statSync(from, { throwIfNoEntry: false })) renameSync(from, `${this.path}.${i + 1}`);
    }
    if (keep >= 1) renameSync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
  }
}
