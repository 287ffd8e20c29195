/**
 * `efr verify --country dk <export.zip | SAF-T Cash Register XML>`: re-verifies the signature chains of a
 * Danish SAF-T Cash Register file (namespace urn:StandardAuditFile-Taxation-CashRegister:DK) as the
 * Danish validator does. Per `cashregister`, its `cashtransaction`s in document order: `nr` has no gap,
 * and `signature` is the RSA PKCS#1 v1.5 SHA-512 signature of
 * `prev;nr;transID;transType;transDate;transTime;empID;transAmntIn;transAmntEx;registerID;companyIdent`
 * (the texts as written; registerID of the cashregister, companyIdent of auditfile/company; prev = the
 * previous signature of the register, '0' for nr 1) under the public key of the transaction's own
 * `certificateData`; the signature must be the exact base64 of as many bytes as the key's modulus. A period
 * export's first transaction is chained to the line `<registerID> <nr> <signature>` of
 * `previous-signature.txt` (the transaction before the period; the first nr must be that nr + 1); without it
 * a register starting mid-chain has its first one unchecked ("N-1 of N signatures verified"). The SHA-256
 * fingerprint of every certificate used is printed, and `--key <certificate or public key PEM>` pins it:
 * a signature by another key is a failure. Names the first broken one.
 */
import { X509Certificate, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SaxesParser } from 'saxes';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import type { VerifyOutcome } from '../verifiers.js';
import {
  type KeyUse, type PinnedKey, type PreviousSignature, PREVIOUS_SIGNATURE_FILE, isCanonicalBase64, keyFingerprint, keyLines, parsePreviousSignatures, readPinnedKeys,
} from '../no/verify.js';

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
  /** registers starting mid-chain without a previous signature: their first transaction is not checked */
  midChain: Array<{ registerID: string; nr: string }>;
  /** registers whose first transaction was chained to previous-signature.txt */
  chained: Array<{ registerID: string; nr: string; previousNr: string; previousSignature: string }>;
  /** every certificate a signature was verified with, by its public key's fingerprint */
  keys: KeyUse[];
  pinned: PinnedKey[];
  broken?: { registerID: string; nr: string; transID: string; reason: string };
}

export interface DkVerifyOptions {
  /** `--key`: only these public keys (of certificates) may have made the signatures */
  pinned?: readonly PinnedKey[];
  /** previous-signature.txt, by register id */
  previous?: ReadonlyMap<string, PreviousSignature>;
}

