/**
 * The one verification of a journal export (`NNNN.jou` files + `manifest.json` + `public.pem`).
 * The service uses it (verifyZip, `efr verify`) and so does the stand-alone `verify.mjs` inside
 * every export, which is generated from the compiled text of these functions
 * (Function.prototype.toString, see jou-export.ts): there is no second copy to drift.
 *
 * Therefore every exported function here is SELF-CONTAINED: it uses only its parameters and the
 * built-in globals of JavaScript and Node (JSON, Number, Buffer...), never anything imported or
 * declared at module level. Types are erased at compile time, so `import type` is fine.
 */
import type * as NodeCrypto from 'node:crypto';

/** The parts of node:crypto the verification needs (pass the module itself). */
export type VerifyCrypto = Pick<typeof NodeCrypto, 'createHash' | 'createPublicKey' | 'verify'>;

/** One journal file of an export: its name (`0002.jou`) and its text. */
export interface JournalFile {
  readonly name: string;
  readonly text: string;
}

export interface VerifyReport {
  ok: boolean;
  /** records that verified (all of them when ok) */
  count: number;
  /** the first SQ of the export (manifest) */
  firstSQ: number;
  /** the last SQ that verified (the manifest's lastSQ when ok) */
  lastSQ: number;
  /** register number (manifest), when the manifest could be read */
  rn?: string;
  /** id of public.pem: hex of the first 8 bytes of SHA-256 over its DER (SPKI) */
  keyId?: string;
  /** the first problem: the record's SQ (0: before any record), the file, the reason */
  broken?: { sq: number; file: string; reason: string };
}

/** Order of journal file names: by file number (`9999.jou` before `10000.jou`). Self-contained. */
export function compareJouNames(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Verifies a journal export. `files` are its `.jou` files in file-number order (compareJouNames);
 * they may come lazily (a generator), so that a large export need not be in memory at once.
 *
 * Checks: the manifest; the key; file names against SQ ranges (file n holds SQ 1000n..1000n+999);
 * every file a JSON array; SQ contiguous from manifest.firstSQ to manifest.lastSQ across files;
 * the hash chain from manifest.prevHash: hash = SHA-256(previous hash hex + "\n" + data);
 * inside each record's data: SQ, RN, `_` and the date D; every signature (ECDSA P-256/SHA-256,
 * r||s) over the signing payload EFR1;RN;SQ;type;FN;ESR.D;TS;TL/TT/TN;T;hash.
 *
 * SELF-CONTAINED: uses only its parameters and built-in globals (it is copied into verify.mjs).
 */
