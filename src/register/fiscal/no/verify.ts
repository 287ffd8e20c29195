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
import { type KeyObject, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { decodeXmlBytes } from '../../codec/xml-text.js';
import { type ChainReport, type ChainVerifyOptions, describeChainReport, isCanonicalBase64, verifyChains } from '../saft-cash-register/chain.js';
import { type ExportWithKeys, readExportInput, readExportZipWithKeys } from '../saft-cash-register/export-input.js';
import { keyFingerprint, readPinnedKeys } from '../saft-cash-register/pinned-keys.js';
import { PREVIOUS_SIGNATURE_FILE, parsePreviousSignatures, previousBeside } from '../saft-cash-register/previous-signature.js';
import { readSaftCashRegisters } from '../saft-cash-register/read-registers.js';
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

function isNoSignatureForm(s: string): boolean {
  return SIGNATURE_FORM.test(s) && isCanonicalBase64(s);
}

/** The string a cashtransaction's signature covers. */
export function signedString(prev: string, t: Pick<NoCashTransaction, 'transDate' | 'transTime' | 'nr' | 'transAmntIn' | 'transAmntEx'>): string {
  return [prev, t.transDate, t.transTime, t.nr, t.transAmntIn, t.transAmntEx].join(';');
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

export type NoVerifyReport = ChainReport;

export type NoVerifyOptions = ChainVerifyOptions;

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

export function describeNoReport(r: NoVerifyReport): string {
  return describeChainReport(r, {
    all: (total) => `all ${total} signatures verify`,
    partial: (total, count) => `${total} of ${count} signatures verified (${count - total} not checked: mid-chain without the previous signature)`,
    midChain: (m) =>
      `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; the signature of nr ${m.nr} needs the signature of nr ${BigInt(m.nr) - 1n} from the previous file (${PREVIOUS_SIGNATURE_FILE}) and is not checked here`,
  });
}

type Inputs = ExportWithKeys;

const readZip = (path: string): Promise<Inputs | string> => readExportZipWithKeys(path, KEY_FILE);

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
