/**
 * `efr verify --country no <export.zip | SAF-T Cash Register XML>`: re-verifies the signature chains of
 * a Norwegian SAF-T Cash Register file (namespace urn:StandardAuditFile-Taxation-CashRegister:NO).
 * For every `cashregister`, its `cashtransaction`s sorted by `nr`: the numbers have no gap, the date,
 * time and amounts have the signed form, and `signature` is the RSA-SHA1 (PKCS#1 v1.5) signature of
 * `prev;transDate;transTime;nr;transAmntIn;transAmntEx` under the public key of its `keyVersion` (prev =
 * the previous cashtransaction's signature, `0` for nr 1). When a register's first transaction in the
 * file is not nr 1, its own signature needs the previous file: that is said in the text, it is not a
 * failure, and checking starts with the next one. The keys are `public-key-<keyVersion>.pem` (SPKI PEM)
 * in the zip, or beside a bare XML file. The text names the first broken transaction.
 */
import { type KeyObject, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SaxesParser } from 'saxes';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import type { VerifyOutcome } from '../verifiers.js';

export const NO_NAMESPACE = 'urn:StandardAuditFile-Taxation-CashRegister:NO';

/** The fields of one cashtransaction that its signature covers, as they stand in the file. */
export interface NoCashTransaction {
  nr: string;
  transID: string;
  transDate: string;
  transTime: string;
  transAmntIn: string;
  transAmntEx: string;
  signature: string;
  keyVersion: string;
}

export interface NoRegister {
  registerID: string;
  transactions: NoCashTransaction[];
}

const FIELDS: ReadonlySet<string> = new Set(['nr', 'transID', 'transDate', 'transTime', 'transAmntIn', 'transAmntEx', 'signature', 'keyVersion']);
const KEY_FILE = /^public-key-(.+)\.pem$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^(?:2[0-3]|[01]\d):[0-5]\d:[0-5]\d$/;
const AMOUNT = /^-?\d+\.\d{2}$/;
const NR = /^\d{1,35}$/;

/** The string a cashtransaction's signature covers. */
export function signedString(prev: string, t: Pick<NoCashTransaction, 'transDate' | 'transTime' | 'nr' | 'transAmntIn' | 'transAmntEx'>): string {
  return [prev, t.transDate, t.transTime, t.nr, t.transAmntIn, t.transAmntEx].join(';');
}

function decodeXmlBytes(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const label = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(label).decode(bytes);
  } catch {
    text = bytes.toString('utf8');
  }
  return text.replace(/^\uFEFF/, '');
}

/**
 * Reads the cash registers and their cashtransactions (in document order) from the XML text with
 * saxes; only the direct children of cashtransaction are taken (ctLine has an `nr` of its own).
 * Throws on XML that is not well-formed or not a Norwegian SAF-T Cash Register file.
 */
