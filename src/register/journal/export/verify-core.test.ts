/**
 * The verification core of journal exports: what it accepts, what it names when a byte changes,
 * that its signing payload is chain.ts's, and that verify.mjs (made of its compiled text) runs on
 * plain node, whether the service ran from tsc output or from source through tsx.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeCrypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { GENESIS, chainHash, signingPayload } from '../chain.js';
import { type Signer, loadOrCreateSigner } from '../../security/signer.js';
import type { JournalRecord } from '../types.js';
import { type JouExportPlan, type VerifySources, jouFileName, jouManifest, jouRecordLine, verifyScript } from './jou-export.js';
import { type JournalFile, type VerifyReport, compareJouNames, describeReport, verifyJournalFiles } from './verify-core.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'efr-verify-core-'));
const keyDir = tmp();
const signer = loadOrCreateSigner(keyDir);
const otherSigner = loadOrCreateSigner(join(keyDir, 'other'));
process.on('exit', () => rmSync(keyDir, { recursive: true, force: true }));

type Data = Record<string, unknown>;

/** A register's records as the pipeline makes them: data text hashed on the previous hash, signed. */
function journal(n: number, rn = 'def', dataOf: (sq: number) => Data = (sq) => receipt(rn, sq), by: Signer = signer): JournalRecord[] {
  const out: JournalRecord[] = [];
  let prev = GENESIS;
  for (let sq = 1; sq <= n; sq++) {
    const data = dataOf(sq);
    const text = JSON.stringify(data);
    const hash = chainHash(prev, text);
    const sig = by.sign(signingPayload(data, hash.toString('hex')));
    const esr = data.ESR as Data | undefined;
    const d = (typeof esr?.D === 'string' ? esr.D : data.TS) as string;
    out.push({ rid: 1, sq, type: data._ as JournalRecord['type'], d, data: text, hash, sig });
    prev = hash.toString('hex');
  }
  return out;
}

function receipt(rn: string, sq: number): Data {
  const day = 1 + Math.floor(sq / 400);
  const d = `2026-03-${String(day).padStart(2, '0')}T10:${String(sq % 60).padStart(2, '0')}:00`;
  if (sq % 500 === 0) return { _: 'Cfg', SQ: String(sq), RN: rn, TS: d, Cfg: { Trm: { Lang: 'de' } } };
  return { _: 'Tra', SQ: String(sq), RN: rn, TS: d, BC: 'sale', ESR: { TL: '1', TT: '1', TN: String(sq), D: d, T: '4.70', PosA: [{ _: 'Pos', Dsc: 'Article; 100%', Amt: '4.70' }] }, Fis: { FN: String(sq) } };
}

interface Export {
  files: JournalFile[];
  manifest: string;
  pem: string;
}

/** The records firstSQ..lastSQ of a journal in export form (the exporter's line and file format). */
function exportOf(records: readonly JournalRecord[], firstSQ = 1, lastSQ = records.length, rn = 'def'): Export {
  const prevHash = firstSQ === 1 ? GENESIS : (records[firstSQ - 2] as JournalRecord).hash.toString('hex');
  const plan: JouExportPlan = { rn, rid: 1, firstSQ, lastSQ, prevHash, period: {} };
  const byFile = new Map<number, string[]>();
  for (const r of records.slice(firstSQ - 1, lastSQ)) {
    const n = Math.floor(r.sq / 1000);
    byFile.set(n, [...(byFile.get(n) ?? []), jouRecordLine(r)]);
  }
  const files = [...byFile].map(([n, lines]) => ({ name: jouFileName(n), text: `[\n${lines.join(',\n')}\n]\n` }));
  const manifest = JSON.stringify(jouManifest(plan, { publicKeyPem: signer.publicKeyPem(), keyId: signer.keyId, exportedAt: new Date('2026-03-09T12:00:00Z'), generator: 'efr test' }));
  return { files, manifest, pem: signer.publicKeyPem() };
}

const verify = (e: Export): Promise<VerifyReport> => verifyJournalFiles(e.files, e.manifest, e.pem, nodeCrypto);

