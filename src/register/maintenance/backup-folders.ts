/**
 * The files of the data folder a register needs to continue its fiscal chains after a restore:
 *   keys/instance.key.pem, keys/instance.pub.pem   the instance key that signs every journal record
 *   at/<cashbox>/     Austria: signature devices (device-<n>/key.pem, certificate.der) and aes.key, for the
 *                     cashbox of the Cfg (Fiscal_CashboxId, else TL-TT) and every cashbox the state names
 *   de/<RN>/          Germany: the TSE's keys, certificate, counters and its backups
 *   fr/<RN>/          France: the NF525 signing key
 *   es/<NIF>/         Spain: the TicketBAI key of the company (Cfg.Cmp.TaxId, and the NIFs the state names)
 *   pt/private-key.pem, pt/public-key.pem, pt/series.json   Portugal: the software's signing key and the
 *                     series this register owns (the file is service-wide: only this RN's entries are kept)
 * Paths are relative to the data folder, with `/` separators. Half-written files (`*.tmp`) are left out.
 *
 * Some of these private keys are the instance's, not the register's: the instance key signs every register's
 * records, and Portugal's software key, Norway's key and a Spanish company's key serve every register that
 * uses them. A backup handed to someone who holds only the register's own credentials (`instanceKeys`
 * false) carries none of them, only the register's own device keys (at/, de/, fr/) and the public keys.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { obj, str } from '../codec/index.js';
import { cashboxIdOf } from '../fiscal/at/index.js';
import { nifOf } from '../fiscal/es/config.js';
import type { RegisterState } from '../journal/types.js';

export interface BackupFile {
  /** relative to the data folder, `/` separators */
  path: string;
  data: Buffer;
}

const safe = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, '_');

/** Adds the files at `rel` (a file or a folder's tree) that `keep` admits, read only when kept. */
function walk(dataDir: string, keep: (path: string) => boolean, rel: string, out: BackupFile[]): void {
  const abs = join(dataDir, ...rel.split('/'));
  if (!existsSync(abs)) return;
  const st = statSync(abs);
  if (st.isFile()) {
    if (!rel.endsWith('.tmp') && keep(rel)) out.push({ path: rel, data: readFileSync(abs) });
    return;
  }
  if (!st.isDirectory()) return;
  for (const name of readdirSync(abs).sort()) walk(dataDir, keep, `${rel}/${name}`, out);
}

/** The country-state key prefixes (`<id>|...`): cashbox ids (AT), NIFs (ES). */
function stateSegments(state: Pick<RegisterState, 'country'>): Set<string> {
  const out = new Set<string>();
  for (const key of Object.keys(state.country)) for (const part of key.split('|').slice(0, -1)) if (part) out.add(part);
  return out;
}

/** The instance's private keys that registerFiles may carry: only in a backup made with the instance's credentials. */
function isInstancePrivateKey(path: string): boolean {
  return path === 'keys/instance.key.pem' || path === 'keys/no-saft-rsa1024.pem' || path === 'pt/private-key.pem' || path.startsWith('es/');
}

