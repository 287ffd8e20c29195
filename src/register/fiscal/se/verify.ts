/**
 * `efr verify --country se [--key <pem>]... <export.zip | SAF-T Cash Register XML>`: re-verifies the control
 * unit's signatures of a Swedish export (saft-xml.ts) with the control unit's public key. Per
 * `cashregister`, its `cashtransaction`s sorted by `nr`: the numbers have no gap, `signature` is the exact
 * base64 of a 64-byte ECDSA P-256 signature (r‖s), and it verifies (SHA-256) over the control data
 * rebuilt from the file (control-data.ts: the previous signature, companyIdent, registerID, transDate,
 * transTime, nr, `ovning` when trainingID is true else `normal`, transAmntIn, transAmntEx and the
 * transaction's VAT blocks) under the key of its `keyVersion` (the control unit's manufacturing number:
 * `control-unit-<id>.pem` in the zip or beside a bare XML file). Every copy (COPYREC event) is checked too:
 * its text names the control unit and the copy's signature, which verifies over the control data of type
 * `kopia` chained to its original, found in the file by the number the text names (a copy of a receipt
 * before the file's first is noted, not checked), with the copy event's date and time; a receipt copied more
 * than once is a failure. A period's first receipt is chained to `previous-signature.txt`. The SHA-256
 * fingerprint of every key used is printed; `--key` pins it. Names the first broken receipt or copy.
 */
import { type KeyObject, createPublicKey, verify as verifySignature } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { decodeXmlBytes } from '../../codec/xml-text.js';
import { type ChainReport, type ChainVerifyOptions, describeChainReport, isCanonicalBase64, verifyChains } from '../saft-cash-register/chain.js';
import { type ExportWithKeys, readExportInput, readExportZipWithKeys } from '../saft-cash-register/export-input.js';
import { type PinnedKey, keyFingerprint, readPinnedKey } from '../saft-cash-register/pinned-keys.js';
import { PREVIOUS_SIGNATURE_FILE, parsePreviousSignatures, previousBeside } from '../saft-cash-register/previous-signature.js';
import type { VerifyOutcome } from '../verifiers.js';
import { type ReceiptType, controlData } from './control-data.js';
import { isSoftwareUnitId, softwareUnitId } from './control-unit.js';
import { type SeCashTransaction, type SeFile, readSwedishFile } from './read-file.js';
import { COPY_TEXT, SAFT_SE_NAMESPACE } from './saft-xml.js';

const KEY_FILE = /^control-unit-(.+)\.pem$/;
const NR = /^\d{1,35}$/;
const COPY = new RegExp(`^${COPY_TEXT} (\\d{1,35}); kontrollenhet (\\S+); signatur (\\S+)$`);

/** The exact base64 of a 64-byte signature (P-256 r‖s). */
function isSignatureForm(s: string): boolean {
  return s.length === 88 && isCanonicalBase64(s) && Buffer.from(s, 'base64').length === 64;
}