export async function verifyJournalFiles(
  files: Iterable<JournalFile> | AsyncIterable<JournalFile>,
  manifestText: string,
  publicKeyPem: string,
  crypto: VerifyCrypto,
): Promise<VerifyReport> {
  const FORMAT = 'efr-jou-1';
  const GENESIS = '0'.repeat(64);
  const PER_FILE = 1000;
  const HEX64 = /^[0-9a-f]{64}$/;
  const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
  type Fields = Record<string, unknown>;
  const isObj = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isSq = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
  const fileName = (n: number): string => `${String(n).padStart(4, '0')}.jou`;
  const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

  // The signed text, exactly as signingPayload in src/register/journal/chain.ts builds it
  // (a unit test signs with that one and verifies with this one).
  const escapeField = (v: string): string => v.replace(/%/g, '%25').replace(/;/g, '%3B');
  const field = (o: unknown, k: string): string => {
    const v = typeof o === 'object' && o !== null ? (o as Fields)[k] : undefined;
    return typeof v === 'string' ? escapeField(v) : '';
  };
  const signingPayload = (data: Fields, hashHex: string): string => {
    const esr = data.ESR;
    const id = esr ? `${field(esr, 'TL')}/${field(esr, 'TT')}/${field(esr, 'TN')}` : '';
    return ['EFR1', field(data, 'RN'), field(data, 'SQ'), field(data, '_'), field(data.Fis, 'FN'), field(esr, 'D'), field(data, 'TS'), id, field(esr, 'T'), hashHex].join(';');
  };

  let firstSQ = 0;
  let rn: string | undefined;
  let keyId: string | undefined;
  let expected = 0;
  let count = 0;
  const report = (sq: number, file: string, reason: string): VerifyReport => ({
    ok: false,
    count,
    firstSQ,
    lastSQ: count > 0 ? expected - 1 : 0,
    ...(rn !== undefined ? { rn } : {}),
    ...(keyId !== undefined ? { keyId } : {}),
    broken: { sq, file, reason },
  });

  // the manifest
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch (e) {
    return report(0, 'manifest.json', `not valid JSON: ${messageOf(e)}`);
  }
  if (!isObj(manifest)) return report(0, 'manifest.json', 'not a JSON object');
  if (manifest.format !== FORMAT) return report(0, 'manifest.json', `format is ${JSON.stringify(manifest.format)}; this verifier reads ${FORMAT}`);
  if (typeof manifest.RN !== 'string' || manifest.RN === '') return report(0, 'manifest.json', 'RN (register number) is missing');
  rn = manifest.RN;
  if (!isSq(manifest.firstSQ)) return report(0, 'manifest.json', 'firstSQ is not a positive integer');
  if (!isSq(manifest.lastSQ) || manifest.lastSQ < manifest.firstSQ) return report(0, 'manifest.json', 'lastSQ is not an integer at or after firstSQ');
  firstSQ = manifest.firstSQ;
  if (manifest.count !== manifest.lastSQ - manifest.firstSQ + 1) return report(0, 'manifest.json', `count ${JSON.stringify(manifest.count)} is not the number of SQ from ${firstSQ} to ${manifest.lastSQ}`);
  if (typeof manifest.prevHash !== 'string' || !HEX64.test(manifest.prevHash)) return report(0, 'manifest.json', 'prevHash is not 64 lower-case hex digits');
  if (firstSQ === 1 && manifest.prevHash !== GENESIS) return report(0, 'manifest.json', 'the export starts at SQ 1, so prevHash must be 64 zeros (GENESIS)');
  const manifestLast = manifest.lastSQ;
  let prev = manifest.prevHash;

  // the key
  let key: NodeCrypto.KeyObject;
  try {
    key = crypto.createPublicKey(publicKeyPem);
  } catch (e) {
    return report(0, 'public.pem', `not a public key: ${messageOf(e)}`);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return report(0, 'public.pem', 'not an ECDSA P-256 key');
  keyId = crypto.createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
  if (manifest.keyId !== undefined && manifest.keyId !== keyId) return report(0, 'public.pem', `key id ${keyId} differs from keyId ${JSON.stringify(manifest.keyId)} in manifest.json`);

  // the records
  expected = firstSQ;
  let lastFile = -1;
  for await (const file of files) {
    const name = file.name;
    const m = /^(\d{4,})\.jou$/.exec(name);
    if (!m) return report(expected, name, 'not a journal file name (NNNN.jou)');
    const n = Number(m[1]);
    if (expected > manifestLast) return report(expected, name, `file after the last SQ ${manifestLast} named in manifest.json`);
    const want = Math.floor(expected / PER_FILE);
    if (n > want && want === lastFile) return report(expected, fileName(want), `SQ ${expected} is missing: ${fileName(want)} ends at SQ ${expected - 1}`);
    if (n > want) return report(expected, fileName(want), `file ${fileName(want)} is missing (it would hold SQ ${expected}); next file is ${name}`);
    if (n < want) return report(expected, name, `file out of order or repeated: SQ ${expected} belongs in ${fileName(want)}`);
    lastFile = n;
    const lo = n * PER_FILE;
    const hi = lo + PER_FILE - 1;

    let records: unknown;
    try {
      records = JSON.parse(file.text);
    } catch (e) {
      // name the record: the export writes one record per line
      let sq = expected;
      let line = 0;
      for (const raw of file.text.split('\n')) {
        line += 1;
        const t = raw.trim().replace(/,$/, '');
        if (t === '' || t === '[' || t === ']') continue;
        const at = /^\{"SQ":(\d+)[,}]/.exec(t);
        try {
          JSON.parse(t);
        } catch {
          if (at) sq = Number(at[1]);
          return report(sq, name, `not valid JSON at line ${line}: ${messageOf(e)}`);
        }
        sq = at ? Number(at[1]) + 1 : sq + 1;
      }
      return report(sq, name, `not valid JSON: ${messageOf(e)}`);
    }
    if (!Array.isArray(records)) return report(expected, name, 'not a JSON array of records');
    if (records.length === 0) return report(expected, name, 'holds no records');

    for (const r of records as unknown[]) {
      if (!isObj(r) || !isSq(r.SQ)) return report(expected, name, `a record without an integer SQ where SQ ${expected} was expected`);
      const sq = r.SQ;
      const fail = (reason: string): VerifyReport => report(sq, name, reason);
      if (sq < lo || sq > hi) return fail(`SQ ${sq} does not belong in ${name} (which holds SQ ${lo} to ${hi})`);
      if (sq !== expected) return fail(`SQ ${sq} follows SQ ${expected - 1}: gap, repetition or reordering`);
      if (sq > manifestLast) return fail(`SQ ${sq} is after the last SQ ${manifestLast} named in manifest.json`);
      if (typeof r.data !== 'string') return fail('data is not a string');
      if (typeof r.hash !== 'string' || !HEX64.test(r.hash)) return fail('hash is not 64 lower-case hex digits');
      const hash = crypto.createHash('sha256').update(prev).update('\n').update(r.data).digest('hex');
      if (hash !== r.hash) {
        return fail(sq === firstSQ ? 'hash does not match the record data and prevHash of manifest.json' : 'hash does not match the record data and the previous record hash: the record was changed');
      }
      let data: unknown;
      try {
        data = JSON.parse(r.data);
      } catch {
        return fail('data is not valid JSON');
      }
      if (!isObj(data)) return fail('data is not a JSON object');
      if (data.SQ !== String(sq)) return fail(`SQ inside the data (${JSON.stringify(data.SQ)}) differs from the record SQ ${sq}`);
      if (data.RN !== rn) return fail(`the record belongs to register ${JSON.stringify(data.RN)}, not ${rn}`);
      if (r._ !== data._) return fail(`"_" ${JSON.stringify(r._)} differs from the record type inside the data ${JSON.stringify(data._)}`);
      // D is the record's ESR.D, else its TS (time of recording)
      const esrD = isObj(data.ESR) && typeof data.ESR.D === 'string' ? data.ESR.D : undefined;
      const dataD = esrD ?? (typeof data.TS === 'string' ? data.TS : undefined);
      if (dataD !== undefined && r.D !== dataD) return fail(`D ${JSON.stringify(r.D)} differs from the date inside the data ${JSON.stringify(dataD)}`);
      if (typeof r.sig !== 'string' || !BASE64.test(r.sig)) return fail('sig is not base64');
      let good = false;
      try {
        good = crypto.verify('sha256', Buffer.from(signingPayload(data, hash), 'utf8'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(r.sig, 'base64'));
      } catch {
        good = false;
      }
      if (!good) return fail('signature does not verify with public.pem');
      prev = hash;
      expected = sq + 1;
      count += 1;
    }
  }
  if (expected <= manifestLast) {
    return report(expected, fileName(Math.floor(expected / PER_FILE)), `missing: manifest.json names SQ ${firstSQ} to ${manifestLast}, the files end ${count > 0 ? `at SQ ${expected - 1}` : 'before the first'}`);
  }
  return { ok: true, count, firstSQ, lastSQ: manifestLast, rn, keyId };
}

/** The one-line result that `efr verify` and verify.mjs print. Self-contained. */
export function describeReport(r: VerifyReport): string {
  if (r.ok) return `OK: ${r.count} records, SQ ${r.firstSQ}..${r.lastSQ}, chain and signatures verify`;
  const b = r.broken ?? { sq: 0, file: '?', reason: 'unknown problem' };
  return `BROKEN at SQ ${b.sq} (file ${b.file}): ${b.reason}`;
}
