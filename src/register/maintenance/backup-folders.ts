/**
 * The files of the data folder a register needs to continue its fiscal chains after a restore: the instance
 * key pair that signs every journal record (keys/instance.key.pem, keys/instance.pub.pem), and what the
 * register's country module declares (`FiscalModule.files`: its signature devices, counters, keys; each
 * country's files are listed in its folder's files.ts). Paths are relative to the data folder, with `/`
 * separators. Half-written files (`*.tmp`) are left out.
 *
 * Some of these private keys are the instance's, not the register's: the instance key signs every register's
 * records, and a country's software or company key serves every register that uses it. A backup handed to
 * someone who holds only the register's own credentials (`instanceKeys` false) carries none of them, only
 * the register's own device keys and the public keys.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RegisterPath } from '../fiscal/country-files.js';
import { moduleFor } from '../fiscal/registry.js';
import type { RegisterState } from '../journal/types.js';

export interface BackupFile {
  /** relative to the data folder, `/` separators */
  path: string;
  data: Buffer;
}

/** Adds the files at `rel` (a file or a folder's tree). */
function walk(dataDir: string, rel: string, out: BackupFile[]): void {
  const abs = join(dataDir, ...rel.split('/'));
  if (!existsSync(abs)) return;
  const st = statSync(abs);
  if (st.isFile()) {
    if (!rel.endsWith('.tmp')) out.push({ path: rel, data: readFileSync(abs) });
    return;
  }
  if (!st.isDirectory()) return;
  for (const name of readdirSync(abs).sort()) walk(dataDir, `${rel}/${name}`, out);
}

/** The country-state key prefixes (`<id>|...`): cashbox ids (AT), NIFs (ES). */
function stateSegments(state: Pick<RegisterState, 'country'>): Set<string> {
  const out = new Set<string>();
  for (const key of Object.keys(state.country)) for (const part of key.split('|').slice(0, -1)) if (part) out.add(part);
  return out;
}

/** The instance's own key pair, which every backup carries (the private half only with the instance's credentials). */
export const INSTANCE_KEY_FILES: readonly RegisterPath[] = [{ path: 'keys/instance.key.pem', instanceKey: true }, { path: 'keys/instance.pub.pem' }];

/** The register's folders and files under the data folder that exist now; `instanceKeys` false leaves the instance's private keys out. */
export function registerFiles(dataDir: string, state: Pick<RegisterState, 'rn' | 'cfg' | 'country'>, attributes: ReadonlyMap<string, string>, instanceKeys = true): BackupFile[] {
  const declared = moduleFor(state.cfg).files?.paths(dataDir, { rn: state.rn, cfg: state.cfg, stateSegments: stateSegments(state), attributes }) ?? [];
  const out: BackupFile[] = [];
  for (const p of [...INSTANCE_KEY_FILES, ...declared]) {
    if (p.instanceKey && !instanceKeys) continue;
    if (p.part) {
      const data = p.part();
      if (data) out.push({ path: p.path, data });
    } else {
      walk(dataDir, p.path, out);
    }
  }
  // one file once (two declared folders may overlap)
  const seen = new Set<string>();
  return out.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true)));
}

/**
 * Whether `path` (of a backup's files/, relative to the data folder) is one registerFiles can produce for
 * a register with this state: the instance key pair, and what its country module admits. A restore writes
 * nothing else into the data folder (no cer/, req/, profile or log files).
 */
export function isRegisterFile(path: string, state: Pick<RegisterState, 'rn' | 'cfg'>): boolean {
  if (path.endsWith('.tmp')) return false;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\0'))) return false;
  if (INSTANCE_KEY_FILES.some((f) => f.path === path)) return true;
  return moduleFor(state.cfg).files?.admits(path, state) ?? false;
}
