/**
 * What a country module declares about the files of the data folder its registers need to continue their
 * fiscal chains after a restore (signature devices' keys, counters, the software's key). Backup and restore
 * (src/register/maintenance/) handle the instance's own key pair and ask the register's module for the rest,
 * so that they never name a country. Paths are relative to the data folder, with `/` separators.
 */
import type { Obj } from '../codec/index.js';

/** A file or a folder (its whole tree) of a register. */
export interface RegisterPath {
  path: string;
  /**
   * a private key of the instance, serving every register that uses it (a software key, a company's key): only
   * in a backup made with the instance's credentials, never in one made with a register's own
   */
  instanceKey?: boolean;
  /**
   * the content the backup carries instead of the file as it is: a file several registers share holds the
   * part of this register only; undefined leaves the file out
   */
  part?(): Buffer | undefined;
}

/** The register a backup or restore is about. */
export interface RegisterOfFiles {
  rn: string;
  cfg: Obj;
  /** the prefixes of the keys of the register's country state (`<id>|...`): cashbox ids, NIFs */
  stateSegments: ReadonlySet<string>;
  /** the register's profile attributes, names lower-cased */
  attributes: ReadonlyMap<string, string>;
}

export interface CountryFiles {
  /** the register's files and folders (a missing one is skipped) */
  paths(dataDir: string, reg: RegisterOfFiles): RegisterPath[];
  /** whether a backup's entry at `path` is one `paths` can produce for this register: a restore writes nothing else */
  admits(path: string, reg: Pick<RegisterOfFiles, 'rn' | 'cfg'>): boolean;
  /** the folder of `path` that belongs to one register alone (its existence on the target means that register is in use) */
  ownFolder?(path: string): string | undefined;
  /** public keys a backup may carry without their private half, and that half's path */
  readonly keyPairs?: ReadonlyArray<readonly [string, string]>;
  /** files several registers share, by path: merges the restored part into the existing file (undefined when they clash) */
  readonly merged?: Readonly<Record<string, (existing: Buffer, restored: Buffer) => Buffer | undefined>>;
}

/** A path segment as it is used for a folder name (cashbox ids, RNs may hold characters a file name may not). */
export function safeSegment(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The files of a country whose registers each keep one folder of their own, `<folder>/<RN>/` (a signature
 * device's key, counters): the whole folder, and nothing outside it.
 */
export function registerFolderFiles(folder: string): CountryFiles {
  return {
    paths: (_dataDir, reg) => [{ path: `${folder}/${safeSegment(reg.rn)}` }],
    admits: (path, reg) => {
      const parts = path.split('/');
      return parts[0] === folder && parts[1] === safeSegment(reg.rn) && parts.length >= 3;
    },
    ownFolder: (path) => {
      const [top, rn] = path.split('/');
      return top === folder && rn ? `${folder}/${rn}` : undefined;
    },
  };
}
