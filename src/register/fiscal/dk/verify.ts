/**
 * `efr verify --country dk <export.zip | SAF-T Cash Register XML>`: re-verifies the signature chains of a
 * Danish SAF-T Cash Register file (namespace urn:StandardAuditFile-Taxation-CashRegister:DK) as the
 * Danish validator does. Per `cashregister`, its `cashtransaction`s in document order: `nr` has no gap,
 * and `signature` is the RSA PKCS#1 v1.5 SHA-512 signature of
 * `prev;nr;transID;transType;transDate;transTime;empID;transAmntIn;transAmntEx;registerID;companyIdent`
 * (the texts as written; registerID of the cashregister, companyIdent of auditfile/company; prev = the
 * previous signature of the register, '0' for nr 1) under the public key of the transaction's own
 * `certificateData` (the signer's certificate; of a chain written there, the end of the chain); the signature must be the exact base64 of as many bytes as the key's modulus. A period
 * export's first transaction is chained to the line `<registerID> <nr> <signature>` of
 * `previous-signature.txt` (the transaction before the period; the first nr must be that nr + 1); without it
 * a register starting mid-chain has its first one unchecked ("N-1 of N signatures verified"). The SHA-256
 * fingerprint of every certificate used is printed, and `--key <certificate or public key PEM>` pins it:
 * a signature by another key is a failure. Names the first broken one.
 */
import { type X509Certificate, verify as verifySignature } from 'node:crypto';
import type { VerifyOutcome } from '../verifiers.js';
import { type ChainReport, type ChainVerifyOptions, describeChainReport, isCanonicalBase64, verifyChains } from '../saft-cash-register/chain.js';
import { readExportInput, readExportZip } from '../saft-cash-register/export-input.js';
import { keyFingerprint, readPinnedKeys } from '../saft-cash-register/pinned-keys.js';
import { PREVIOUS_SIGNATURE_FILE, parsePreviousSignatures, previousBeside } from '../saft-cash-register/previous-signature.js';
import { readSaftCashRegisters } from '../saft-cash-register/read-registers.js';
import { certificateOfData } from './certificate-data.js';

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
  const { companyIdent, registers } = readSaftCashRegisters(text, DK_NAMESPACE, FIELDS);
  return {
    companyIdent,
    registers: registers.map((reg) => ({
      registerID: reg.registerID,
      transactions: reg.transactions.map((raw) => {
        const t = (k: string): string => (raw[k] ?? '').trim();
        return {
          nr: t('nr'), transID: t('transID'), transType: t('transType'), transDate: t('transDate'), transTime: t('transTime'), empID: t('empID'),
          transAmntIn: t('transAmntIn'), transAmntEx: t('transAmntEx'),
          // as the validator: line breaks removed, stripped
          signature: t('signature').replace(/\n/g, '').trim(),
          certificateData: raw.certificateData ?? '',
        };
      }),
    })),
  };
}

export type DkVerifyReport = ChainReport;
export type DkVerifyOptions = ChainVerifyOptions;

/** True when `s` is the exact base64 of a signature of an RSA key of `bits`. */
function isSignatureForm(s: string, bits: number | undefined): boolean {
  return bits !== undefined && isCanonicalBase64(s) && Buffer.from(s, 'base64').length * 8 === bits;
}

/** The signer's certificate of a certificateData (certificate-data.ts), or why not; read once per text. */
function certificateOf(data: string, cache: Map<string, X509Certificate | string>): X509Certificate | string {
  const known = cache.get(data);
  if (known !== undefined) return known;
  const result = certificateOfData(data);
  cache.set(data, result);
  return result;
}