function verifies(data: Buffer, key: KeyObject, signature: string): boolean {
  try {
    return verifySignature('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The control data a receipt of the file was signed over. */
export function receiptData(prev: string, t: SeCashTransaction, registerID: string, companyIdent: string, type?: ReceiptType, when?: { date: string; time: string }): string {
  return controlData({
    prev, orgNr: companyIdent, registerId: registerID, date: when?.date ?? t.transDate, time: when?.time ?? t.transTime, nr: t.nr,
    type: type ?? (t.trainingID === 'true' ? 'ovning' : 'normal'), amntIn: t.transAmntIn, amntEx: t.transAmntEx, vat: t.vat.join(','),
  });
}

export interface SeVerifyReport extends ChainReport {
  /** copies whose signature verified */
  copies: number;
  /** copies whose original is not in the file: not checked */
  copiesUnchecked: string[];
}

/** Checks one signature with the unit's key (and the --key pins); the reason when it does not verify. */
type Check = (data: string, signature: string, unitId: string, use: (key: KeyObject, label: string) => void) => string | undefined;

function checker(keyFor: (id: string) => KeyObject | string, pinned: readonly PinnedKey[]): Check {
  const pinnedText = pinned.map((p) => p.fingerprint).join(' or ');
  return (text, signature, unitId, use) => {
    const data = Buffer.from(text, 'utf8');
    const key = keyFor(unitId);
    if (pinned.length === 0) {
      if (typeof key === 'string') return `no key for control unit ${unitId}: ${key}`;
      if (!verifies(data, key, signature)) return `the signature does not verify with the key of control unit ${unitId} (the receipt was changed, the chain is broken, or another key signed it)`;
      use(key, `control unit ${unitId} (control-unit-${unitId}.pem)`);
      return undefined;
    }
    if (typeof key !== 'string' && !pinned.some((p) => p.fingerprint === keyFingerprint(key))) {
      return `signed with another key: control unit ${unitId} of the export has SHA-256 ${keyFingerprint(key)}, not the --key (${pinnedText})`;
    }
    const by = pinned.find((p) => verifies(data, p.key, signature));
    if (!by) return `the signature does not verify with the --key (${pinnedText}): the receipt was changed, the chain is broken, or another key signed it`;
    use(by.key, `control unit ${unitId}, the ${by.label}`);
    return undefined;
  };
}

/** Verifies the receipts' chains, then every copy; stops at the first broken one. */
export function verifySwedishFile(file: SeFile, keyFor: (id: string) => KeyObject | string, options: ChainVerifyOptions = {}): SeVerifyReport {
  const check = checker(keyFor, options.pinned ?? []);
  const chains = verifyChains<SeCashTransaction>(file.registers, {
    order: (transactions) => {
      for (const t of transactions) if (!NR.test(t.nr)) return { t, reason: `nr "${t.nr}" is not a number` };
      return [...transactions].sort((a, b) => (BigInt(a.nr) < BigInt(b.nr) ? -1 : BigInt(a.nr) > BigInt(b.nr) ? 1 : 0));
    },
    check: (t, prev) => {
      if (prev) {
        const expected = BigInt(prev.nr) + 1n;
        if (BigInt(t.nr) !== expected) return `gap: nr ${t.nr} follows nr ${prev.nr} (expected nr ${expected})`;
      }
      if (!t.signature) return 'the signature is missing';
      if (!isSignatureForm(t.signature)) return 'the signature is not the exact base64 of a 64-byte ECDSA P-256 signature';
      if (!t.keyVersion) return 'the keyVersion (the control unit) is missing';
      return undefined;
    },
    previousForm: (_t, before) => (isSignatureForm(before.signature) ? undefined : `the signature of nr ${before.nr} in ${PREVIOUS_SIGNATURE_FILE} is not the base64 of a 64-byte signature`),
    startsChain: (t) => BigInt(t.nr) === 1n,
    verify: (t, prevSignature, registerID, use) => check(receiptData(prevSignature, t, registerID, file.companyIdent), t.signature, t.keyVersion, use),
  }, options);
  const report: SeVerifyReport = { ...chains, copies: 0, copiesUnchecked: [] };
  if (!report.ok) return report;
  const use = (key: KeyObject, label: string): void => {
    const fingerprint = keyFingerprint(key);
    const known = report.keys.find((k) => k.fingerprint === fingerprint);
    if (known) known.signatures += 1;
    else report.keys.push({ fingerprint, label, signatures: 1 });
  };
  for (const reg of file.registers) {
    const byId = new Map(reg.transactions.map((t) => [t.transID, t]));
    const byNr = new Map(reg.transactions.map((t) => [t.nr, t]));
    // the chain is whole from here on: a copy of a receipt from here on has its original in the file
    const first = reg.transactions.reduce<bigint | undefined>((low, t) => (low === undefined || BigInt(t.nr) < low ? BigInt(t.nr) : low), undefined);
    const copied = new Set<string>();
    for (const c of reg.copies) {
      const fail = (reason: string): SeVerifyReport => {
        report.ok = false;
        report.broken = { registerID: reg.registerID, nr: c.eventText.match(/nr (\d+)/)?.[1] ?? '?', transID: c.transID, reason: `copy (event ${c.eventID}): ${reason}` };
        return report;
      };
      const m = COPY.exec(c.eventText.trim());
      if (!m) return fail(`its text is not "${COPY_TEXT} <nr>; kontrollenhet <id>; signatur <signature>"`);
      const [, nr, unitId, signature] = m as unknown as [string, string, string, string];
      // found by the number its text names, which its signature covers: the transID only has to agree
      const original = byNr.get(nr);
      const named = c.transID ? byId.get(c.transID) : undefined;
      if (named && named !== original) return fail(`its text names nr ${nr}, but its transID ${c.transID} is nr ${named.nr}`);
      if (c.transID && original && !named) return fail(`its transID ${c.transID} is no receipt of the file (receipt nr ${nr} is transID ${original.transID})`);
      if (!original) {
        if (first !== undefined && BigInt(nr) >= first) return fail(`it names receipt nr ${nr}, which is not in the file though its receipts run on from nr ${first} without a gap`);
        report.copiesUnchecked.push(`register ${reg.registerID}: the copy of nr ${nr} (event ${c.eventID}) names a receipt before this file`);
        continue;
      }
      if (copied.has(nr)) return fail(`receipt nr ${nr} was copied more than once (one copy per receipt)`);
      copied.add(nr);
      if (!isSignatureForm(signature)) return fail('the signature is not the exact base64 of a 64-byte ECDSA P-256 signature');
      const bad = check(receiptData(original.signature, original, reg.registerID, file.companyIdent, 'kopia', { date: c.eventDate, time: c.eventTime }), signature, unitId, use);
      if (bad) return fail(bad);
      report.copies += 1;
    }
  }
  return report;
}

export function describeSeReport(r: SeVerifyReport): string {
  const chain = describeChainReport(r, {
    all: (total) => `all ${total} receipt signatures verify`,
    partial: (total, count) => `${total} of ${count} receipt signatures verified (${count - total} not checked: mid-chain without the previous signature)`,
    midChain: (m) => `  note: register ${m.registerID} starts mid-chain at nr ${m.nr}; its signature needs the previous receipt's (${PREVIOUS_SIGNATURE_FILE}) and is not checked here`,
  });
  if (!r.ok) return chain;
  return [chain, `  copies: ${r.copies} copy signatures verify`, ...r.copiesUnchecked.map((u) => `  note: ${u}; not checked`)].join('\n');
}

type Inputs = ExportWithKeys;

const readZip = (path: string): Promise<Inputs | string> => readExportZipWithKeys(path, KEY_FILE);

/** The PEM of a control unit's key beside a file (`control-unit-<id>.pem`), read when first asked for. */
export function keysBeside(path: string): (id: string) => string | undefined {
  const dir = dirname(path);
  return (id) => {
    const file = join(dir, `control-unit-${id}.pem`);
    return /^[A-Za-z0-9._-]+$/.test(id) && existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
}

/** A key look-up over PEM texts: parses each once, and says why a unit has no usable key. */
export function keyLookup(pemFor: (id: string) => string | undefined, where: string): (id: string) => KeyObject | string {
  const cache = new Map<string, KeyObject | string>();
  return (id) => {
    const known = cache.get(id);
    if (known !== undefined) return known;
    const pem = pemFor(id);
    let result: KeyObject | string;
    if (pem === undefined) result = `no control-unit-${id}.pem ${where}`;
    else {
      try {
        const key = createPublicKey(pem);
        if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') result = `control-unit-${id}.pem is not an ECDSA P-256 key`;
        // a software unit's number is made from its key: a key under another unit's number is not that unit's
        else if (isSoftwareUnitId(id) && softwareUnitId(key) !== id) result = `control-unit-${id}.pem is the key of software control unit ${softwareUnitId(key)}, not of ${id}`;
        else result = key;
      } catch (e) {
        result = `control-unit-${id}.pem cannot be read: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    cache.set(id, result);
    return result;
  };
}

/** The --key files as pinned ECDSA keys, or a text saying why one is unusable. */
export function readPinnedEcKeys(paths: readonly string[]): PinnedKey[] | string {
  const pinned: PinnedKey[] = [];
  for (const path of paths) {
    const p = readPinnedKey(path);
    if (typeof p === 'string') return p;
    if (p.key.asymmetricKeyType !== 'ec') return `--key ${path} is not an ECDSA key`;
    pinned.push(p);
  }
  return pinned;
}

/** Verifies an export zip, or a bare XML with control-unit-<id>.pem and previous-signature.txt beside it; `keys` are the --key PEM files. */
export async function verifySwedishExport(path: string, options: { keys?: readonly string[] } = {}): Promise<VerifyOutcome> {
  const broken = (reason: string): VerifyOutcome => ({ ok: false, text: `BROKEN: ${reason}` });
  const pinned = readPinnedEcKeys(options.keys ?? []);
  if (typeof pinned === 'string') return broken(pinned);
  const inputs = await readExportInput<Inputs>(path, readZip, (bytes) => {
    const previous = previousBeside(path);
    return { xml: bytes, pemFor: keysBeside(path), where: `beside ${path}`, ...(previous !== undefined ? { previous } : {}) };
  });
  if (typeof inputs === 'string') return broken(inputs);
  let file: SeFile;
  try {
    file = readSwedishFile(decodeXmlBytes(inputs.xml), SAFT_SE_NAMESPACE);
  } catch (e) {
    return broken(`not a readable Swedish SAF-T Cash Register file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const previous = inputs.previous === undefined ? undefined : parsePreviousSignatures(inputs.previous);
  if (typeof previous === 'string') return broken(previous);
  const report = verifySwedishFile(file, keyLookup(inputs.pemFor, inputs.where), { pinned, ...(previous ? { previous } : {}) });
  return { ok: report.ok, text: describeSeReport(report) };
}