export function readCashRegisters(text: string): NoRegister[] {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: true });
  const registers = new Map<string, NoRegister>();
  const stack: string[] = [];
  let register: { registerID: string; transactions: NoCashTransaction[] } | undefined;
  let trans: Record<string, string> | undefined;
  let field: string | undefined;
  let fieldText = '';
  let registerIdText: string | undefined;
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (stack.length === 0 && (name !== 'auditfile' || tag.uri !== NO_NAMESPACE)) {
      throw new Error(`the root element is {${tag.uri}}${name}, not {${NO_NAMESPACE}}auditfile`);
    }
    const parent = stack[stack.length - 1];
    stack.push(name);
    if (name === 'cashregister') register = { registerID: '', transactions: [] };
    else if (parent === 'cashregister' && name === 'registerID') registerIdText = '';
    else if (parent === 'cashregister' && name === 'cashtransaction') trans = {};
    else if (parent === 'cashtransaction' && trans && FIELDS.has(name)) {
      field = name;
      fieldText = '';
    }
  });
  const onText = (t: string): void => {
    if (field !== undefined) fieldText += t;
    else if (registerIdText !== undefined) registerIdText += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    stack.pop();
    const name = tag.local;
    if (field !== undefined && name === field) {
      if (trans) trans[field] = fieldText.trim();
      field = undefined;
    } else if (registerIdText !== undefined && name === 'registerID') {
      if (register) register.registerID = registerIdText.trim();
      registerIdText = undefined;
    } else if (name === 'cashtransaction' && trans && register) {
      register.transactions.push({
        nr: trans.nr ?? '',
        transID: trans.transID ?? '',
        transDate: trans.transDate ?? '',
        transTime: trans.transTime ?? '',
        transAmntIn: trans.transAmntIn ?? '',
        transAmntEx: trans.transAmntEx ?? '',
        // base64 carries no meaning in white space; a wrapped signature is the same signature
        signature: (trans.signature ?? '').replace(/\s+/g, ''),
        keyVersion: trans.keyVersion ?? '',
      });
      trans = undefined;
    } else if (name === 'cashregister' && register) {
      // one register may appear under more than one location: its chain is one
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
  return [...registers.values()];
}

interface Broken {
  registerID: string;
  nr: string;
  transID: string;
  reason: string;
}

export interface NoVerifyReport {
  ok: boolean;
  /** per register: transactions in the file, and how many signatures were checked */
  registers: Array<{ registerID: string; transactions: number; verified: number; firstNr: string; lastNr: string }>;
  /** registers whose first transaction in the file is not nr 1 */
  midChain: Array<{ registerID: string; nr: string }>;
  broken?: Broken;
}

/**
 * Verifies the chains of the registers; `keyFor(version)` gives the public key of a keyVersion or a
 * text saying why there is none. Stops at the first broken transaction.
 */
export function verifyRegisters(registers: readonly NoRegister[], keyFor: (version: string) => KeyObject | string): NoVerifyReport {
  const report: NoVerifyReport = { ok: true, registers: [], midChain: [] };
  for (const reg of registers) {
    const entry = { registerID: reg.registerID, transactions: reg.transactions.length, verified: 0, firstNr: '', lastNr: '' };
    report.registers.push(entry);
    const fail = (t: NoCashTransaction, reason: string): NoVerifyReport => {
      report.ok = false;
      report.broken = { registerID: reg.registerID, nr: t.nr, transID: t.transID, reason };
      return report;
    };
    for (const t of reg.transactions) if (!NR.test(t.nr)) return fail(t, `nr "${t.nr}" is not a number`);
    const sorted = [...reg.transactions].sort((a, b) => (BigInt(a.nr) < BigInt(b.nr) ? -1 : BigInt(a.nr) > BigInt(b.nr) ? 1 : 0));
    let prev: NoCashTransaction | undefined;
    for (const t of sorted) {
      const nr = BigInt(t.nr);
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (nr === expected - 1n) return fail(t, `nr ${t.nr} appears twice`);
        if (nr !== expected) {
          const missing = nr - expected === 1n ? `nr ${expected} is missing` : `nr ${expected} to ${nr - 1n} are missing`;
          return fail(t, `gap: nr ${t.nr} follows nr ${prev.nr} (${missing})`);
        }
      }
      if (!t.signature) return fail(t, 'the signature is missing');
      if (!t.keyVersion) return fail(t, 'the keyVersion is missing');
      if (!DATE.test(t.transDate) || Number.isNaN(Date.parse(`${t.transDate}T00:00:00Z`))) return fail(t, `malformed transDate "${t.transDate}" (YYYY-MM-DD)`);
      if (!TIME.test(t.transTime)) return fail(t, `malformed transTime "${t.transTime}" (HH:mm:ss)`);
      if (!AMOUNT.test(t.transAmntIn)) return fail(t, `malformed amount: transAmntIn "${t.transAmntIn}" (a decimal point and exactly 2 decimals)`);
      if (!AMOUNT.test(t.transAmntEx)) return fail(t, `malformed amount: transAmntEx "${t.transAmntEx}" (a decimal point and exactly 2 decimals)`);
      if (!prev && nr !== 1n) {
        // the previous signature is in the previous file: this one cannot be checked, the next ones can
        report.midChain.push({ registerID: reg.registerID, nr: t.nr });
      } else {
        const key = keyFor(t.keyVersion);
        if (typeof key === 'string') return fail(t, `missing key version ${t.keyVersion}: ${key}`);
        const data = Buffer.from(signedString(prev ? prev.signature : '0', t), 'utf8');
        let good = false;
        try {
          good = verifySignature('sha1', data, key, Buffer.from(t.signature, 'base64'));
        } catch {
          good = false;
        }
        if (!good) return fail(t, `the signature does not verify with key version ${t.keyVersion} (the transaction was changed, the chain is broken, or the key is not the one it was signed with)`);
        entry.verified += 1;
      }
      if (!prev) entry.firstNr = t.nr;
      entry.lastNr = t.nr;
      prev = t;
    }
  }
  return report;
}

