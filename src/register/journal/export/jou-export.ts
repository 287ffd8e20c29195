/**
 * The journal export (`GET /export?type=jou`): a register's journal as a zip stream with
 *   NNNN.jou       JSON arrays of up to 1000 records, file n holding SQ 1000n..1000n+999
 *                  (0000.jou holds SQ 1..999), each record
 *                  {"SQ":n,"_":type,"D":d,"data":"<the exact JSON text>","hash":"<hex>","sig":"<base64>"}
 *   manifest.json  RN, firstSQ, lastSQ, count, prevHash (hash before firstSQ), exportedAt, keyId, format
 *   public.pem     the instance public key
 *   verify.mjs     the stand-alone proof script (plain Node, no dependencies), generated from verify-core.ts
 *   README.txt     how a tax auditor checks the export
 * Records are read page by page through JournalStore.range and streamed: the journal is never in memory.
 */
import { PassThrough, Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { GENESIS } from '../chain.js';
import { periodSqRange } from '../period-range.js';
import type { JournalRecord, JournalStore } from '../types.js';
import { compareJouNames, describeReport, verifyJournalFiles } from './verify-core.js';

export const JOU_FORMAT = 'efr-jou-1';
export const RECORDS_PER_FILE = 1000;

/** `0002.jou`: the file that holds SQ 2000..2999. */
export function jouFileName(fileNumber: number): string {
  return `${String(fileNumber).padStart(4, '0')}.jou`;
}

/** Optional period (YYYY-MM-DD, inclusive), compared with the date part of each record's D. */
export interface ExportPeriod {
  from?: string;
  till?: string;
}

export interface JouExportPlan {
  rn: string;
  rid: number;
  firstSQ: number;
  lastSQ: number;
  /** hash of record firstSQ-1 (GENESIS when firstSQ is 1): where the exported chain hangs */
  prevHash: string;
  period: ExportPeriod;
}

export interface JouExportMeta {
  publicKeyPem: string;
  keyId: string;
  exportedAt: Date;
  /** e.g. `efr 0.1.0` */
  generator: string;
}

/**
 * What to export of a register whose committed journal ends at `headSq`: everything, or with a
 * period the contiguous SQ range of `periodSqRange`. undefined when there is nothing to export.
 */
export async function planJouExport(store: JournalStore, rid: number, rn: string, headSq: number, period: ExportPeriod = {}): Promise<JouExportPlan | undefined> {
  const range = await periodSqRange(store, rid, headSq, period);
  if (!range) return undefined;
  const { firstSQ, lastSQ } = range;
  let prevHash = GENESIS;
  if (firstSQ > 1) {
    const before = await store.get(rid, firstSQ - 1);
    // a cleaned journal: the record before the first remaining one is gone, its hash kept by the cut
    const cut = before ? undefined : await store.cutOf(rid);
    if (!before && cut?.sq !== firstSQ - 1) throw new Error(`journal of ${rn} has no record SQ ${firstSQ - 1}`);
    prevHash = before ? before.hash.toString('hex') : (cut?.hash ?? GENESIS);
  }
  return { rn, rid, firstSQ, lastSQ, prevHash, period: { ...period } };
}

/** `jou_<RN with only [A-Za-z0-9._-]>_<firstSQ>-<lastSQ>.zip` */
export function exportFileName(plan: Pick<JouExportPlan, 'rn' | 'firstSQ' | 'lastSQ'>): string {
  const safe = plan.rn.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'register';
  return `jou_${safe}_${plan.firstSQ}-${plan.lastSQ}.zip`;
}

export function jouManifest(plan: JouExportPlan, meta: JouExportMeta): Record<string, unknown> {
  return {
    format: JOU_FORMAT,
    RN: plan.rn,
    firstSQ: plan.firstSQ,
    lastSQ: plan.lastSQ,
    count: plan.lastSQ - plan.firstSQ + 1,
    prevHash: plan.prevHash,
    ...(plan.period.from !== undefined ? { from: plan.period.from } : {}),
    ...(plan.period.till !== undefined ? { till: plan.period.till } : {}),
    exportedAt: meta.exportedAt.toISOString(),
    keyId: meta.keyId,
    generator: meta.generator,
    recordsPerFile: RECORDS_PER_FILE,
    hash: 'SHA-256 over (previous record hash as 64 lower-case hex digits) + "\\n" + data; before SQ 1: 64 zeros',
    signature: 'ECDSA P-256 with SHA-256, r||s (64 bytes, base64) over EFR1;RN;SQ;_;Fis.FN;ESR.D;TS;ESR.TL/ESR.TT/ESR.TN;ESR.T;hash (fields from data, % and ; percent-encoded)',
  };
}

/** The function texts verify.mjs is made of; by default the ones this service runs. */
export interface VerifySources {
  compareJouNames: string;
  verifyJournalFiles: string;
  describeReport: string;
}

const runningSources = (): VerifySources => ({
  compareJouNames: compareJouNames.toString(),
  verifyJournalFiles: verifyJournalFiles.toString(),
  describeReport: describeReport.toString(),
});

/**
 * verify.mjs: the compiled text of verify-core.ts's functions with a small main that reads the
 * folder the script is in (or the folder given as argument). Only node:crypto, node:fs, node:path.
 */
export function verifyScript(generator: string, sources: VerifySources = runningSources()): string {
  const code = [sources.compareJouNames, sources.verifyJournalFiles, sources.describeReport];
  // Run from TypeScript source (tsx/esbuild keepNames), the text calls __name(fn, "name"); compiled by tsc it does not.
  const shim = code.some((c) => c.includes('__name(')) ? 'const __name = (target) => target;\n\n' : '';
  return `#!/usr/bin/env node
// Proof script of an EFR journal export (format ${JOU_FORMAT}), written by ${generator}.
// Usage: node verify.mjs [folder]   (default: the folder this script is in)
// Needs Node.js 18 or later and nothing else: it uses only node:crypto, node:fs and node:path.
// Exit code 0: every record verifies; 1: a record or file is broken (named in the output).
// The functions below are the service's own verification (src/register/journal/export/verify-core.ts),
// copied from its compiled code when this export was made.
import * as nodeCrypto from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

${shim}${sources.compareJouNames}

${sources.verifyJournalFiles}

${sources.describeReport}

const folder = resolve(process.argv[2] ?? dirname(resolve(process.argv[1] ?? '.')));
const need = (name) => {
  const path = join(folder, name);
  if (!existsSync(path)) {
    console.log(\`BROKEN at SQ 0 (file \${name}): missing in \${folder}\`);
    process.exit(1);
  }
  return readFileSync(path, 'utf8');
};
const manifestText = need('manifest.json');
const publicKeyPem = need('public.pem');
const names = readdirSync(folder).filter((n) => n.endsWith('.jou')).sort(compareJouNames);
function* files() {
  // one file in memory at a time
  for (const name of names) yield { name, text: readFileSync(join(folder, name), 'utf8') };
}
const report = await verifyJournalFiles(files(), manifestText, publicKeyPem, nodeCrypto);
console.log(describeReport(report));
if (report.ok) console.log(\`register \${report.rn}, public key id \${report.keyId} (public.pem; compare it with the key published for this register)\`);
process.exitCode = report.ok ? 0 : 1;
`;
}

export function jouReadme(plan: JouExportPlan, meta: JouExportMeta): string {
  const count = plan.lastSQ - plan.firstSQ + 1;
  const period = plan.period.from !== undefined || plan.period.till !== undefined ? `, period ${plan.period.from ?? '(start)'} to ${plan.period.till ?? '(end)'}` : '';
  return `EFR journal export
==================

Register ${plan.rn}, records SQ ${plan.firstSQ} to ${plan.lastSQ} (${count} records${period}).
Exported ${meta.exportedAt.toISOString()} by ${meta.generator}. Signing key id ${meta.keyId}.

How to check it
---------------
1. Unzip the file into an empty folder.
2. Install Node.js 18 or later (https://nodejs.org); nothing else is needed.
3. In that folder run:

       node verify.mjs

   (or: node verify.mjs <folder> from elsewhere). It prints

       OK: <N> records, SQ <first>..<last>, chain and signatures verify

   and exits with 0 when every record is intact, or

       BROKEN at SQ <n> (file <NNNN.jou>): <reason>

   and exits with 1 at the first record (or file) that was changed, removed, added or reordered.
4. Compare the public key id it prints (${meta.keyId}) with the key registered for this cash
   register (the service publishes it; in the data folder it is keys/instance.pub.pem). The check
   proves that the records were signed with public.pem; only this comparison proves whose key that is.

verify.mjs is short, has no dependencies and may be read before running it.

Contents
--------
NNNN.jou       the records, 1000 SQ per file: file n holds SQ 1000n to 1000n+999
               (0000.jou holds SQ 1 to 999, 0001.jou SQ 1000 to 1999, 0002.jou SQ 2000 to 2999).
               Each file is a JSON array with one record per line:
               {"SQ":n,"_":type,"D":date,"data":"...","hash":"...","sig":"..."}
               data    the exact JSON text of the record as it was registered (the fiscal content)
               hash    SHA-256 over the previous record's hash (64 lower-case hex digits), a line
                       feed and data; the record before SQ 1 has 64 zeros
               sig     ECDSA P-256 / SHA-256 signature (r||s, 64 bytes, base64) with the instance
                       key over EFR1;RN;SQ;_;Fis.FN;ESR.D;TS;ESR.TL/ESR.TT/ESR.TN;ESR.T;hash,
                       the fields taken from data with % written %25 and ; written %3B
               _, D    record type and date (ESR.D, else the time of recording), copies of what
                       data holds, for reading; the verifier checks that they match it
manifest.json  register, first and last SQ, count, prevHash, export time, key id, format
public.pem     the public key of the instance that signed the records
verify.mjs     the proof script
README.txt     this text

What the check covers
---------------------
- every record: its SQ, its hash over its data and the previous hash, its signature, and that
  SQ, RN, type and date inside its data are the ones it is filed under;
- the chain: SQ contiguous from firstSQ to lastSQ across the files, each hash building on the
  one before, starting from prevHash of manifest.json;
- the files: named by SQ range, none missing, none extra.
A changed byte anywhere in a record makes the check fail at that record.

An export of a period (from/till) covers one contiguous SQ range: from the first record dated in
the period to the last one dated in it, with every record in between (a record in between may carry
another date, e.g. a receipt whose date was set by the POS). Such an export starts in the middle of
the chain, so manifest.json gives prevHash, the hash of the record just before firstSQ: the first
record's hash is built on it, so the partial export verifies on its own, and it joins the full
journal exactly (prevHash equals the hash of SQ firstSQ-1 in the previous export or in the service).
Records after lastSQ are not part of this export: the check shows nothing about them.
`;
}

/** One record as a line of a .jou file. */
export function jouRecordLine(r: JournalRecord): string {
  return JSON.stringify({ SQ: r.sq, _: r.type, D: r.d, data: r.data, hash: r.hash.toString('hex'), sig: r.sig.toString('base64') });
}

/**
 * The zip as a stream. The .jou files are filled lazily, in order, from one pass over
 * store.range(firstSQ, lastSQ); the zip writer pulls them as the client reads (backpressure).
 * A read error destroys the stream (the client gets a truncated, unusable zip, never a wrong one).
 */
export function jouExportZip(store: JournalStore, plan: JouExportPlan, meta: JouExportMeta): Readable {
  const zip = new ZipFile();
  const output = new PassThrough();
  const fail = (e: unknown): void => {
    output.destroy(e instanceof Error ? e : new Error(String(e)));
  };
  zip.on('error', fail);
  (zip.outputStream as unknown as Readable).on('error', fail).pipe(output);

  const options = { mtime: meta.exportedAt };
  zip.addBuffer(Buffer.from(jouReadme(plan, meta)), 'README.txt', options);
  zip.addBuffer(Buffer.from(`${JSON.stringify(jouManifest(plan, meta), null, 2)}\n`), 'manifest.json', options);
  zip.addBuffer(Buffer.from(meta.publicKeyPem), 'public.pem', options);
  zip.addBuffer(Buffer.from(verifyScript(meta.generator)), 'verify.mjs', { ...options, mode: 0o100755 });

  const records = store.range(plan.rid, plan.firstSQ, plan.lastSQ)[Symbol.asyncIterator]();
  let carry: JournalRecord | undefined;
  let exhausted = false;
  let current: Readable | undefined;
  async function* fileContent(fileNumber: number): AsyncGenerator<Buffer> {
    const hi = (fileNumber + 1) * RECORDS_PER_FILE - 1;
    let chunk = '[\n';
    let first = true;
    for (;;) {
      let r = carry;
      carry = undefined;
      if (!r) {
        if (exhausted) break;
        const next = await records.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        r = next.value;
      }
      if (r.sq > hi) {
        carry = r;
        break;
      }
      chunk += `${first ? '' : ',\n'}${jouRecordLine(r)}`;
      first = false;
      if (chunk.length >= 64 * 1024) {
        yield Buffer.from(chunk);
        chunk = '';
      }
    }
    yield Buffer.from(`${chunk}\n]\n`);
  }
  const lastFile = Math.floor(plan.lastSQ / RECORDS_PER_FILE);
  for (let n = Math.floor(plan.firstSQ / RECORDS_PER_FILE); n <= lastFile; n++) {
    zip.addReadStreamLazy(jouFileName(n), options, (cb) => {
      current = Readable.from(fileContent(n), { objectMode: false });
      current.on('error', fail);
      cb(null, current);
    });
  }
  zip.end();
  output.on('close', () => {
    // the client went away (or an error): stop reading the journal
    if (!output.readableEnded) {
      current?.destroy();
      void records.return?.();
    }
  });
  return output;
}