/** The register's folders and files under the data folder that exist now; `instanceKeys` false leaves the instance's private keys out. */
export function registerFiles(dataDir: string, state: Pick<RegisterState, 'rn' | 'cfg' | 'country'>, attributes: ReadonlyMap<string, string>, instanceKeys = true): BackupFile[] {
  const keep = instanceKeys ? () => true : (path: string) => !isInstancePrivateKey(path);
  const out: BackupFile[] = [];
  walk(dataDir, keep, 'keys/instance.key.pem', out);
  walk(dataDir, keep, 'keys/instance.pub.pem', out);
  const segments = stateSegments(state);
  const ctry = (str(obj(state.cfg, 'Cmp') ?? {}, 'Ctry') ?? '').toUpperCase();
  if (ctry === 'AT') {
    const cashboxes = new Set([cashboxIdOf(attributes, state.cfg), ...segments]);
    for (const id of [...cashboxes].sort()) walk(dataDir, keep, `at/${safe(id)}`, out);
  }
  walk(dataDir, keep, `de/${safe(state.rn)}`, out);
  walk(dataDir, keep, `fr/${safe(state.rn)}`, out);
  if (ctry === 'ES') {
    const nif = nifOf(str(obj(state.cfg, 'Cmp') ?? {}, 'TaxId'));
    const nifs = new Set([...(nif ? [nif] : []), ...[...segments].filter((s) => nifOf(s) === s)]);
    for (const n of [...nifs].sort()) walk(dataDir, keep, `es/${safe(n)}`, out);
  }
  // Norway: the key that signs the register's chain (a new one could not sign on under the same key version)
  if (ctry === 'NO') walk(dataDir, keep, 'keys/no-saft-rsa1024.pem', out);
  if (ctry === 'PT') {
    walk(dataDir, keep, 'pt/private-key.pem', out);
    walk(dataDir, keep, 'pt/public-key.pem', out);
    const series = ownSeries(dataDir, state.rn);
    if (series) out.push({ path: 'pt/series.json', data: Buffer.from(JSON.stringify(series)) });
  }
  // one file once (a cashbox id may also look like a NIF)
  const seen = new Set<string>();
  return out.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true)));
}

const PT_FILES = ['private-key.pem', 'public-key.pem', 'series.json'];

/**
 * Whether `path` (of a backup's files/, relative to the data folder) is one registerFiles can produce for
 * a register with this state: the instance key pair, and the folders of its country (at/<cashbox>/,
 * es/<NIF>/ and pt/'s three files only for a register of that country; de/<RN>/ and fr/<RN>/ by its RN).
 * A restore writes nothing else into the data folder (no cer/, req/, profile or log files).
 */
export function isRegisterFile(path: string, state: Pick<RegisterState, 'rn' | 'cfg'>): boolean {
  if (path.endsWith('.tmp')) return false;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\') || p.includes('\0'))) return false;
  if (path === 'keys/instance.key.pem' || path === 'keys/instance.pub.pem') return true;
  const [top, folder] = parts as [string, string | undefined];
  if (folder === undefined) return false;
  const ctry = (str(obj(state.cfg, 'Cmp') ?? {}, 'Ctry') ?? '').toUpperCase();
  if (path === 'keys/no-saft-rsa1024.pem') return ctry === 'NO';
  switch (top) {
    case 'de':
    case 'fr':
      return folder === safe(state.rn);
    case 'at':
      return ctry === 'AT' && parts.length >= 3 && folder === safe(folder);
    case 'es':
      return ctry === 'ES' && parts.length >= 3 && nifOf(folder) === folder;
    case 'pt':
      return ctry === 'PT' && parts.length === 2 && PT_FILES.includes(folder);
    default:
      return false;
  }
}

/** The entries of pt/series.json that this register owns, in the file's own form. */
function ownSeries(dataDir: string, rn: string): { series: Record<string, string> } | undefined {
  const file = join(dataDir, 'pt', 'series.json');
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { series?: Record<string, string> };
    const own = Object.fromEntries(Object.entries(parsed.series ?? {}).filter(([, owner]) => owner === rn));
    return { series: own };
  } catch {
    return undefined;
  }
}

/** pt/series.json is shared: a restore merges the register's entries; undefined when they clash with another register's. */
export function mergeSeries(existing: Buffer, restored: Buffer): Buffer | undefined {
  const a = JSON.parse(existing.toString('utf8')) as { series?: Record<string, string> };
  const b = JSON.parse(restored.toString('utf8')) as { series?: Record<string, string> };
  const merged: Record<string, string> = { ...(a.series ?? {}) };
  for (const [k, owner] of Object.entries(b.series ?? {})) {
    if (merged[k] !== undefined && merged[k] !== owner) return undefined;
    merged[k] = owner;
  }
  return Buffer.from(JSON.stringify({ series: merged }));
}
