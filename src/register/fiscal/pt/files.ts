/**
 * Portugal's files of a register: the software's key pair (pt/private-key.pem, pt/public-key.pem: the
 * instance's, serving every register) and pt/series.json, the series each register owns. The series file is
 * service-wide: a backup carries this register's entries only, a restore merges them in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CountryFiles } from '../country-files.js';

const FILES = ['private-key.pem', 'public-key.pem', 'series.json'];

/** The entries of pt/series.json that this register owns, in the file's own form. */
function ownSeries(dataDir: string, rn: string): Buffer | undefined {
  const file = join(dataDir, 'pt', 'series.json');
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { series?: Record<string, string> };
    const own = Object.fromEntries(Object.entries(parsed.series ?? {}).filter(([, owner]) => owner === rn));
    return Buffer.from(JSON.stringify({ series: own }));
  } catch {
    return undefined;
  }
}

/** Merges a register's restored entries into pt/series.json; undefined when one clashes with another register's. */
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

export const PT_FILES: CountryFiles = {
  paths: (dataDir, reg) => [
    { path: 'pt/private-key.pem', instanceKey: true },
    { path: 'pt/public-key.pem' },
    { path: 'pt/series.json', part: () => ownSeries(dataDir, reg.rn) },
  ],
  admits(path) {
    const parts = path.split('/');
    return parts.length === 2 && parts[0] === 'pt' && FILES.includes(parts[1] ?? '');
  },
  keyPairs: [['pt/public-key.pem', 'pt/private-key.pem']],
  merged: { 'pt/series.json': mergeSeries },
};
