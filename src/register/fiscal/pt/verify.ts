/**
 * `efr verify --country pt <export.zip | saft.xml>`: re-verifies the hash chains of a SAF-T PT file.
 * For every signed document (SalesInvoices, MovementOfGoods, WorkingDocuments), in file order and per
 * series (the document number without its last `/n`): the number follows the one before, the dates do
 * not go back, the totals add up (GrossTotal = NetTotal + TaxPayable, the lines make NetTotal within a
 * cent per line) and the hash is the RSA-SHA1 signature of `date;SystemEntryDate;number;GrossTotal;
 * previous hash` under the public key. The key comes from the zip (`public-key.pem`), or for a bare XML
 * file from `public-key.pem`, `Public_Key.txt` or `<file>.pem` beside it. A series whose first document
 * in the file is not its number 1 is verified from the hash in `chain-start.json`; without that hash the
 * file is not OK (documents taken from the start of a series must not go unnoticed). The text names the
 * first broken document.
 */
import { type KeyObject, createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import { type Dec, ZERO, abs, add, cmp, fmtMoney, parseDec, sub } from '../../../shared/money.js';
import type { VerifyOutcome } from '../verifiers.js';
import { decodeXmlBytes } from '../../codec/xml-text.js';
import { type XmlElement, child, children, parseXml, textOf } from '../../codec/xml-tree.js';
import { hashMessage, verifyMessage } from './signature.js';

export interface SaftReport {
  ok: boolean;
  documents: number;
  series: number;
  broken?: { document: string; index: number; reason: string };
}

const SECTIONS: ReadonlyArray<{ section: string; doc: string; no: string; date: string }> = [
  { section: 'SalesInvoices', doc: 'Invoice', no: 'InvoiceNo', date: 'InvoiceDate' },
  { section: 'MovementOfGoods', doc: 'StockMovement', no: 'DocumentNumber', date: 'MovementDate' },
  { section: 'WorkingDocuments', doc: 'WorkDocument', no: 'DocumentNumber', date: 'WorkDate' },
];

function amount(text: string | undefined): Dec | undefined {
  return text === undefined ? undefined : parseDec(text);
}

/** Verifies the documents of a parsed SAF-T PT file. */
export function verifySaft(root: XmlElement, key: KeyObject, chainStart: Readonly<Record<string, string>> = {}): SaftReport {
  const audit = child(root, 'AuditFile');
  const sources = child(audit, 'SourceDocuments');
  let index = 0;
  const seen = new Map<string, { number: number; hash: string; date: string; sed: string }>();
  const result = (broken?: SaftReport['broken']): SaftReport => ({ ok: !broken, documents: broken ? index - 1 : index, series: seen.size, ...(broken ? { broken } : {}) });
  if (!audit) return result({ document: '', index: 0, reason: 'not a SAF-T file (no AuditFile element)' });
  for (const s of SECTIONS) {
    for (const doc of children(child(sources, s.section), s.doc)) {
      index += 1;
      const no = textOf(doc, s.no) ?? '';
      const fail = (reason: string): SaftReport => result({ document: no, index, reason });
      const m = /^([^ ]+ [^/^ ]+)\/([0-9]+)$/.exec(no);
      if (!m) return fail(`"${no}" is not a document number "<type> <series>/<n>"`);
      const seriesKey = `${s.section}:${m[1] as string}`;
      const number = Number(m[2]);
      const date = textOf(doc, s.date) ?? '';
      const sed = textOf(doc, 'SystemEntryDate') ?? '';
      const hash = textOf(doc, 'Hash') ?? '';
      const totals = child(doc, 'DocumentTotals');
      const grossText = textOf(totals, 'GrossTotal');
      if (!date || !sed || !hash || grossText === undefined) return fail('a date, SystemEntryDate, Hash or GrossTotal is missing');
      if (!textOf(doc, 'HashControl')) return fail('HashControl is missing');
      const before = seen.get(seriesKey);
      let previous: string | undefined;
      if (before) {
        if (number !== before.number + 1) return fail(`number ${number} follows ${before.number} in series ${m[1] as string}`);
        if (date < before.date) return fail(`dated ${date}, before the document before it (${before.date})`);
        if (sed < before.sed) return fail(`recorded ${sed}, before the document before it (${before.sed})`);
        previous = before.hash;
      } else {
        previous = number === 1 ? '' : chainStart[m[1] as string];
        // documents taken from the start of a series would otherwise leave a file that verifies
        if (previous === undefined) {
          return fail(`cannot be verified: it is the first document of series ${m[1] as string} in the file but not its number 1, and the hash of number ${number - 1} is not given (chain-start.json)`);
        }
      }
      const gross = amount(grossText);
      const net = amount(textOf(totals, 'NetTotal'));
      const tax = amount(textOf(totals, 'TaxPayable'));
      if (!gross || !net || !tax) return fail('the document totals are not decimal amounts');
      if (cmp(add(net, tax), gross) !== 0) return fail(`GrossTotal ${grossText} is not NetTotal + TaxPayable`);
      const docLines = children(doc, 'Line');
      let credit = ZERO;
      let debit = ZERO;
      for (const line of docLines) {
        credit = add(credit, amount(textOf(line, 'CreditAmount')) ?? ZERO);
        debit = add(debit, amount(textOf(line, 'DebitAmount')) ?? ZERO);
      }
      const tolerance: Dec = { v: BigInt(Math.max(1, docLines.length)), s: 2 };
      const lineSum = abs(sub(credit, debit));
      if (cmp(abs(sub(lineSum, net)), tolerance) > 0) return fail(`the lines add up to ${fmtMoney(lineSum)}, NetTotal is ${textOf(totals, 'NetTotal') ?? ''}`);
      if (!verifyMessage(key, hashMessage({ invoiceDate: date, systemEntryDate: sed, invoiceNo: no, grossTotal: grossText, previousHash: previous }), hash)) {
        return fail(number === 1 || before ? 'the hash does not verify (the document was changed, or the chain is broken)' : 'the hash does not verify with the chain start of its series');
      }
      seen.set(seriesKey, { number, hash, date, sed });
    }
  }
  if (index === 0) return result({ document: '', index: 0, reason: 'the file holds no signed document' });
  return result();
}

export function describeSaftReport(r: SaftReport): string {
  if (!r.ok) return `BROKEN at document ${r.broken?.index ?? 0} (${r.broken?.document ?? ''}): ${r.broken?.reason ?? ''}`;
  return `OK: ${r.documents} documents in ${r.series} series, hash chains and signatures verify`;
}

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface Inputs {
  xml: Buffer;
  pem?: string;
  chainStart: Record<string, string>;
}

async function readZip(path: string): Promise<Inputs | string> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    let xml: Buffer | undefined;
    let pem: string | undefined;
    let chainStart: Record<string, string> = {};
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name.toLowerCase().endsWith('.xml') && !xml) xml = await entryBytes(zip, entry);
      else if (name === 'public-key.pem') pem = (await entryBytes(zip, entry)).toString('utf8');
      else if (name === 'chain-start.json') chainStart = JSON.parse((await entryBytes(zip, entry)).toString('utf8')) as Record<string, string>;
    }
    if (!xml) return 'the zip holds no SAF-T XML file';
    return { xml, ...(pem ? { pem } : {}), chainStart };
  } finally {
    zip.close();
  }
}