export function describeNoReport(r: NoVerifyReport): string {
  if (!r.ok && r.broken) {
    const b = r.broken;
    return `BROKEN at register ${b.registerID}, cashtransaction nr ${b.nr} (transID ${b.transID}): ${b.reason}`;
  }
  const total = r.registers.reduce((n, x) => n + x.verified, 0);
  const count = r.registers.reduce((n, x) => n + x.transactions, 0);
  if (count === 0) return 'OK: the file holds no cashtransaction, there is no signature to verify';
  const lines = r.registers.map((x) => `  register ${x.registerID}: ${x.transactions} cashtransactions (nr ${x.firstNr} to ${x.lastNr}), ${x.verified} signatures checked`);
  const notes = r.midChain.map(
    (m) => `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; the signature of nr ${m.nr} needs the signature of nr ${BigInt(m.nr) - 1n} from the previous file and is not checked here`,
  );
  return [`OK: ${count} cashtransactions in ${r.registers.length} registers, all ${total} signatures verify`, ...lines, ...notes].join('\n');
}

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface Inputs {
  xml: Buffer;
  /** the PEM text of a key version */
  pemFor(version: string): string | undefined;
  where: string;
}

async function readZip(path: string): Promise<Inputs | string> {
  const zip = await openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    const xmls: Array<{ name: string; bytes: Buffer }> = [];
    const pems = new Map<string, string>();
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.split('/').pop() ?? '';
      const key = KEY_FILE.exec(name);
      if (name.toLowerCase().endsWith('.xml')) xmls.push({ name, bytes: await entryBytes(zip, entry) });
      else if (key) pems.set(key[1] as string, (await entryBytes(zip, entry)).toString('utf8'));
    }
    if (xmls.length === 0) return 'the zip holds no SAF-T Cash Register XML file';
    if (xmls.length > 1) return `the zip holds ${xmls.length} XML files (${xmls.map((x) => x.name).join(', ')}); verify one SAF-T file at a time`;
    return { xml: (xmls[0] as { bytes: Buffer }).bytes, pemFor: (v) => pems.get(v), where: 'in the zip' };
  } finally {
    zip.close();
  }
}

/** The PEM of a key version from the files beside a bare XML file, read when first asked for. */
function keysBeside(path: string): (version: string) => string | undefined {
  const dir = dirname(path);
  return (version) => {
    const file = join(dir, `public-key-${version}.pem`);
    return /^[A-Za-z0-9._-]+$/.test(version) && existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
}

/** A key-lookup over PEM texts: parses each once, and says why a version has no usable key. */
function keyLookup(pemFor: (version: string) => string | undefined, where: string): (version: string) => KeyObject | string {
  const cache = new Map<string, KeyObject | string>();
  return (version) => {
    const known = cache.get(version);
    if (known !== undefined) return known;
    const pem = pemFor(version);
    let result: KeyObject | string;
    if (pem === undefined) result = `no public-key-${version}.pem ${where}`;
    else {
      try {
        const key = createPublicKey(pem);
        const bits = key.asymmetricKeyDetails?.modulusLength;
        result = key.asymmetricKeyType !== 'rsa' ? `public-key-${version}.pem is not an RSA key` : bits !== 1024 ? `public-key-${version}.pem is RSA-${bits ?? '?'}, not RSA-1024` : key;
      } catch (e) {
        result = `public-key-${version}.pem cannot be read: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    cache.set(version, result);
    return result;
  };
}

/** Verifies an export zip (SAF-T XML + public-key-<v>.pem) or a bare XML with its PEM files beside it. */
export async function verifyExportFile(path: string): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  let inputs: Inputs;
  try {
    const bytes = readFileSync(path);
    if (bytes.subarray(0, 2).toString('latin1') === 'PK') {
      const z = await readZip(path);
      if (typeof z === 'string') return broken(z);
      inputs = z;
    } else {
      inputs = { xml: bytes, pemFor: keysBeside(path), where: `beside ${path}` };
    }
  } catch (e) {
    return broken(`${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  let registers: NoRegister[];
  try {
    registers = readCashRegisters(decodeXmlBytes(inputs.xml));
  } catch (e) {
    return broken(`not a readable Norwegian SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const report = verifyRegisters(registers, keyLookup(inputs.pemFor, inputs.where));
  return { ok: report.ok, text: describeNoReport(report) };
}