/** True when `s` is the exact base64 of a signature of an RSA key of `bits`. */
function isSignatureForm(s: string, bits: number | undefined): boolean {
  return bits !== undefined && isCanonicalBase64(s) && Buffer.from(s, 'base64').length * 8 === bits;
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
export function verifyDanishFile(file: DkFile, options: DkVerifyOptions = {}): DkVerifyReport {
  const pinned = options.pinned ?? [];
  const report: DkVerifyReport = { ok: true, registers: [], midChain: [], chained: [], keys: [], pinned: [...pinned] };
  const certs = new Map<string, X509Certificate | string>();
  const used = new Map<string, KeyUse>();
  const pinnedText = pinned.map((p) => p.fingerprint).join(' or ');
  for (const reg of file.registers) {
    const entry = { registerID: reg.registerID, transactions: reg.transactions.length, verified: 0, firstNr: '', lastNr: '' };
    report.registers.push(entry);
    const fail = (t: DkCashTransaction, reason: string): DkVerifyReport => {
      report.ok = false;
      report.broken = { registerID: reg.registerID, nr: t.nr, transID: t.transID, reason };
      return report;
    };
    const before = options.previous?.get(reg.registerID);
    let prev: DkCashTransaction | undefined;
    for (const t of reg.transactions) {
      if (!NR.test(t.nr)) return fail(t, `nr "${t.nr}" is not a number`);
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (BigInt(t.nr) !== expected) return fail(t, `gap: nr ${t.nr} follows nr ${prev.nr} (expected nr ${expected})`);
      }
      if (!t.signature) return fail(t, 'the signature is missing');
      const cert = certificateOf(t.certificateData, certs);
      const bits = typeof cert === 'string' ? undefined : cert.publicKey.asymmetricKeyDetails?.modulusLength;
      const formText = `the exact base64 of a ${bits === undefined ? '?' : bits / 8}-byte signature (the modulus of the certificate's RSA key)`;
      if (typeof cert !== 'string') {
        if (cert.publicKey.asymmetricKeyType !== 'rsa') return fail(t, `the certificate ${cert.serialNumber} of its certificateData has no RSA key`);
        if (!isSignatureForm(t.signature, bits)) return fail(t, `the signature is not ${formText}`);
      }
      let prevSignature = prev ? prev.signature : '0';
      if (!prev && before) {
        if (BigInt(t.nr) !== BigInt(before.nr) + 1n) {
          return fail(t, `${PREVIOUS_SIGNATURE_FILE} gives nr ${before.nr} as the transaction before the period, so the first one must be nr ${BigInt(before.nr) + 1n}, not nr ${t.nr}`);
        }
        if (typeof cert !== 'string' && !isSignatureForm(before.signature, bits)) return fail(t, `the signature of nr ${before.nr} in ${PREVIOUS_SIGNATURE_FILE} is not ${formText}`);
        prevSignature = before.signature;
        report.chained.push({ registerID: reg.registerID, nr: t.nr, previousNr: before.nr, previousSignature: before.signature });
      }
      if (!prev && t.nr !== '1' && !before) {
        report.midChain.push({ registerID: reg.registerID, nr: t.nr });
      } else {
        if (typeof cert === 'string') return fail(t, cert);
        const fingerprint = keyFingerprint(cert.publicKey);
        const data = Buffer.from(danishSignedMessage(prevSignature, t, reg.registerID, file.companyIdent), 'utf8');
        let good = false;
        try {
          good = verifySignature('sha512', data, cert.publicKey, Buffer.from(t.signature, 'base64'));
        } catch {
          good = false;
        }
        if (pinned.length > 0 && !pinned.some((p) => p.fingerprint === fingerprint)) {
          const theirs = good ? '; the signature verifies with that other key: the chain was signed (or re-signed) by another key' : '';
          return fail(t, `signed with another key: its certificateData is the certificate ${cert.serialNumber} (SHA-256 ${cert.fingerprint256}) whose public key has SHA-256 ${fingerprint}, not the --key (${pinnedText})${theirs}`);
        }
        if (!good) return fail(t, `the signature does not verify with the certificate ${cert.serialNumber} of its certificateData (the transaction was changed, the chain is broken, or it was signed with another key)`);
        const known = used.get(fingerprint);
        if (known) known.signatures += 1;
        else {
          const k = { fingerprint, label: `the certificate ${cert.serialNumber} (certificate SHA-256 ${cert.fingerprint256}), its public key`, signatures: 1 };
          used.set(fingerprint, k);
          report.keys.push(k);
        }
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
  const keys = keyLines(r.keys, r.pinned);
  if (!r.ok && r.broken) {
    const b = r.broken;
    return [`BROKEN at register ${b.registerID}, cashtransaction nr ${b.nr} (transID ${b.transID}): ${b.reason}`, ...keys].join('\n');
  }
  const total = r.registers.reduce((n, x) => n + x.verified, 0);
  const count = r.registers.reduce((n, x) => n + x.transactions, 0);
  if (count === 0) return 'OK: the file holds no cashtransaction, there is no signature to verify';
  const lines = r.registers.map((x) => `  register ${x.registerID}: ${x.transactions} cashtransactions (nr ${x.firstNr} to ${x.lastNr}), ${x.verified} signatures checked`);
  const chained = r.chained.map(
    (c) => `  register ${c.registerID}: nr ${c.nr} chained to the signature of nr ${c.previousNr} from ${PREVIOUS_SIGNATURE_FILE} (${c.previousSignature.slice(0, 16)}...: compare it with the previous export's last)`,
  );
  const notes = r.midChain.map((m) => `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; its signature needs the previous file (${PREVIOUS_SIGNATURE_FILE}) and is not checked (as the Danish validator does)`);
  const head =
    total === count
      ? `OK: ${count} cashtransactions in ${r.registers.length} registers, all ${total} checked signatures verify`
      : `OK: ${count} cashtransactions in ${r.registers.length} registers, ${total} of ${count} signatures verified (${total} checked signatures verify; ${count - total} not checked: mid-chain without the previous signature)`;
  return [head, ...lines, ...chained, ...notes, ...keys].join('\n');
}

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The XML of an export zip and its previous-signature.txt, if any. */
async function xmlOfZip(path: string): Promise<{ xml: Buffer; previous?: string } | string> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const xmls: Array<{ name: string; bytes: Buffer }> = [];
    let previous: string | undefined;
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      if (name.toLowerCase().endsWith('.xml')) xmls.push({ name, bytes: await entryBytes(zip, entry) });
      else if (name === PREVIOUS_SIGNATURE_FILE) previous = (await entryBytes(zip, entry)).toString('utf8');
    }
    if (xmls.length !== 1) return xmls.length === 0 ? 'the zip holds no SAF-T Cash Register XML file' : `the zip holds ${xmls.length} XML files; verify one SAF-T file at a time`;
    return { xml: (xmls[0] as { bytes: Buffer }).bytes, ...(previous !== undefined ? { previous } : {}) };
  } finally {
    zip.close();
  }
}

/**
 * Verifies an export zip or a bare Danish SAF-T Cash Register XML file (with previous-signature.txt in the
 * zip or beside it); `keys` are the `--key` PEM files (certificates or public keys) pinning the key.
 */
export async function verifyDanishExport(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  const pinned = readPinnedKeys(options.keys ?? []);
  if (typeof pinned === 'string') return broken(pinned);
  let xml: Buffer;
  let previousText: string | undefined;
  try {
    const bytes = readFileSync(path);
    if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
      const z = await xmlOfZip(path);
      if (typeof z === 'string') return broken(z);
      xml = z.xml;
      previousText = z.previous;
    } else {
      xml = bytes;
      const beside = join(dirname(path), PREVIOUS_SIGNATURE_FILE);
      if (existsSync(beside)) previousText = readFileSync(beside, 'utf8');
    }
  } catch (e) {
    return broken(`${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  let file: DkFile;
  try {
    file = readDanishFile(xml.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    return broken(`not a readable Danish SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const previous = previousText === undefined ? undefined : parsePreviousSignatures(previousText);
  if (typeof previous === 'string') return broken(previous);
  const report = verifyDanishFile(file, { pinned, ...(previous ? { previous } : {}) });
  return { ok: report.ok, text: describeDkReport(report) };
}
