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
import { type FrItem, type FrReport, describeFrReport, frItemsOfRecord, verifyFrItems, verifyFrJouSeal } from './verify-core.js';
import { type SealedItem, parseSeal, sealChains, sealDigest } from './seal.js';

interface ParsedExport {
  publicKeyPem: string;
  complete: boolean;
  /** the attributes of NF525Export */
  header: Record<string, string>;
  items: FrItem[];
  /** the attributes of the Seal element, when there is one */
  seal?: Record<string, string>;
}

/** Reads export.xml; throws with the parser's message when it is not well-formed. */
export function parseExportXml(text: string): ParsedExport {
  const parser = new SaxesParser({ xmlns: false });
  const out: ParsedExport = { publicKeyPem: '', complete: false, header: {}, items: [] };
  let current: FrItem | undefined;
  let textOf: 'PublicKey' | 'Payload' | undefined;
  let buffer = '';
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'NF525Export') {
      out.complete = a.Complete === '1';
      out.header = { ...a };
    } else if (tag.name === 'Seal') out.seal = { ...a };
    else if (tag.name === 'PublicKey' || tag.name === 'Payload') {
      textOf = tag.name;
      buffer = '';
    } else if (tag.name === 'Record') {
      current = { sq: Number(a.SQ ?? '0'), payload: '', signature: a.Signature ?? '', fields: {}, d: a.D ?? '', ...(a.Chain !== undefined ? { chain: a.Chain } : {}), ...(a.N !== undefined ? { n: a.N } : {}), ...(a.Previous !== undefined ? { previous: a.Previous } : {}) };
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

export function verifyExportXml(text: string): FrReport & { sealedBy?: string } {
  let parsed: ParsedExport;
  try {
    parsed = parseExportXml(text);
  } catch (e) {
    return { ok: false, count: 0, chains: {}, broken: { sq: 0, chain: '', n: '', reason: `not well-formed XML: ${e instanceof Error ? e.message : String(e)}` } };
  }
  const report = verifyFrItems(parsed.items, parsed.publicKeyPem, nodeCrypto, parsed.complete);
  return report.ok ? checkSeal(parsed, report) : report;
}

/**
 * The seal (docs: "Exports"): signed by the register key of the file, or by the service's instance
 * key it names; it must name this file's header, its number of records, the digest of their SQ and
 * signatures, and the last record of every chain. A file without a seal is not OK: its end cannot
 * be checked.
 */
function checkSeal(parsed: ParsedExport, report: FrReport): FrReport & { sealedBy?: string } {
  const last = parsed.items[parsed.items.length - 1];
  const fail = (reason: string): FrReport => ({ ...report, ok: false, broken: { sq: last?.sq ?? 0, chain: 'SEAL', n: '', reason } });
  const seal = parsed.seal;
  if (!seal) return fail('not sealed: the end of the chains cannot be checked (records may have been removed at the end)');
  const payload = seal.Payload ?? '';
  const fields = parseSeal(payload);
  if (!fields) return fail('the seal is not an FR1;SEAL signed text');
  const instance = seal.Key === 'instance';
  let good = false;
  try {
    const key = nodeCrypto.createPublicKey(instance ? (seal.PublicKey ?? '') : parsed.publicKeyPem);
    good = nodeCrypto.verify('sha256', Buffer.from(payload, 'utf8'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(seal.Signature ?? '', 'base64url'));
  } catch {
    good = false;
  }
  if (!good) return fail(`the seal's signature does not verify with the ${instance ? "service's instance key it names" : 'public key of the file'}`);
  const h = parsed.header;
  const pairs: Array<[string, string, string]> = [['RN', h.RN ?? '', fields.rn], ['Exported', h.Exported ?? '', fields.exported], ['Complete', h.Complete ?? '', fields.complete], ['From', h.From ?? '', fields.from], ['Till', h.Till ?? '', fields.till]];
  for (const [name, inFile, inSeal] of pairs) if (inFile !== inSeal) return fail(`${name}="${inFile}" differs from the sealed value "${inSeal}"`);
  const sealed: SealedItem[] = parsed.items.map((it) => ({ sq: it.sq, chain: it.chain ?? '', n: it.n ?? '', signature: it.signature }));
  const chains = sealChains(sealed);
  if (chains !== fields.chains) {
    const named = new Map(fields.chains.split('|').map((c) => [c.split(':')[0] ?? '', c.split(':')[1] ?? ''] as const));
    const present = new Map(chains.split('|').map((c) => [c.split(':')[0] ?? '', c.split(':')[1] ?? ''] as const));
    for (const [k, n] of named) {
      if (present.get(k) !== n) return fail(`the seal names chain ${k} n° ${n} as its last record; the file ${present.has(k) ? `ends at n° ${present.get(k) ?? ''}` : 'has none'}: records were removed at the end`);
    }
    return fail('the last records of the chains differ from the sealed ones');
  }
  if (String(sealed.length) !== fields.records) return fail(`the file has ${sealed.length} records, the seal ${fields.records}: records were removed or added`);
  if (sealDigest(sealed) !== fields.digest) return fail('the SQ or signatures of the records differ from the sealed digest');
  return instance ? { ...report, sealedBy: `the service's instance key ${seal.KeyId ?? ''} (the register key could not sign)` } : report;
}

/** Verifies jou.zip: the journal, then the NF525 chains of its records. */
export async function verifyJouZip(path: string): Promise<{ journal: VerifyReport; chains: FrReport; seal: { ok: boolean; text: string } }> {
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
    const frKeyPem = await text('fr-public.pem');
    const chains = verifyFrItems(items, frKeyPem, nodeCrypto, complete);
    const seal = verifyFrJouSeal(entries.has('fr-seal.json') ? await text('fr-seal.json') : undefined, manifestText, chains.chains, frKeyPem, await text('public.pem'), nodeCrypto);
    return { journal, chains, seal };
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
    let r: Awaited<ReturnType<typeof verifyJouZip>>;
    try {
      r = await verifyJouZip(file);
    } catch (e) {
      return { ok: false, text: `${file}: not a readable zip (${e instanceof Error ? e.message : String(e)})` };
    }
    // the first broken record of both checks
    const lines = [`journal: ${describeReport(r.journal)}`, `NF525: ${describeFrReport(r.chains)}`, `seal: ${r.seal.text}`];
    const sqs = [r.journal.broken?.sq, r.chains.broken?.sq].filter((v): v is number => v !== undefined);
    const first = sqs.length ? `first broken record: SQ ${Math.min(...sqs)}\n` : '';
    return { ok: r.journal.ok && r.chains.ok && r.seal.ok, text: `${first}${lines.join('\n')}` };
  }
  const report: FrReport & { sealedBy?: string } = verifyExportXml(head.toString('utf8'));
  const text = describeFrReport(report);
  return { ok: report.ok, text: report.sealedBy ? `${text}\nsealed with ${report.sealedBy}` : report.ok ? `${text}; sealed` : text };
}
