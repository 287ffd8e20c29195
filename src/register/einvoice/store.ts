/**
 * Where the e-invoices of a register are kept: one file per journal record, `einvoice/<register>/<SQ>.xml`
 * under the data folder, written atomically once its record is committed.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomicAsync } from '../../shared/files.js';

/**
 * The register's folder: its number with every character but letters, digits and `-` written `_` and its
 * UTF-8 bytes in hex, so that no two registers share a folder (`A$1_1` and `A_1_1`) and none is `..`.
 */
function folder(dataDir: string, rn: string): string {
  return join(dataDir, 'einvoice', rn.replace(/[^A-Za-z0-9-]/gu, (c) => `_${Buffer.from(c, 'utf8').toString('hex')}`));
}

export async function saveEinvoice(dataDir: string, rn: string, sq: number, xml: string): Promise<void> {
  const dir = folder(dataDir, rn);
  await mkdir(dir, { recursive: true });
  await writeFileAtomicAsync(join(dir, `${sq}.xml`), xml);
}

/** The stored e-invoice of a record; undefined when none was written (or it was lost). */
export async function loadEinvoice(dataDir: string, rn: string, sq: number): Promise<string | undefined> {
  try {
    return await readFile(join(folder(dataDir, rn), `${sq}.xml`), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
