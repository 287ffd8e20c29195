/**
 * Which register a series belongs to, service-wide: `<dataDir>/pt/series.json`. The AT knows a series
 * once per company, with one validation code; two registers numbering `FS A/1` each would issue the same
 * document number and ATCUD twice. So the first register that issues a document of a series (per company
 * NIF) owns it, and any other register is refused. The file is also the service's memory that documents
 * were signed (see keys.ts: a lost key is then never replaced).
 *
 * The claim is made in the synchronous section (`fiscalize`), where nothing else runs in between: the
 * check and the in-memory claim cannot race; the file is written (atomically) before the document is
 * signed. One process owns a data folder.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../../shared/errors.js';
import { writeFileAtomic } from '../../../shared/files.js';

interface OwnersFile {
  /** "<company NIF> <series>" → the register number (RN) that owns it */
  series: Record<string, string>;
}

const cache = new Map<string, OwnersFile>();

export function ownersFile(dataDir: string): string {
  return join(dataDir, 'pt', 'series.json');
}

function read(dataDir: string): OwnersFile {
  const cached = cache.get(dataDir);
  if (cached) return cached;
  const file = ownersFile(dataDir);
  let owners: OwnersFile = { series: {} };
  if (existsSync(file)) {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<OwnersFile>;
      owners = { series: { ...(parsed.series ?? {}) } };
    } catch (e) {
      // never start numbering series anew on a damaged file: that is how duplicates would come back
      throw new FiscalError('#DEVICE_FAILED', { value: `${file} (${e instanceof Error ? e.message : String(e)})` });
    }
  }
  cache.set(dataDir, owners);
  return owners;
}

/** Whether any register of this data folder has issued a document. */
export function anySeriesClaimed(dataDir: string): boolean {
  return Object.keys(read(dataDir).series).length > 0;
}

/** The owner of a series, if any. */
export function ownerOf(dataDir: string, nif: string, series: string): string | undefined {
  return read(dataDir).series[`${nif} ${series}`];
}

/**
 * Makes `rn` the owner of the company's series, or refuses (#INVALID_VALUE naming FN_series) when
 * another register owns it. Synchronous: called in the synchronous section.
 */
export function claimSeries(dataDir: string, nif: string, series: string, rn: string): void {
  const owners = read(dataDir);
  const key = `${nif} ${series}`;
  const owner = owners.series[key];
  if (owner === rn) return;
  if (owner !== undefined) {
    throw new FiscalError('#INVALID_VALUE', {
      field: 'FN_series',
      detail: `series ${series} of company ${nif} belongs to register ${owner}: each register needs a series of its own (e.g. FN_series=A{TL}{TT})`,
    });
  }
  const next: OwnersFile = { series: { ...owners.series, [key]: rn } };
  mkdirSync(join(dataDir, 'pt'), { recursive: true, mode: 0o700 });
  writeFileAtomic(ownersFile(dataDir), `${JSON.stringify(next, null, 2)}\n`, 0o644);
  cache.set(dataDir, next);
}

/** Forgets what was read (a service started again in the same process reads the file anew). */
export function forgetOwners(dataDir: string): void {
  cache.delete(dataDir);
}
