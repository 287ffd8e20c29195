/**
 * `efr verify --country fr <export.xml | jou.zip>`: the offline check of an NF525 export. export.xml
 * (nf525-export): every record's listed fields, chain, number and previous signature against its
 * signed string, and the chains with the key of the file. jou.zip (nf525-jou): the journal check of
 * every journal export and the NF525 chains with fr-public.pem. The text names the first broken record.
 */
import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SaxesParser } from 'saxes';
import { type Entry, openPromise } from 'yauzl';
import { describeReport, verifyJournalFiles, compareJouNames, type VerifyReport } from '../../journal/export/verify-core.js';
import { readText } from '../../journal/export/verify-zip.js';
import type { VerifyOutcome } from '../verifiers.js';
import { type FrItem, type FrReport, describeFrReport, frItemsOfRecord, verifyFrItems } from './verify-core.js';

interface ParsedExport {
  publicKeyPem: string;
  complete: boolean;
  items: FrItem[];
}

/** Reads export.xml; throws with the parser's message when it is not well-formed. */
export function parseExportXml(text: string): ParsedExport {
  const parser = new SaxesParser({ xmlns: false });
  const out: ParsedExport = { publicKeyPem: '', complete: false, items: [] };
  let current: FrItem | undefined;
  let textOf: 'PublicKey' | 'Payload' | undefined;
  let buffer = '';
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'NF525Export') out.complete = a.Complete === '1';
    else if (tag.name === 'PublicKey' || tag.name === 'Payload') {
      textOf = tag.name;
      buffer = '';
    } else if (tag.name === 'Record') {
      current = { sq: Number(a.SQ ?? '0'), payload: '', signature: a.Signature ?? '', fields: {}, ...(a.Chain !== undefined ? { chain: a.Chain } : {}), ...(a.N !== undefined ? { n: a.N } : {}), ...(a.Previous !== undefined ? { previous: a.Previous } : {}) };
    } else if (tag.name === 'Field' && current?.fields) {
      current.fields[a.Name ?? ''] = a.Value ?? '';
    }
  });
  parser.on('text', (t) => {
    if (textOf) buffer += t;
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'PublicKey') out.publicKeyPem = buffer;
    else if (tag.name === 'Payload' && current) current.payload = buffer;
    else if (tag.name === 'Record' && current) {
      out.items.push(current);
      current = undefined;
    }
    if (tag.name === textOf) textOf = undefined;
  });
  parser.write(text).close();
  return out;
}

export function verifyExportXml(text: string): FrReport {
  let parsed: ParsedExport;
  try {
    parsed = parseExportXml(text);
  } catch (e) {
    return { ok: false, count: 0, chains: {}, broken: { sq: 0, chain: '', n: '', reason: `not well-formed XML: ${e instanceof Error ? e.message : String(e)}` } };
  }
  return verifyFrItems(parsed.items, parsed.publicKeyPem, nodeCrypto, parsed.complete);
}

/** Verifies jou.zip: the journal, then the NF525 chains of its records. */
export async function verifyJouZip(path: string): Promise<{ journal: VerifyReport; chains: FrReport }> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const entries = new Map<string, Entry>();
    for await (const entry of zip.eachEntry()) if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
    const text = async (name: string): Promise<string> => {
      const e = entries.get(name);
      return e ? readText(zip, e) : '';
    };
    const manifestText = await text('manifest.json');
    const names = [...entries.keys()].filter((n) => n.endsWith('.jou') && !n.includes('/')).sort(compareJouNames);
    const files: Array<{ name: string; text: string }> = [];
    for (const name of names) files.push({ name, text: await text(name) });
    const journal = await verifyJournalFiles(files, manifestText, await text('public.pem'), nodeCrypto);
    const items: FrItem[] = [];
    for (const f of files) {
      let records: unknown;
      try {
        records = JSON.parse(f.text);
      } catch {
        continue;
      }
      if (!Array.isArray(records)) continue;
      for (const r of records as Array<{ SQ?: unknown; data?: unknown }>) {
        if (typeof r.data === 'string' && typeof r.SQ === 'number') items.push(...frItemsOfRecord(r.SQ, r.data));
      }
    }
    let complete = false;
    try {
      complete = (JSON.parse(manifestText) as { firstSQ?: unknown }).firstSQ === 1;
    } catch {
      complete = false;
    }
    return { journal, chains: verifyFrItems(items, await text('fr-public.pem'), nodeCrypto, complete) };
  } finally {
    zip.close();
  }
}

export async function verifyExportFile(file: string): Promise<VerifyOutcome> {
  let head: Buffer;
  try {
    head = readFileSync(file);
  } catch (e) {
    return { ok: false, text: `${file}: cannot be read (${e instanceof Error ? e.message : String(e)})` };
  }
  if (head.subarray(0, 2).toString('latin1') === 'PK') {
    let r: { journal: VerifyReport; chains: FrReport };
    try {
      r = await verifyJouZip(file);
    } catch (e) {
      return { ok: false, text: `${file}: not a readable zip (${e instanceof Error ? e.message : String(e)})` };
    }
    // the first broken record of both checks
    const lines = [`journal: ${describeReport(r.journal)}`, `NF525: ${describeFrReport(r.chains)}`];
    const sqs = [r.journal.broken?.sq, r.chains.broken?.sq].filter((v): v is number => v !== undefined);
    const first = sqs.length ? `first broken record: SQ ${Math.min(...sqs)}\n` : '';
    return { ok: r.journal.ok && r.chains.ok, text: `${first}${lines.join('\n')}` };
  }
  const report = verifyExportXml(head.toString('utf8'));
  return { ok: report.ok, text: describeFrReport(report) };
}
