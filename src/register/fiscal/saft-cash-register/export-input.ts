/** What `efr verify` reads of a SAF-T Cash Register export: the zip's XML file and previous-signature.txt, or a bare XML file. */
import { readFileSync } from 'node:fs';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import { PREVIOUS_SIGNATURE_FILE } from './previous-signature.js';

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** An export as read: its one XML file and its previous-signature.txt, if any. */
export interface ExportFiles {
  xml: Buffer;
  /** the text of previous-signature.txt, when the export has one */
  previous?: string;
}

/**
 * Reads an export zip: its one XML file, previous-signature.txt, and every other file `other` takes (by
 * its name, read when it asks); a text saying what is wrong otherwise (`nameXmlFiles`: that text names them).
 */
export async function readExportZip(
  path: string, other?: (name: string, read: () => Promise<Buffer>) => Promise<void>, nameXmlFiles = false,
): Promise<ExportFiles | string> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const xmls: Array<{ name: string; bytes: Buffer }> = [];
    let previous: string | undefined;
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name.toLowerCase().endsWith('.xml')) xmls.push({ name, bytes: await entryBytes(zip, entry) });
      else if (name === PREVIOUS_SIGNATURE_FILE) previous = (await entryBytes(zip, entry)).toString('utf8');
      else if (other) await other(name, () => entryBytes(zip, entry));
    }
    if (xmls.length === 0) return 'the zip holds no SAF-T Cash Register XML file';
    if (xmls.length > 1) return `the zip holds ${xmls.length} XML files${nameXmlFiles ? ` (${xmls.map((x) => x.name).join(', ')})` : ''}; verify one SAF-T file at a time`;
    return { xml: (xmls[0] as { bytes: Buffer }).bytes, ...(previous !== undefined ? { previous } : {}) };
  } finally {
    zip.close();
  }
}

/** An export with the public keys it carries, and where they were found (for the verifier's report). */
export interface ExportWithKeys extends ExportFiles {
  /** the PEM text of a key, by the id its file name gives */
  pemFor(id: string): string | undefined;
  where: string;
}

/** Reads an export zip with the public keys beside its XML file: files named as `keyFile` says (its group 1 is the key's id). */
export async function readExportZipWithKeys(path: string, keyFile: RegExp): Promise<ExportWithKeys | string> {
  const pems = new Map<string, string>();
  const files = await readExportZip(path, async (name, read) => {
    const id = keyFile.exec(name)?.[1];
    if (id !== undefined) pems.set(id, (await read()).toString('utf8'));
  }, true);
  return typeof files === 'string' ? files : { ...files, pemFor: (id) => pems.get(id), where: 'in the zip' };
}

/**
 * Reads what `efr verify` is given: an export zip (`zip`) or a bare XML file (`bare`, with its bytes);
 * a text saying what is wrong otherwise.
 */
export async function readExportInput<T>(path: string, zip: (path: string) => Promise<T | string>, bare: (bytes: Buffer) => T): Promise<T | string> {
  try {
    const bytes = readFileSync(path);
    return bytes.subarray(0, 2).toString('latin1') === 'PK' ? await zip(path) : bare(bytes);
  } catch (e) {
    return `${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`;
  }
}
