/**
 * `efr verify --country no [--key <pem>]... <export.zip | SAF-T Cash Register XML>`: re-verifies the
 * signature chains of a Norwegian SAF-T Cash Register file (namespace
 * urn:StandardAuditFile-Taxation-CashRegister:NO). For every `cashregister`, its `cashtransaction`s
 * sorted by `nr`: the numbers have no gap, the date, time and amounts have the signed form, `signature`
 * is the exact base64 of an RSA-1024 signature (172 characters, one `=`), and it is the RSA-SHA1
 * (PKCS#1 v1.5) signature of `prev;transDate;transTime;nr;transAmntIn;transAmntEx` under the public key
 * of its `keyVersion` (prev = the previous cashtransaction's signature, `0` for nr 1).
 * A period export's first transaction is chained to the line `<registerID> <nr> <signature>` of
 * `previous-signature.txt` (the transaction before the period; the first nr must be that nr + 1); without
 * it the first one cannot be checked: said in the text ("N-1 of N signatures verified"), not a failure.
 * The keys are `public-key-<keyVersion>.pem` (SPKI PEM) in the zip, or beside a bare XML file; the SHA-256
 * fingerprint of each key used is always printed, for the auditor to compare with the declared key, and
 * `--key <pem>` pins it: a signature by any other key is a failure. The text names the first broken one.
 */
import { type KeyObject, X509Certificate, createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SaxesParser } from 'saxes';
import { type Entry, type ZipFile, openPromise } from 'yauzl';
import { decodeXmlBytes } from '../../codec/xml-text.js';
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
/** the exact base64 of a 128-byte (RSA-1024) signature */
const SIGNATURE_FORM = /^[A-Za-z0-9+/]{171}=$/;
export const PREVIOUS_SIGNATURE_FILE = 'previous-signature.txt';

/** The SHA-256 of a public key's DER SubjectPublicKeyInfo, as colon-separated upper-case hex
 * (`openssl pkey -pubin -in key.pem -outform DER | openssl dgst -sha256 -c` gives it in lower case). */
export function keyFingerprint(key: KeyObject): string {
  const hex = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').toUpperCase();
  return hex.replace(/(..)(?!$)/g, '$1:');
}

/** A key pinned with `--key`: the declared public key, and where it came from. */
export interface PinnedKey {
  key: KeyObject;
  fingerprint: string;
  label: string;
}