function keyBeside(path: string): string | undefined {
  const dir = dirname(path);
  for (const name of ['public-key.pem', 'Public_Key.txt', `${basename(path).replace(/\.xml$/i, '')}.pem`]) {
    const file = join(dir, name);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return undefined;
}

export async function verifyExportFile(file: string): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  let inputs: Inputs;
  try {
    const bytes = readFileSync(file);
    if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
      const z = await readZip(file);
      if (typeof z === 'string') return broken(z);
      inputs = z;
    } else {
      const pem = keyBeside(file);
      inputs = { xml: bytes, ...(pem ? { pem } : {}), chainStart: {} };
    }
  } catch (e) {
    return broken(`${file} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!inputs.pem) return broken('no public key (public-key.pem in the zip, or public-key.pem / Public_Key.txt beside the XML file)');
  let key: KeyObject;
  let root: XmlElement;
  try {
    key = createPublicKey(inputs.pem);
  } catch (e) {
    return broken(`the public key cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    root = parseXml(decodeXmlBytes(inputs.xml));
  } catch (e) {
    return broken(`the SAF-T file is not well-formed XML: ${e instanceof Error ? e.message : String(e)}`);
  }
  const report = verifySaft(root, key, inputs.chainStart);
  return { ok: report.ok, text: describeSaftReport(report) };
}
