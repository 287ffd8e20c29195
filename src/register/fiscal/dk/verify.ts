/**
 * `efr verify --country dk <export.zip | SAF-T Cash Register XML>`: re-verifies the signature chains of a
 * Danish SAF-T Cash Register file (namespace urn:StandardAuditFile-Taxation-CashRegister:DK) as the
 * Danish validator does. Per `cashregister`, its `cashtransaction`s in document order: `nr` has no gap,
 * and `signature` is the RSA PKCS#1 v1.5 SHA-512 signature of
 * `prev;nr;transID;transType;transDate;transTime;empID;transAmntIn;transAmntEx;registerID;companyIdent`
 * (the texts as written; registerID of the cashregister, companyIdent of auditfile/company; prev = the
 * previous signature of the register, '0' for nr 1) under the public key of the transaction's own
 * `certificateData`. A register whose first transaction in the file is not nr 1 starts mid-chain: that
 * first one is not checked (its prev is in an earlier file), the next ones are. Names the first broken one.
 */
import { X509Certificate, verify as verifySignature } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SaxesParser } from 'saxes';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import type { VerifyOutcome } from '../verifiers.js';

export const DK_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:DK';

/** The fields of one cashtransaction the signature covers, as they stand in the file. */
export interface DkCashTransaction {
  nr: string;
  transID: string;
  transType: string;
  transDate: string;
  transTime: string;
  empID: string;
  transAmntIn: string;
  transAmntEx: string;
  signature: string;
  certificateData: string;
}

export interface DkRegister {
  registerID: string;
  transactions: DkCashTransaction[];
}

export interface DkFile {
  companyIdent: string;
  registers: DkRegister[];
}

const FIELDS: ReadonlySet<string> = new Set(['nr', 'transID', 'transType', 'transDate', 'transTime', 'empID', 'transAmntIn', 'transAmntEx', 'signature', 'certificateData']);
const NR = /^\d{1,36}$/;

/** The string a Danish cashtransaction's signature covers. */
export function danishSignedMessage(prev: string, t: Omit<DkCashTransaction, 'signature' | 'certificateData'>, registerID: string, companyIdent: string): string {
  return [prev, t.nr, t.transID, t.transType, t.transDate, t.transTime, t.empID, t.transAmntIn, t.transAmntEx, registerID, companyIdent].join(';');
}

/** Reads company/companyIdent and the registers with their cashtransactions (document order) with saxes. */
export function readDanishFile(text: string): DkFile {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: true });
  const registers = new Map<string, DkRegister>();
  const stack: string[] = [];
  let companyIdent = '';
  let register: DkRegister | undefined;
  let trans: Record<string, string> | undefined;
  let field: string | undefined;
  let fieldText = '';
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (stack.length === 0 && (name !== 'auditfile' || tag.uri !== DK_NAMESPACE)) {
      throw new Error(`the root element is {${tag.uri}}${name}, not {${DK_NAMESPACE}}auditfile`);
    }
    const parent = stack[stack.length - 1];
    const path = stack.join('/');
    stack.push(name);
    if (name === 'cashregister') register = { registerID: '', transactions: [] };
    else if ((parent === 'cashregister' && name === 'registerID') || (path === 'auditfile/company' && name === 'companyIdent')) {
      field = name;
      fieldText = '';
    } else if (parent === 'cashregister' && name === 'cashtransaction') trans = {};
    else if (parent === 'cashtransaction' && trans && FIELDS.has(name)) {
      field = name;
      fieldText = '';
    }
  });
  const onText = (t: string): void => {
    if (field !== undefined) fieldText += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    stack.pop();
    const name = tag.local;
    if (field !== undefined && name === field) {
      const parent = stack[stack.length - 1];
      if (parent === 'company') companyIdent = fieldText.trim();
      else if (parent === 'cashregister' && register) register.registerID = fieldText.trim();
      else if (trans) trans[field] = field === 'certificateData' ? fieldText : fieldText.trim();
      field = undefined;
    } else if (name === 'cashtransaction' && trans && register) {
      register.transactions.push({
        nr: trans.nr ?? '', transID: trans.transID ?? '', transType: trans.transType ?? '', transDate: trans.transDate ?? '',
        transTime: trans.transTime ?? '', empID: trans.empID ?? '', transAmntIn: trans.transAmntIn ?? '', transAmntEx: trans.transAmntEx ?? '',
        // as the validator: line breaks removed, stripped
        signature: (trans.signature ?? '').replace(/\n/g, '').trim(),
        certificateData: trans.certificateData ?? '',
      });
      trans = undefined;
    } else if (name === 'cashregister' && register) {
      const known = registers.get(register.registerID);
      if (known) known.transactions.push(...register.transactions);
      else registers.set(register.registerID, register);
      register = undefined;
    }
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return { companyIdent, registers: [...registers.values()] };
}

