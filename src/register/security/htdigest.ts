/**
 * The Apache `htdigest` user file for HTTP Digest on browser pages: lines `user:realm:hash`, hash the MD5
 * (hex) of `user:realm:password`. Realm `EFR` (the instance) or `EFR.<RN>` (one register).
 * Place: environment variable SVC_EFR_HTDIGEST, else `<data>/cer/htdigest`. Read again when the file
 * changes, so users added with `htdigest <file> EFR <user>` count at once.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface DigestUser {
  user: string;
  realm: string;
  /** MD5(user:realm:password), lower-case hex */
  ha1: string;
}

export function htdigestPath(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SVC_EFR_HTDIGEST;
  return fromEnv && fromEnv.trim() !== '' ? fromEnv : join(dataDir, 'cer', 'htdigest');
}

/** Users of a file; blank lines, `#` comments and malformed lines are skipped. */
export function parseHtdigest(text: string): DigestUser[] {
  const out: DigestUser[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const first = line.indexOf(':');
    const last = line.lastIndexOf(':');
    if (first <= 0 || last <= first + 1) continue;
    const ha1 = line.slice(last + 1).toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(ha1)) continue;
    out.push({ user: line.slice(0, first), realm: line.slice(first + 1, last), ha1 });
  }
  return out;
}

export interface DigestUsers {
  /** the file exists but cannot be read: Digest is configured and nobody passes */
  broken: boolean;
  users: readonly DigestUser[];
}

const NONE: DigestUsers = { broken: false, users: [] };

/** One htdigest file, re-read when its size, time or inode change. */
export class HtdigestFile {
  private stamp = '';
  private cached: DigestUsers = NONE;

  constructor(readonly path: string) {}

  read(): DigestUsers {
    let stamp: string;
    try {
      const st = statSync(this.path);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') {
        this.stamp = '';
        this.cached = NONE;
        return NONE;
      }
      return { broken: true, users: [] };
    }
    if (stamp === this.stamp) return this.cached;
    try {
      this.cached = { broken: false, users: parseHtdigest(readFileSync(this.path, 'utf8')) };
    } catch {
      this.cached = { broken: true, users: [] };
    }
    this.stamp = stamp;
    return this.cached;
  }

  /**
   * The realm that guards a register's pages: `EFR.<RN>` when the file names users of that realm (then only
   * they pass), else `EFR` when it names users of the instance realm; undefined when Digest is not set up.
   */
  realmFor(rn: string): string | undefined {
    const { broken, users } = this.read();
    const own = `EFR.${rn}`;
    if (users.some((u) => u.realm === own)) return own;
    if (users.some((u) => u.realm === 'EFR') || broken) return 'EFR';
    return undefined;
  }

  user(realm: string, name: string): DigestUser | undefined {
    return this.read().users.find((u) => u.realm === realm && u.user === name);
  }
}