/** Reads a `--key` file: an SPKI (or PKCS#1) public key PEM or a certificate PEM; a text saying why not. */
export function readPinnedKey(path: string): PinnedKey | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return `--key ${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`;
  }
  try {
    const key = text.includes('-----BEGIN CERTIFICATE-----') ? new X509Certificate(text).publicKey : createPublicKey(text);
    return { key, fingerprint: keyFingerprint(key), label: `--key ${path}` };
  } catch (e) {
    return `--key ${path} is not a public key or certificate PEM: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** The previous signature of a register's period: the transaction before the period's first. */
export interface PreviousSignature {
  nr: string;
  signature: string;
}

/**
 * Reads `previous-signature.txt`: one line `<registerID> <nr> <signature>` per register (the register id
 * is all before the last two fields); empty lines are skipped. A text saying what is wrong otherwise.
 */
export function parsePreviousSignatures(text: string): Map<string, PreviousSignature> | string {
  const map = new Map<string, PreviousSignature>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^(.+?)\s+(\d{1,36})\s+(\S+)$/.exec(line);
    if (!m) return `${PREVIOUS_SIGNATURE_FILE} line ${i + 1} is not "<registerID> <nr> <signature>"`;
    const registerID = m[1] as string;
    if (map.has(registerID)) return `${PREVIOUS_SIGNATURE_FILE} names register ${registerID} twice`;
    map.set(registerID, { nr: m[2] as string, signature: m[3] as string });
  }
  return map;
}

/** True when `s` is canonical base64 (what re-encoding its bytes gives back). */
export function isCanonicalBase64(s: string): boolean {
  return s.length > 0 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s) && Buffer.from(s, 'base64').toString('base64') === s;
}

function isNoSignatureForm(s: string): boolean {
  return SIGNATURE_FORM.test(s) && isCanonicalBase64(s);
}

/** The string a cashtransaction's signature covers. */
export function signedString(prev: string, t: Pick<NoCashTransaction, 'transDate' | 'transTime' | 'nr' | 'transAmntIn' | 'transAmntEx'>): string {
  return [prev, t.transDate, t.transTime, t.nr, t.transAmntIn, t.transAmntEx].join(';');
}

/** The texts of one register's cashtransactions, as read: field name -> text (untrimmed). */
export interface RawRegister {
  registerID: string;
  transactions: Array<Record<string, string>>;
}

/**
 * Reads company/companyIdent and the cash registers with the direct children `fields` of their
 * cashtransactions (document order; ctLine has an `nr` of its own) from SAF-T Cash Register XML text with
 * saxes. A register under more than one location is one (its chain is one). Throws on XML that is not
 * well-formed or whose root is not `{namespace}auditfile`.
 */
export function readSaftCashRegisters(text: string, namespace: string, fields: ReadonlySet<string>): { companyIdent: string; registers: RawRegister[] } {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: true });
  const registers = new Map<string, RawRegister>();
  const stack: string[] = [];
  let companyIdent = '';
  let register: RawRegister | undefined;
  let trans: Record<string, string> | undefined;
  let field: string | undefined;
  let fieldText = '';
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (stack.length === 0 && (name !== 'auditfile' || tag.uri !== namespace)) {
      throw new Error(`the root element is {${tag.uri}}${name}, not {${namespace}}auditfile`);
    }
    const parent = stack[stack.length - 1];
    const path = stack.join('/');
    stack.push(name);
    if (name === 'cashregister') register = { registerID: '', transactions: [] };
    else if ((parent === 'cashregister' && name === 'registerID') || (path === 'auditfile/company' && name === 'companyIdent')) {
      field = name;
      fieldText = '';
    } else if (parent === 'cashregister' && name === 'cashtransaction') trans = {};
    else if (parent === 'cashtransaction' && trans && fields.has(name)) {
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
      else if (trans) trans[field] = fieldText;
      field = undefined;
    } else if (name === 'cashtransaction' && trans && register) {
      register.transactions.push(trans);
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
  return { companyIdent, registers: [...registers.values()] };
}

/**
 * Reads the cash registers and their cashtransactions (in document order) from the XML text.
 * Throws on XML that is not well-formed or not a Norwegian SAF-T Cash Register file.
 */
export function readCashRegisters(text: string): NoRegister[] {
  return readSaftCashRegisters(text, NO_NAMESPACE, FIELDS).registers.map((reg) => ({
    registerID: reg.registerID,
    transactions: reg.transactions.map((raw) => {
      const t = (k: string): string => (raw[k] ?? '').trim();
      return {
        nr: t('nr'), transID: t('transID'), transDate: t('transDate'), transTime: t('transTime'), transAmntIn: t('transAmntIn'), transAmntEx: t('transAmntEx'),
        // base64 carries no meaning in white space; a wrapped signature is the same signature
        signature: t('signature').replace(/\s+/g, ''),
        keyVersion: t('keyVersion'),
      };
    }),
  }));
}

interface Broken {
  registerID: string;
  nr: string;
  transID: string;
  reason: string;
}

/** A key that verified signatures: its fingerprint, where it came from, how many it verified. */
export interface KeyUse {
  fingerprint: string;
  label: string;
  signatures: number;
}

/** What a chain verification found (every country's). */
export interface ChainReport {
  ok: boolean;
  /** per register: transactions in the file, and how many signatures were checked */
  registers: Array<{ registerID: string; transactions: number; verified: number; firstNr: string; lastNr: string }>;
  /** registers whose first transaction in the file is not nr 1 and has no previous signature: not checked */
  midChain: Array<{ registerID: string; nr: string }>;
  /** registers whose first transaction was chained to previous-signature.txt */
  chained: Array<{ registerID: string; nr: string; previousNr: string; previousSignature: string }>;
  /** every key a signature was verified with (or found made with), by fingerprint */
  keys: KeyUse[];
  /** the `--key` keys, when given */
  pinned: PinnedKey[];
  broken?: Broken;
}

export type NoVerifyReport = ChainReport;

export interface ChainVerifyOptions {
  /** `--key`: only these public keys may have made the signatures */
  pinned?: readonly PinnedKey[];
  /** previous-signature.txt, by register id */
  previous?: ReadonlyMap<string, PreviousSignature>;
}

export type NoVerifyOptions = ChainVerifyOptions;

/** What every chained cashtransaction has. */
export interface ChainTransaction {
  nr: string;
  transID: string;
  signature: string;
}

/** A country's rules for its chains (what verifyChains leaves to it); a hook returns the reason a transaction is broken, if it is. */
export interface ChainRules<T extends ChainTransaction> {
  /** the transactions in chain order (default: as in the file), or the first one that cannot be ordered */
  order?(transactions: readonly T[]): T[] | { t: T; reason: string };
  /** the checks before the signature (number, gap, forms) */
  check(t: T, prev: T | undefined): string | undefined;
  /** the form of the signature previous-signature.txt gives for the transaction before the first */
  previousForm(t: T, before: PreviousSignature): string | undefined;
  /** true when `t` is the first of its register's chain (signed over '0') */
  startsChain(t: T): boolean;
  /** the signature of `t` over `prevSignature`; `use` names the key that verified it */
  verify(t: T, prevSignature: string, registerID: string, use: (key: KeyObject, label: string) => void): string | undefined;
}

/**
 * Verifies the chains of the registers by a country's rules: per register, the transactions in chain
 * order, the first chained to previous-signature.txt when given (else, not nr 1, mid-chain: not checked).
 * Stops at the first broken transaction.
 */
export function verifyChains<T extends ChainTransaction>(
  registers: ReadonlyArray<{ registerID: string; transactions: readonly T[] }>, rules: ChainRules<T>, options: ChainVerifyOptions = {},
): ChainReport {
  const pinned = options.pinned ?? [];
  const report: ChainReport = { ok: true, registers: [], midChain: [], chained: [], keys: [], pinned: [...pinned] };
  const used = new Map<string, KeyUse>();
  const use = (key: KeyObject, label: string): void => {
    const fingerprint = keyFingerprint(key);
    const known = used.get(fingerprint);
    if (known) known.signatures += 1;
    else {
      const k = { fingerprint, label, signatures: 1 };
      used.set(fingerprint, k);
      report.keys.push(k);
    }
  };
  for (const reg of registers) {
    const entry = { registerID: reg.registerID, transactions: reg.transactions.length, verified: 0, firstNr: '', lastNr: '' };
    report.registers.push(entry);
    const fail = (t: T, reason: string): ChainReport => {
      report.ok = false;
      report.broken = { registerID: reg.registerID, nr: t.nr, transID: t.transID, reason };
      return report;
    };
    const ordered = rules.order ? rules.order(reg.transactions) : reg.transactions;
    if (!Array.isArray(ordered)) {
      const bad = ordered as { t: T; reason: string };
      return fail(bad.t, bad.reason);
    }
    const before = options.previous?.get(reg.registerID);
    let prev: T | undefined;
    for (const t of ordered as readonly T[]) {
      const broken = rules.check(t, prev);
      if (broken !== undefined) return fail(t, broken);
      let prevSignature = prev ? prev.signature : '0';
      if (!prev && before) {
        if (BigInt(t.nr) !== BigInt(before.nr) + 1n) {
          return fail(t, `${PREVIOUS_SIGNATURE_FILE} gives nr ${before.nr} as the transaction before the period, so the first one must be nr ${BigInt(before.nr) + 1n}, not nr ${t.nr}`);
        }
        const form = rules.previousForm(t, before);
        if (form !== undefined) return fail(t, form);
        prevSignature = before.signature;
        report.chained.push({ registerID: reg.registerID, nr: t.nr, previousNr: before.nr, previousSignature: before.signature });
      }
      if (!prev && !rules.startsChain(t) && !before) {
        // the previous signature is in the previous file: this one cannot be checked, the next ones can
        report.midChain.push({ registerID: reg.registerID, nr: t.nr });
      } else {
        const bad = rules.verify(t, prevSignature, reg.registerID, use);
        if (bad !== undefined) return fail(t, bad);
        entry.verified += 1;
      }
      if (!prev) entry.firstNr = t.nr;
      entry.lastNr = t.nr;
      prev = t;
    }
  }
  return report;
}

function verifies(data: Buffer, key: KeyObject, signature: string): boolean {
  try {
    return verifySignature('sha1', data, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/**
 * Verifies the chains of the registers; `keyFor(version)` gives the public key of a keyVersion or a
 * text saying why there is none. With `pinned`, a key version's key must be one of them (a chain re-signed
 * with another key and that key put in the export is named at its first transaction). Stops at the first
 * broken transaction.
 */
export function verifyRegisters(registers: readonly NoRegister[], keyFor: (version: string) => KeyObject | string, options: NoVerifyOptions = {}): NoVerifyReport {
  const pinned = options.pinned ?? [];
  const pinnedText = pinned.map((p) => p.fingerprint).join(' or ');
  return verifyChains<NoCashTransaction>(registers, {
    order: (transactions) => {
      for (const t of transactions) if (!NR.test(t.nr)) return { t, reason: `nr "${t.nr}" is not a number` };
      return [...transactions].sort((a, b) => (BigInt(a.nr) < BigInt(b.nr) ? -1 : BigInt(a.nr) > BigInt(b.nr) ? 1 : 0));
    },
    check: (t, prev) => {
      const nr = BigInt(t.nr);
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (nr === expected - 1n) return `nr ${t.nr} appears twice`;
        if (nr !== expected) {
          const missing = nr - expected === 1n ? `nr ${expected} is missing` : `nr ${expected} to ${nr - 1n} are missing`;
          return `gap: nr ${t.nr} follows nr ${prev.nr} (${missing})`;
        }
      }
      if (!t.signature) return 'the signature is missing';
      if (!isNoSignatureForm(t.signature)) {
        return `the signature is not the exact base64 of an RSA-1024 signature (172 characters, the last one "="; this one has ${t.signature.length})`;
      }
      if (!t.keyVersion) return 'the keyVersion is missing';
      if (!DATE.test(t.transDate) || Number.isNaN(Date.parse(`${t.transDate}T00:00:00Z`))) return `malformed transDate "${t.transDate}" (YYYY-MM-DD)`;
      if (!TIME.test(t.transTime)) return `malformed transTime "${t.transTime}" (HH:mm:ss)`;
      if (!AMOUNT.test(t.transAmntIn)) return `malformed amount: transAmntIn "${t.transAmntIn}" (a decimal point and exactly 2 decimals)`;
      if (!AMOUNT.test(t.transAmntEx)) return `malformed amount: transAmntEx "${t.transAmntEx}" (a decimal point and exactly 2 decimals)`;
      return undefined;
    },
    previousForm: (_t, before) =>
      isNoSignatureForm(before.signature) ? undefined : `the signature of nr ${before.nr} in ${PREVIOUS_SIGNATURE_FILE} is not the exact base64 of an RSA-1024 signature`,
    startsChain: (t) => BigInt(t.nr) === 1n,
    verify: (t, prevSignature, _registerID, use) => {
      const data = Buffer.from(signedString(prevSignature, t), 'utf8');
      const key = keyFor(t.keyVersion);
      if (pinned.length === 0) {
        if (typeof key === 'string') return `missing key version ${t.keyVersion}: ${key}`;
        if (!verifies(data, key, t.signature)) {
          return `the signature does not verify with key version ${t.keyVersion} (the transaction was changed, the chain is broken, or the key is not the one it was signed with)`;
        }
        use(key, `key version ${t.keyVersion} (public-key-${t.keyVersion}.pem of the export)`);
        return undefined;
      }
      if (typeof key !== 'string' && !pinned.some((p) => p.fingerprint === keyFingerprint(key))) {
        const theirs = verifies(data, key, t.signature) ? '; the signature verifies with that other key: the chain was signed (or re-signed) by another key' : '';
        return `signed with another key: key version ${t.keyVersion} of the export has SHA-256 ${keyFingerprint(key)}, not the --key (${pinnedText})${theirs}`;
      }
      const by = pinned.find((p) => verifies(data, p.key, t.signature));
      if (!by) return `the signature does not verify with the --key (${pinnedText}): the transaction was changed, the chain is broken, or another key signed it`;
      use(by.key, `key version ${t.keyVersion}, the ${by.label}`);
      return undefined;
    },
  }, options);
}

/** The lines naming the keys: each key used with its SHA-256 fingerprint, and the --key ones. */
export function keyLines(keys: readonly KeyUse[], pinned: readonly PinnedKey[]): string[] {
  const lines = keys.map((k) => `  key: ${k.label}, SHA-256 ${k.fingerprint}, ${k.signatures} signatures`);
  for (const p of pinned) lines.push(`  pinned: ${p.label}, SHA-256 ${p.fingerprint}`);
  if (pinned.length === 0 && keys.length > 0) {
    lines.push('  note: the keys come from the export itself: compare their fingerprints with the declared public key (or give it with --key <pem>)');
  }
  return lines;
}

/** What a country's report text says in its own words. */
export interface ChainReportTexts {
  /** the head's end when every signature in the file was checked */
  all(total: number): string;
  /** the head's end when some were not (mid-chain) */
  partial(total: number, count: number): string;
  /** the note on a register starting mid-chain */
  midChain(m: ChainReport['midChain'][number]): string;
}

/** The text of a chain report: OK with per register counts, chained and mid-chain notes, or BROKEN at the first broken one; and the keys. */
export function describeChainReport(r: ChainReport, texts: ChainReportTexts): string {
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
  const notes = r.midChain.map(texts.midChain);
  const head = `OK: ${count} cashtransactions in ${r.registers.length} registers, ${total === count ? texts.all(total) : texts.partial(total, count)}`;
  return [head, ...lines, ...chained, ...notes, ...keys].join('\n');
}

export function describeNoReport(r: NoVerifyReport): string {
  return describeChainReport(r, {
    all: (total) => `all ${total} signatures verify`,
    partial: (total, count) => `${total} of ${count} signatures verified (${count - total} not checked: mid-chain without the previous signature)`,
    midChain: (m) =>
      `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; the signature of nr ${m.nr} needs the signature of nr ${BigInt(m.nr) - 1n} from the previous file (${PREVIOUS_SIGNATURE_FILE}) and is not checked here`,
  });
}

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

interface Inputs extends ExportFiles {
  /** the PEM text of a key version */
  pemFor(version: string): string | undefined;
  where: string;
}

async function readZip(path: string): Promise<Inputs | string> {
  const pems = new Map<string, string>();
  const files = await readExportZip(path, async (name, read) => {
    const key = KEY_FILE.exec(name);
    if (key) pems.set(key[1] as string, (await read()).toString('utf8'));
  }, true);
  return typeof files === 'string' ? files : { ...files, pemFor: (v) => pems.get(v), where: 'in the zip' };
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

/** The text of a previous-signature.txt beside a bare XML file, if there is one. */
export function previousBeside(path: string): string | undefined {
  const file = join(dirname(path), PREVIOUS_SIGNATURE_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The `--key` files as pinned keys (RSA of `bits` when given), or a text saying why one is unusable. */
export function readPinnedKeys(paths: readonly string[], bits?: number): PinnedKey[] | string {
  const keys: PinnedKey[] = [];
  for (const path of paths) {
    const k = readPinnedKey(path);
    if (typeof k === 'string') return k;
    if (k.key.asymmetricKeyType !== 'rsa') return `--key ${path} is not an RSA key`;
    const size = k.key.asymmetricKeyDetails?.modulusLength;
    if (bits !== undefined && size !== bits) return `--key ${path} is RSA-${size ?? '?'}, not RSA-${bits}`;
    keys.push(k);
  }
  return keys;
}

/**
 * Verifies an export zip (SAF-T XML + public-key-<v>.pem + previous-signature.txt) or a bare XML with
 * those files beside it; `keys` are the `--key` PEM files pinning the public key.
 */
export async function verifyExportFile(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  const pinned = readPinnedKeys(options.keys ?? [], 1024);
  if (typeof pinned === 'string') return broken(pinned);
  const inputs = await readExportInput<Inputs>(path, readZip, (bytes) => {
    const previous = previousBeside(path);
    return { xml: bytes, pemFor: keysBeside(path), where: `beside ${path}`, ...(previous !== undefined ? { previous } : {}) };
  });
  if (typeof inputs === 'string') return broken(inputs);
  let registers: NoRegister[];
  try {
    registers = readCashRegisters(decodeXmlBytes(inputs.xml));
  } catch (e) {
    return broken(`not a readable Norwegian SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const previous = inputs.previous === undefined ? undefined : parsePreviousSignatures(inputs.previous);
  if (typeof previous === 'string') return broken(previous);
  const report = verifyRegisters(registers, keyLookup(inputs.pemFor, inputs.where), { pinned, ...(previous ? { previous } : {}) });
  return { ok: report.ok, text: describeNoReport(report) };
}
