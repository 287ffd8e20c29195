/** Verifies a journal export zip (as written by GET /export?type=jou) with the shared verification core. */
import * as nodeCrypto from 'node:crypto';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import { type JournalFile, type VerifyReport, compareJouNames, verifyJournalFiles } from './verify-core.js';

function brokenReport(file: string, reason: string): VerifyReport {
  return { ok: false, count: 0, firstSQ: 0, lastSQ: 0, broken: { sq: 0, file, reason } };
}

/** One zip entry as UTF-8 text. */
export async function readText(zip: ZipFile, entry: Entry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One record line of a .jou file as GET /export?type=jou writes it. */
export interface JouLine {
  SQ: number;
  _: string;
  data: string;
}

/** The record lines of one .jou file's text (none when it is not the expected JSON: the verification names that). */
function linesOf(text: string): JouLine[] {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return (list as Array<Partial<JouLine>>).filter((r): r is JouLine => typeof r.data === 'string' && typeof r.SQ === 'number' && typeof r._ === 'string');
}

/**
 * Reads the zip's manifest.json, public.pem and NNNN.jou files (at its root, or in the one folder
 * that holds manifest.json when the export was unzipped and zipped again) and verifies them, one
 * .jou file in memory at a time; `onRecord` sees every record line on the way, in SQ order, for the checks a
 * country's verifier adds. Throws only when the file cannot be read as a zip.
 */
export async function verifyZip(path: string, onRecord?: (line: JouLine) => void): Promise<VerifyReport> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const entries = new Map<string, Entry>();
    for await (const entry of zip.eachEntry()) if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
    const manifestName = [...entries.keys()].filter((n) => n === 'manifest.json' || n.endsWith('/manifest.json')).sort((a, b) => a.length - b.length)[0];
    if (manifestName === undefined) return brokenReport('manifest.json', 'the zip holds no manifest.json');
    const folder = manifestName.slice(0, -'manifest.json'.length);
    const at = (name: string): Entry | undefined => entries.get(folder + name);
    const pem = at('public.pem');
    if (!pem) return brokenReport('public.pem', 'the zip holds no public.pem beside manifest.json');
    const manifestEntry = at('manifest.json');
    const manifestText = manifestEntry ? await readText(zip, manifestEntry) : '';
    const publicKeyPem = await readText(zip, pem);
    const names = [...entries.keys()]
      .filter((n) => n.startsWith(folder) && n.endsWith('.jou') && !n.slice(folder.length).includes('/'))
      .map((n) => n.slice(folder.length))
      .sort(compareJouNames);
    async function* files(): AsyncGenerator<JournalFile> {
      for (const name of names) {
        const entry = at(name);
        if (!entry) continue;
        const text = await readText(zip, entry);
        if (onRecord) for (const line of linesOf(text)) onRecord(line);
        yield { name, text };
      }
    }
    return await verifyJournalFiles(files(), manifestText, publicKeyPem, nodeCrypto);
  } finally {
    zip.close();
  }
}