/** The export with one file's text changed. */
function withFile(e: Export, name: string, change: (text: string) => string): Export {
  return { ...e, files: e.files.map((f) => (f.name === name ? { name, text: change(f.text) } : f)) };
}

/** The export with the line of one record changed. */
function withLine(e: Export, sq: number, change: (line: string) => string): Export {
  return withFile(e, jouFileName(Math.floor(sq / 1000)), (text) =>
    text
      .split('\n')
      .map((l) => (l.startsWith(`{"SQ":${sq},`) ? change(l) : l))
      .join('\n'),
  );
}

function withManifest(e: Export, change: (m: Data) => void): Export {
  const m = JSON.parse(e.manifest) as Data;
  change(m);
  return { ...e, manifest: JSON.stringify(m) };
}

const full = journal(2100);
const whole = exportOf(full);

function assertBroken(r: VerifyReport, sq: number, file: string, reason: RegExp): void {
  assert.equal(r.ok, false, 'reported as broken');
  assert.deepEqual({ sq: r.broken?.sq, file: r.broken?.file }, { sq, file }, r.broken?.reason);
  assert.match(r.broken?.reason ?? '', reason);
}

describe('verifyJournalFiles', () => {
  test('a whole journal in three files verifies, with the key id of the signer', async () => {
    assert.deepEqual(whole.files.map((f) => f.name), ['0000.jou', '0001.jou', '0002.jou']);
    const r = await verify(whole);
    assert.deepEqual(r, { ok: true, count: 2100, firstSQ: 1, lastSQ: 2100, rn: 'def', keyId: signer.keyId });
    assert.equal(describeReport(r), 'OK: 2100 records, SQ 1..2100, chain and signatures verify');
  });

  test('a range from the middle verifies on the prevHash of the manifest, and only on it', async () => {
    const part = exportOf(full, 998, 1003);
    assert.deepEqual(part.files.map((f) => f.name), ['0000.jou', '0001.jou']);
    const r = await verify(part);
    assert.deepEqual([r.ok, r.count, r.firstSQ, r.lastSQ], [true, 6, 998, 1003]);
    const wrongAnchor = withManifest(part, (m) => {
      m.prevHash = (full[10] as JournalRecord).hash.toString('hex');
    });
    assertBroken(await verify(wrongAnchor), 998, '0000.jou', /prevHash/);
    assertBroken(await verify(withManifest(part, (m) => (m.prevHash = GENESIS))), 998, '0000.jou', /prevHash/);
  });

  test('one changed byte in a record data names that record', async () => {
    const e = withLine(whole, 1234, (l) => l.replace('Article; 100%', 'Article; 101%'));
    assert.notEqual(e.files[1]?.text, whole.files[1]?.text);
    const r = await verify(e);
    assertBroken(r, 1234, '0001.jou', /hash does not match/);
    assert.equal(r.count, 1233);
    assert.equal(r.lastSQ, 1233);
    assert.match(describeReport(r), /^BROKEN at SQ 1234 \(file 0001\.jou\): hash does not match/);
  });

  test('a changed hash, a foreign signature, a wrong key: each names the record', async () => {
    const hashOf = (sq: number): string => (full[sq - 1] as JournalRecord).hash.toString('hex');
    assertBroken(await verify(withLine(whole, 7, (l) => l.replace(hashOf(7), hashOf(8)))), 7, '0000.jou', /hash does not match/);
    const sigOf = (sq: number): string => (full[sq - 1] as JournalRecord).sig.toString('base64');
    assertBroken(await verify(withLine(whole, 2050, (l) => l.replace(sigOf(2050), sigOf(2051)))), 2050, '0002.jou', /signature/);
    const foreign = { ...withManifest(whole, (m) => delete m.keyId), pem: otherSigner.publicKeyPem() };
    assertBroken(await verify(foreign), 1, '0000.jou', /signature does not verify/);
    const announced = { ...whole, pem: otherSigner.publicKeyPem() };
    assertBroken(await verify(announced), 0, 'public.pem', /key id/);
  });

  test('a record re-signed by another key after a change is still refused', async () => {
    // the hash is recomputed and signed, but not with the key of public.pem
    const forged = journal(5, 'def', (sq) => (sq === 3 ? { ...receipt('def', 3), BC: 'void' } : receipt('def', sq)), otherSigner);
    assertBroken(await verify({ ...exportOf(forged), pem: signer.publicKeyPem() }), 1, '0000.jou', /signature/);
  });

  test('removed, repeated, reordered and misfiled records', async () => {
    const drop = withFile(whole, '0001.jou', (t) => t.replace(/\n\{"SQ":1500,[^\n]*\n/, '\n'));
    assertBroken(await verify(drop), 1501, '0001.jou', /follows SQ 1499/);
    const line = (sq: number): string => jouRecordLine(full[sq - 1] as JournalRecord);
    const swap = withFile(whole, '0000.jou', (t) => t.replace(`${line(10)},\n${line(11)}`, `${line(11)},\n${line(10)}`));
    assertBroken(await verify(swap), 11, '0000.jou', /follows SQ 9/);
    const repeat = withFile(whole, '0000.jou', (t) => t.replace(`${line(10)},\n`, `${line(10)},\n${line(10)},\n`));
    assertBroken(await verify(repeat), 10, '0000.jou', /follows SQ 10/);
    // SQ 999 moved from 0000.jou to the start of 0001.jou
    const moved = withFile(withFile(whole, '0000.jou', (t) => t.replace(`,\n${line(999)}`, '')), '0001.jou', (t) => t.replace('[\n', `[\n${line(999)},\n`));
    assertBroken(await verify(moved), 999, '0000.jou', /SQ 999 is missing: 0000\.jou ends at SQ 998/);
    // SQ 1000 moved from 0001.jou to the end of 0000.jou
    const early = withFile(withFile(whole, '0001.jou', (t) => t.replace(`${line(1000)},\n`, '')), '0000.jou', (t) => t.replace(`${line(999)}\n`, `${line(999)},\n${line(1000)}\n`));
    assertBroken(await verify(early), 1000, '0000.jou', /does not belong in 0000\.jou \(which holds SQ 0 to 999\)/);
  });

  test('missing, extra and out-of-order files, a cut tail', async () => {
    const [f0, f1, f2] = whole.files as [JournalFile, JournalFile, JournalFile];
    assertBroken(await verify({ ...whole, files: [f0, f2] }), 1000, '0001.jou', /0001\.jou is missing/);
    assertBroken(await verify({ ...whole, files: [f0, f2, f1] }), 1000, '0001.jou', /0001\.jou is missing/);
    assertBroken(await verify({ ...whole, files: [f0, f1, f1, f2] }), 2000, '0001.jou', /out of order or repeated/);
    assertBroken(await verify({ ...whole, files: [f0, f1, f2, { name: '0003.jou', text: '[]' }] }), 2101, '0003.jou', /after the last SQ 2100/);
    assertBroken(await verify({ ...whole, files: [f0, f1] }), 2000, '0002.jou', /missing: manifest\.json names SQ 1 to 2100, the files end at SQ 1999/);
    assertBroken(await verify({ ...whole, files: [f0, f1, { name: 'x.jou', text: '[]' }] }), 2000, 'x.jou', /not a journal file name/);
    const cut = withFile(whole, '0002.jou', (t) => t.replace(/,\n\{"SQ":2100,[^\n]*/, ''));
    assertBroken(await verify(cut), 2100, '0002.jou', /missing/);
    // a shortened export must also shorten its manifest, which then says so
    const shorter = withManifest(cut, (m) => (m.lastSQ = 2099));
    assertBroken(await verify(shorter), 0, 'manifest.json', /count/);
    const consistent = withManifest(cut, (m) => {
      m.lastSQ = 2099;
      m.count = 2099;
    });
    assert.equal((await verify(consistent)).ok, true, 'a consistent prefix is a valid export of SQ 1..2099');
  });

  test('a file that is no longer JSON names the record on the broken line', async () => {
    const e = withLine(whole, 1500, (l) => l.replace('"data":"{', '"data":{'));
    assertBroken(await verify(e), 1500, '0001.jou', /not valid JSON at line 502/);
    assertBroken(await verify(withFile(whole, '0001.jou', () => '{}')), 1000, '0001.jou', /not a JSON array/);
    assertBroken(await verify(withFile(whole, '0001.jou', () => '[]')), 1000, '0001.jou', /holds no records/);
  });

  test('the copies outside data (_ and D) and SQ and RN inside data must agree with the record', async () => {
    assertBroken(await verify(withLine(whole, 42, (l) => l.replace('"_":"Tra"', '"_":"Cfg"'))), 42, '0000.jou', /"_"/);
    assertBroken(await verify(withLine(whole, 42, (l) => l.replace(/"D":"2026-03-01/, '"D":"2026-03-02'))), 42, '0000.jou', /^D /);
    assertBroken(await verify(withLine(whole, 500, (l) => l.replace(/"D":"2026-03-02/, '"D":"2026-03-03'))), 500, '0000.jou', /^D /);
    // properly hashed and signed, but the data says SQ 7 at position 8
    const shifted = journal(9, 'def', (sq) => receipt('def', sq === 8 ? 7 : sq));
    assertBroken(await verify(exportOf(shifted)), 8, '0000.jou', /SQ inside the data \("7"\)/);
    const other = journal(3, 'shop$1_2');
    assertBroken(await verify({ ...exportOf(other), manifest: exportOf(full, 1, 3).manifest }), 1, '0000.jou', /register "shop\$1_2", not def/);
  });

  test('manifest problems are reported before any record', async () => {
    assertBroken(await verify({ ...whole, manifest: '{' }), 0, 'manifest.json', /not valid JSON/);
    assertBroken(await verify(withManifest(whole, (m) => (m.format = 'efr-jou-9'))), 0, 'manifest.json', /efr-jou-1/);
    assertBroken(await verify(withManifest(whole, (m) => (m.count = 5))), 0, 'manifest.json', /count/);
    assertBroken(await verify(withManifest(whole, (m) => (m.prevHash = 'ab'))), 0, 'manifest.json', /prevHash/);
    assertBroken(await verify(withManifest(whole, (m) => (m.prevHash = 'a'.repeat(64)))), 0, 'manifest.json', /GENESIS/);
    assertBroken(await verify({ ...whole, pem: 'no key' }), 0, 'public.pem', /not a public key/);
    const r = await verify(withManifest(whole, (m) => delete m.RN));
    assert.equal(describeReport(r), 'BROKEN at SQ 0 (file manifest.json): RN (register number) is missing');
  });

  test('files may come lazily, one at a time', async () => {
    let open = 0;
    let maxOpen = 0;
    async function* lazy(): AsyncGenerator<JournalFile> {
      for (const f of whole.files) {
        open += 1;
        maxOpen = Math.max(maxOpen, open);
        yield f;
        open -= 1;
      }
    }
    assert.equal((await verifyJournalFiles(lazy(), whole.manifest, whole.pem, nodeCrypto)).ok, true);
    assert.equal(maxOpen, 1);
  });

  test('file name order is by number', () => {
    assert.deepEqual(['10000.jou', '0002.jou', '9999.jou', '0010.jou'].sort(compareJouNames), ['0002.jou', '0010.jou', '9999.jou', '10000.jou']);
  });
});

describe('the signing payload of the verifier is the one of chain.ts', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ';', '%', '%3B', '%25', '/', ' ', 'é', '€', '"', '\\', '\n') });
  const value = fc.oneof(text, fc.constant(undefined), fc.integer(), fc.constant(null), fc.boolean());
  const esr = fc.oneof(fc.record({ TL: value, TT: value, TN: value, D: text, T: value }, { requiredKeys: ['D'] }), fc.constant(undefined), text, fc.constant(null), fc.constant([]));

  test('records signed with chain.ts signingPayload verify, whatever their fields hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ RN: text, TS: text, _: fc.constantFrom('Tra', 'TraS', 'Cfg', 'Audit'), Fis: fc.oneof(fc.record({ FN: value }), fc.constant(undefined), text), ESR: esr }), async (fields) => {
        const rn = `r${fields.RN}`;
        const data: Data = { ...fields, RN: rn, SQ: '1' };
        const recs = journal(1, rn, () => data);
        const rec = recs[0] as JournalRecord;
        const esrD = typeof data.ESR === 'object' && data.ESR !== null && !Array.isArray(data.ESR) && typeof (data.ESR as Data).D === 'string' ? ((data.ESR as Data).D as string) : undefined;
        rec.d = esrD ?? (data.TS as string);
        const r = await verify(exportOf(recs, 1, 1, rn));
        assert.equal(r.ok, true, describeReport(r));
      }),
      { numRuns: 300 },
    );
  });

  test('a payload without the escaping does not verify', async () => {
    const data = { ...receipt('def', 1), TS: '2026-03-01T10:01:00;x%' };
    const text1 = JSON.stringify(data);
    const hash = chainHash(GENESIS, text1);
    const unescaped = signingPayload(data, hash.toString('hex')).replace('%3B', ';').replace('%25', '%');
    const rec: JournalRecord = { rid: 1, sq: 1, type: 'Tra', d: '2026-03-01T10:01:00', data: text1, hash, sig: signer.sign(unescaped) };
    assertBroken(await verify(exportOf([rec])), 1, '0000.jou', /signature/);
  });
});

describe('verify.mjs runs on plain node', () => {
  function writeExport(dir: string, e: Export, script: string): void {
    mkdirSync(dir, { recursive: true });
    for (const f of e.files) writeFileSync(join(dir, f.name), f.text);
    writeFileSync(join(dir, 'manifest.json'), e.manifest);
    writeFileSync(join(dir, 'public.pem'), e.pem);
    writeFileSync(join(dir, 'verify.mjs'), script);
  }
  const run = (dir: string): { status: number | null; out: string } => {
    const r = spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };

  /** The functions as tsc compiles them (what the built service, dist/, embeds). */
  async function tscSources(dir: string): Promise<VerifySources> {
    const source = readFileSync(new URL('./verify-core.ts', import.meta.url), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    const file = join(dir, 'verify-core.compiled.mjs');
    writeFileSync(file, js);
    const m = (await import(pathToFileURL(file).href)) as { compareJouNames: () => void; verifyJournalFiles: () => void; describeReport: () => void };
    return { compareJouNames: m.compareJouNames.toString(), verifyJournalFiles: m.verifyJournalFiles.toString(), describeReport: m.describeReport.toString() };
  }

  for (const variant of ['compiled by tsc', 'running from source (tsx)'] as const) {
    test(`${variant}: OK on an intact export, the record named after a one-byte change`, async () => {
      const dir = tmp();
      try {
        const sources = variant === 'compiled by tsc' ? await tscSources(dir) : undefined;
        const script = verifyScript('efr test', sources);
        if (sources) {
          assert.doesNotMatch(script, /__name/);
          assert.match(script, /\/\/ the signed text, exactly as signingPayload/i, 'tsc keeps the comments: the script is readable');
        }
        assert.ok(script.includes((sources?.verifyJournalFiles ?? verifyJournalFiles.toString())), 'the script holds the verification function itself');
        const part = exportOf(full, 990, 2020);
        writeExport(join(dir, 'ok'), part, script);
        const ok = run(join(dir, 'ok'));
        assert.equal(ok.status, 0, ok.out);
        assert.match(ok.out, /^OK: 1031 records, SQ 990\.\.2020, chain and signatures verify\n/);
        assert.match(ok.out, new RegExp(`public key id ${signer.keyId}`));
        writeExport(join(dir, 'bad'), withLine(part, 1999, (l) => l.replace('"TN\\":\\"1999', '"TN\\":\\"1998')), script);
        const bad = run(join(dir, 'bad'));
        assert.equal(bad.status, 1, bad.out);
        assert.match(bad.out, /^BROKEN at SQ 1999 \(file 0001\.jou\): hash does not match/);
        rmSync(join(dir, 'bad', 'public.pem'));
        assert.match(run(join(dir, 'bad')).out, /^BROKEN at SQ 0 \(file public\.pem\): missing/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