/** Verifies the chains of a file's registers; stops at the first broken transaction. */
export function verifyDanishFile(file: DkFile, options: DkVerifyOptions = {}): DkVerifyReport {
  const pinned = options.pinned ?? [];
  const certs = new Map<string, X509Certificate | string>();
  const pinnedText = pinned.map((p) => p.fingerprint).join(' or ');
  const cert = (t: DkCashTransaction): X509Certificate | string => certificateOf(t.certificateData, certs);
  const bitsOf = (c: X509Certificate | string): number | undefined => (typeof c === 'string' ? undefined : c.publicKey.asymmetricKeyDetails?.modulusLength);
  const formText = (bits: number | undefined): string => `the exact base64 of a ${bits === undefined ? '?' : bits / 8}-byte signature (the modulus of the certificate's RSA key)`;
  return verifyChains<DkCashTransaction>(file.registers, {
    check: (t, prev) => {
      if (!NR.test(t.nr)) return `nr "${t.nr}" is not a number`;
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (BigInt(t.nr) !== expected) return `gap: nr ${t.nr} follows nr ${prev.nr} (expected nr ${expected})`;
      }
      if (!t.signature) return 'the signature is missing';
      const c = cert(t);
      if (typeof c !== 'string') {
        if (c.publicKey.asymmetricKeyType !== 'rsa') return `the certificate ${c.serialNumber} of its certificateData has no RSA key`;
        if (!isSignatureForm(t.signature, bitsOf(c))) return `the signature is not ${formText(bitsOf(c))}`;
      }
      return undefined;
    },
    previousForm: (t, before) => {
      const c = cert(t);
      return typeof c !== 'string' && !isSignatureForm(before.signature, bitsOf(c)) ? `the signature of nr ${before.nr} in ${PREVIOUS_SIGNATURE_FILE} is not ${formText(bitsOf(c))}` : undefined;
    },
    startsChain: (t) => t.nr === '1',
    verify: (t, prevSignature, registerID, use) => {
      const c = cert(t);
      if (typeof c === 'string') return c;
      const fingerprint = keyFingerprint(c.publicKey);
      const data = Buffer.from(danishSignedMessage(prevSignature, t, registerID, file.companyIdent), 'utf8');
      let good = false;
      try {
        good = verifySignature('sha512', data, c.publicKey, Buffer.from(t.signature, 'base64'));
      } catch {
        good = false;
      }
      if (pinned.length > 0 && !pinned.some((p) => p.fingerprint === fingerprint)) {
        const theirs = good ? '; the signature verifies with that other key: the chain was signed (or re-signed) by another key' : '';
        return `signed with another key: its certificateData is the certificate ${c.serialNumber} (SHA-256 ${c.fingerprint256}) whose public key has SHA-256 ${fingerprint}, not the --key (${pinnedText})${theirs}`;
      }
      if (!good) return `the signature does not verify with the certificate ${c.serialNumber} of its certificateData (the transaction was changed, the chain is broken, or it was signed with another key)`;
      use(c.publicKey, `the certificate ${c.serialNumber} (certificate SHA-256 ${c.fingerprint256}), its public key`);
      return undefined;
    },
  }, options);
}

export function describeDkReport(r: DkVerifyReport): string {
  return describeChainReport(r, {
    all: (total) => `all ${total} checked signatures verify`,
    partial: (total, count) => `${total} of ${count} signatures verified (${total} checked signatures verify; ${count - total} not checked: mid-chain without the previous signature)`,
    midChain: (m) =>
      `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; its signature needs the previous file (${PREVIOUS_SIGNATURE_FILE}) and is not checked (as the Danish validator does)`,
  });
}

/**
 * Verifies an export zip or a bare Danish SAF-T Cash Register XML file (with previous-signature.txt in the
 * zip or beside it); `keys` are the `--key` PEM files (certificates or public keys) pinning the key.
 */
export async function verifyDanishExport(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  const pinned = readPinnedKeys(options.keys ?? []);
  if (typeof pinned === 'string') return broken(pinned);
  const input = await readExportInput(path, (zip) => readExportZip(zip), (bytes) => {
    const previous = previousBeside(path);
    return { xml: bytes, ...(previous !== undefined ? { previous } : {}) };
  });
  if (typeof input === 'string') return broken(input);
  let file: DkFile;
  try {
    file = readDanishFile(input.xml.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    return broken(`not a readable Danish SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const previous = input.previous === undefined ? undefined : parsePreviousSignatures(input.previous);
  if (typeof previous === 'string') return broken(previous);
  const report = verifyDanishFile(file, { pinned, ...(previous ? { previous } : {}) });
  return { ok: report.ok, text: describeDkReport(report) };
}