export interface DkVerifyReport {
  ok: boolean;
  registers: Array<{ registerID: string; transactions: number; verified: number; firstNr: string; lastNr: string }>;
  midChain: Array<{ registerID: string; nr: string }>;
  broken?: { registerID: string; nr: string; transID: string; reason: string };
}

/** A PEM certificate (line breaks as the validator tolerates them) as an X509Certificate, or why not. */
function certificateOf(pem: string, cache: Map<string, X509Certificate | string>): X509Certificate | string {
  const known = cache.get(pem);
  if (known !== undefined) return known;
  let result: X509Certificate | string;
  const body = pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!body) result = 'the certificateData is empty';
  else {
    try {
      const lines = body.match(/.{1,64}/g) ?? [];
      result = new X509Certificate(`-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`);
    } catch (e) {
      result = `the certificateData is not a certificate: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  cache.set(pem, result);
  return result;
}

/** Verifies the chains of a file's registers; stops at the first broken transaction. */
export function verifyDanishFile(file: DkFile): DkVerifyReport {
  const report: DkVerifyReport = { ok: true, registers: [], midChain: [] };
  const certs = new Map<string, X509Certificate | string>();
  for (const reg of file.registers) {
    const entry = { registerID: reg.registerID, transactions: reg.transactions.length, verified: 0, firstNr: '', lastNr: '' };
    report.registers.push(entry);
    const fail = (t: DkCashTransaction, reason: string): DkVerifyReport => {
      report.ok = false;
      report.broken = { registerID: reg.registerID, nr: t.nr, transID: t.transID, reason };
      return report;
    };
    let prev: DkCashTransaction | undefined;
    for (const t of reg.transactions) {
      if (!NR.test(t.nr)) return fail(t, `nr "${t.nr}" is not a number`);
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (BigInt(t.nr) !== expected) return fail(t, `gap: nr ${t.nr} follows nr ${prev.nr} (expected nr ${expected})`);
      }
      if (!t.signature) return fail(t, 'the signature is missing');
      if (!prev && t.nr !== '1') {
        report.midChain.push({ registerID: reg.registerID, nr: t.nr });
      } else {
        const cert = certificateOf(t.certificateData, certs);
        if (typeof cert === 'string') return fail(t, cert);
        const data = Buffer.from(danishSignedMessage(prev ? prev.signature : '0', t, reg.registerID, file.companyIdent), 'utf8');
        let good = false;
        try {
          good = verifySignature('sha512', data, cert.publicKey, Buffer.from(t.signature, 'base64'));
        } catch {
          good = false;
        }
        if (!good) return fail(t, `the signature does not verify with the certificate ${cert.serialNumber} of its certificateData (the transaction was changed, the chain is broken, or it was signed with another key)`);
        entry.verified += 1;
      }
      if (!prev) entry.firstNr = t.nr;
      entry.lastNr = t.nr;
      prev = t;
    }
  }
  return report;
}

export function describeDkReport(r: DkVerifyReport): string {
  if (!r.ok && r.broken) {
    const b = r.broken;
    return `BROKEN at register ${b.registerID}, cashtransaction nr ${b.nr} (transID ${b.transID}): ${b.reason}`;
  }
  const total = r.registers.reduce((n, x) => n + x.verified, 0);
  const count = r.registers.reduce((n, x) => n + x.transactions, 0);
  if (count === 0) return 'OK: the file holds no cashtransaction, there is no signature to verify';
  const lines = r.registers.map((x) => `  register ${x.registerID}: ${x.transactions} cashtransactions (nr ${x.firstNr} to ${x.lastNr}), ${x.verified} signatures checked`);
  const notes = r.midChain.map((m) => `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; its signature needs the previous file and is not checked (as the Danish validator does)`);
  return [`OK: ${count} cashtransactions in ${r.registers.length} registers, all ${total} checked signatures verify`, ...lines, ...notes].join('\n');
}

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function xmlOfZip(path: string): Promise<Buffer | string> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const xmls: Array<{ name: string; bytes: Buffer }> = [];
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name.toLowerCase().endsWith('.xml')) xmls.push({ name, bytes: await entryBytes(zip, entry) });
    }
    if (xmls.length !== 1) return xmls.length === 0 ? 'the zip holds no SAF-T Cash Register XML file' : `the zip holds ${xmls.length} XML files; verify one SAF-T file at a time`;
    return (xmls[0] as { bytes: Buffer }).bytes;
  } finally {
    zip.close();
  }
}

/** Verifies an export zip or a bare Danish SAF-T Cash Register XML file. */
export async function verifyDanishExport(path: string): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  let xml: Buffer;
  try {
    const bytes = readFileSync(path);
    if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
      const z = await xmlOfZip(path);
      if (typeof z === 'string') return broken(z);
      xml = z;
    } else xml = bytes;
  } catch (e) {
    return broken(`${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  let file: DkFile;
  try {
    file = readDanishFile(xml.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    return broken(`not a readable Danish SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const report = verifyDanishFile(file);
  return { ok: report.ok, text: describeDkReport(report) };
}
