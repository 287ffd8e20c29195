/**
 * GET /export?type=jou end to end: 2,500 receipts registered over HTTP on five days, the journal
 * exported over HTTP as a zip, checked by verifyZip, `efr verify` and the zip's own verify.mjs on
 * plain node; one changed byte is named by all of them; a period export is a contiguous range that
 * verifies on its own.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { openPromise } from 'yauzl';
import { ZipFile } from 'yazl';
import { ManualClock } from '../src/shared/clock.js';
import { GENESIS } from '../src/register/journal/chain.js';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import { ROOT, type TestService, post, sale, startTestService, tempDir } from './helpers.js';

const DAYS = ['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13'];
const PER_DAY = 500;
const clock = new ManualClock(new Date(2026, 2, 9, 12, 0, 0));
let svc: TestService;
let exportUrl: string;
let work: string;
/** SQ of the receipts of each day */
const sqByDay = new Map<string, number[]>();
let head = 0;

before(async () => {
  svc = await startTestService({ clock });
  work = tempDir('efr-export-');
  for (const [i, day] of DAYS.entries()) {
    clock.set(new Date(2026, 2, 9 + i, 12, 0, 0));
    const sqs: number[] = [];
    for (let chunk = 0; chunk < PER_DAY / 50; chunk++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => post(`${svc.url}/register`, sale())));
      for (const a of answers) {
        assert.equal(a.json?.TraC?.Result?.RC, 'OK', a.text);
        sqs.push(a.json.TraC.SQ as number);
      }
    }
    sqByDay.set(day, sqs);
  }
  head = svc.ctx.registers.get('def')?.state.sq ?? 0;
  exportUrl = svc.url;
});

after(async () => {
  await svc?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Download {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function download(query: string): Promise<Download> {
  const res = await request(`${exportUrl}/export?${query}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
  return { status: res.statusCode, headers, body };
}

/** Downloads an export into work/<name>.zip and unzips it into work/<name>/. */
async function fetchExport(name: string, query: string): Promise<{ zip: string; dir: string; res: Download }> {
  const res = await download(query);
  assert.equal(res.status, 200, res.body.toString('utf8', 0, 500));
  const zip = join(work, `${name}.zip`);
  writeFileSync(zip, res.body);
  const dir = join(work, name);
  await unzip(zip, dir);
  return { zip, dir, res };
}

async function unzip(zipPath: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const zip = await openPromise(zipPath, { lazyEntries: true });
  try {
    for await (const entry of zip.eachEntry()) {
      const target = join(dir, entry.fileName);
      mkdirSync(dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
    }
  } finally {
    zip.close();
  }
}

async function zipFolder(dir: string, zipPath: string): Promise<void> {
  const zip = new ZipFile();
  for (const name of readdirSync(dir).sort()) zip.addFile(join(dir, name), name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
}

/** `node verify.mjs` in the folder, plain node (no tsx loader). */
function runVerifyMjs(dir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['verify.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 20_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The real `efr verify <zip>` command, as a process. */
async function efrVerify(zipPath: string): Promise<{ code: number; out: string }> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', zipPath], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

interface JouRecord {
  SQ: number;
  _: string;
  D: string;
  data: string;
  hash: string;
  sig: string;
}

const readJou = (dir: string, name: string): JouRecord[] => JSON.parse(readFileSync(join(dir, name), 'utf8')) as JouRecord[];
const readManifest = (dir: string): Record<string, unknown> => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;

describe('GET /export?type=jou', () => {
  let full: { zip: string; dir: string; res: Download };

  before(async () => {
    full = await fetchExport('full', 'type=jou&rn=def');
  });

  test('the whole journal: a zip with 0000.jou, 0001.jou, 0002.jou by SQ range, manifest, key, proof script, readme', async () => {
    assert.equal(head, DAYS.length * PER_DAY);
    assert.match(full.res.headers['content-type'] ?? '', /^application\/zip/);
    assert.equal(full.res.headers['content-disposition'], `attachment; filename="jou_def_1-${head}.zip"`);
    assert.deepEqual(readdirSync(full.dir).sort(), ['0000.jou', '0001.jou', '0002.jou', 'README.txt', 'manifest.json', 'public.pem', 'verify.mjs']);
    const ranges = ['0000.jou', '0001.jou', '0002.jou'].map((n) => readJou(full.dir, n).map((r) => r.SQ));
    const expected = [
      [1, 999],
      [1000, 1999],
      [2000, head],
    ];
    for (const [i, sqs] of ranges.entries()) {
      const [lo, hi] = expected[i] as [number, number];
      assert.deepEqual(sqs, Array.from({ length: hi - lo + 1 }, (_, k) => lo + k), `file ${i} holds SQ ${lo}..${hi}`);
    }
    const rid = svc.ctx.registers.get('def')?.state.rid ?? -1;
    const stored = await svc.ctx.store.get(rid, 1500);
    const exported = readJou(full.dir, '0001.jou')[500] as JouRecord;
    assert.deepEqual(exported, { SQ: 1500, _: 'Tra', D: stored?.d, data: stored?.data, hash: stored?.hash.toString('hex'), sig: stored?.sig.toString('base64') });
    assert.match(exported.D, /^2026-03-\d\dT12:00:00$/);
    const manifest = readManifest(full.dir);
    assert.deepEqual(
      { format: manifest.format, RN: manifest.RN, firstSQ: manifest.firstSQ, lastSQ: manifest.lastSQ, count: manifest.count, prevHash: manifest.prevHash, keyId: manifest.keyId, exportedAt: manifest.exportedAt },
      { format: 'efr-jou-1', RN: 'def', firstSQ: 1, lastSQ: head, count: head, prevHash: GENESIS, keyId: svc.ctx.signer.keyId, exportedAt: clock.now().toISOString() },
    );
    assert.equal(readFileSync(join(full.dir, 'public.pem'), 'utf8'), readFileSync(join(svc.dataDir, 'keys', 'instance.pub.pem'), 'utf8'));
    assert.match(readFileSync(join(full.dir, 'README.txt'), 'utf8'), /node verify\.mjs/);
  });

  test('verifyZip, efr verify and plain `node verify.mjs` say OK', async () => {
    const report = await verifyZip(full.zip);
    assert.deepEqual({ ok: report.ok, count: report.count, firstSQ: report.firstSQ, lastSQ: report.lastSQ, rn: report.rn, keyId: report.keyId }, { ok: true, count: head, firstSQ: 1, lastSQ: head, rn: 'def', keyId: svc.ctx.signer.keyId });
    const cli = await efrVerify(full.zip);
    assert.equal(cli.code, 0, cli.out);
    assert.equal(cli.out.split('\n')[0], `OK: ${head} records, SQ 1..${head}, chain and signatures verify`);
    const node = runVerifyMjs(full.dir);
    assert.equal(node.status, 0, node.out);
    assert.equal(node.out.split('\n')[0], `OK: ${head} records, SQ 1..${head}, chain and signatures verify`);
  });

  test('one changed byte in one record data is named by verify.mjs, verifyZip and efr verify', async () => {
    const dir = join(work, 'tampered');
    cpSync(full.dir, dir, { recursive: true });
    const file = join(dir, '0001.jou');
    const before = readFileSync(file);
    const lines = before.toString('utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('{"SQ":1234,'));
    assert.ok(i > 0 && (lines[i] ?? '').includes('Article 1'));
    lines[i] = (lines[i] ?? '').replace('Article 1', 'Article 7');
    const after = Buffer.from(lines.join('\n'));
    assert.equal(after.length, before.length);
    assert.equal([...after].filter((b, k) => b !== before[k]).length, 1, 'exactly one byte differs');
    writeFileSync(file, after);

    const node = runVerifyMjs(dir);
    assert.equal(node.status, 1, node.out);
    assert.match(node.out, /^BROKEN at SQ 1234 \(file 0001\.jou\): hash does not match/);

    const zip = join(work, 'tampered.zip');
    await zipFolder(dir, zip);
    const report = await verifyZip(zip);
    assert.equal(report.ok, false);
    assert.deepEqual({ sq: report.broken?.sq, file: report.broken?.file }, { sq: 1234, file: '0001.jou' });
    assert.equal(report.count, 1233);
    const cli = await efrVerify(zip);
    assert.equal(cli.code, 1);
    assert.match(cli.out, /^BROKEN at SQ 1234 \(file 0001\.jou\): hash does not match/);
  });

  test('a period export is the contiguous range of its days; it verifies on its own and joins the full journal', async () => {
    const [, day2, day3] = DAYS as [string, string, string];
    const firstSQ = Math.min(...(sqByDay.get(day2) ?? []));
    const lastSQ = Math.max(...(sqByDay.get(day3) ?? []));
    assert.deepEqual([firstSQ, lastSQ], [PER_DAY + 1, 3 * PER_DAY]);
    const part = await fetchExport('period', `type=jou&rn=def&from=${day2}&till=${day3}`);
    assert.equal(part.res.headers['content-disposition'], `attachment; filename="jou_def_${firstSQ}-${lastSQ}.zip"`);
    const manifest = readManifest(part.dir);
    const fullRecords = [...readJou(full.dir, '0000.jou'), ...readJou(full.dir, '0001.jou')];
    assert.deepEqual(
      { firstSQ: manifest.firstSQ, lastSQ: manifest.lastSQ, count: manifest.count, from: manifest.from, till: manifest.till, prevHash: manifest.prevHash },
      { firstSQ, lastSQ, count: lastSQ - firstSQ + 1, from: day2, till: day3, prevHash: fullRecords[firstSQ - 2]?.hash },
    );
    const names = readdirSync(part.dir).filter((n) => n.endsWith('.jou')).sort();
    assert.deepEqual(names, ['0000.jou', '0001.jou']);
    const records = names.flatMap((n) => readJou(part.dir, n));
    assert.deepEqual(
      records.map((r) => r.SQ),
      Array.from({ length: lastSQ - firstSQ + 1 }, (_, k) => firstSQ + k),
    );
    assert.ok(records.every((r) => r.D.slice(0, 10) >= day2 && r.D.slice(0, 10) <= day3));
    assert.deepEqual(records, fullRecords.slice(firstSQ - 1, lastSQ), 'the same records as in the full export');
    const report = await verifyZip(part.zip);
    assert.deepEqual([report.ok, report.count, report.firstSQ, report.lastSQ], [true, lastSQ - firstSQ + 1, firstSQ, lastSQ]);
    const node = runVerifyMjs(part.dir);
    assert.equal(node.status, 0, node.out);
    assert.match(node.out, new RegExp(`^OK: ${lastSQ - firstSQ + 1} records, SQ ${firstSQ}\\.\\.${lastSQ}, chain`));

    // open periods; query names in any case
    const fromOnly = await download(`Type=jou&RN=def&From=${DAYS[4] ?? ''}`);
    assert.equal(fromOnly.headers['content-disposition'], `attachment; filename="jou_def_${4 * PER_DAY + 1}-${head}.zip"`);
    const tillOnly = await download(`type=jou&till=${DAYS[0] ?? ''}`);
    assert.equal(tillOnly.headers['content-disposition'], `attachment; filename="jou_def_1-${PER_DAY}.zip"`);
  });

  test('refusals name the problem: type, dates, register, empty period, target', async () => {
    const missing = await download('rn=def');
    assert.equal(missing.status, 400);
    assert.match(missing.body.toString(), /type: required; supported export types: jou/);
    const xls = await download('type=xls&rn=def');
    assert.equal(xls.status, 400);
    assert.match(xls.body.toString(), /#INVALID_VALUE/);
    assert.match(xls.body.toString(), /type: \\?"xls\\?" is not supported by this instance; supported export types: jou, dep, tse, dsfinvk, gobd, saft/);
    const other = await download('type=saft&rn=def');
    assert.equal(other.status, 400);
    assert.match(other.body.toString(), /type: saft is not an export of registers of country none/);
    const german = await download('type=dsfinvk&rn=def');
    assert.equal(german.status, 400);
    assert.match(german.body.toString(), /dsfinvk is not an export of registers of country none \(Cfg.Cmp.Ctry\); it is one of registers of DE/);
    const dep = await download('type=dep&rn=def');
    assert.equal(dep.status, 400);
    assert.match(dep.body.toString(), /dep is not an export of registers of country none \(Cfg.Cmp.Ctry\); it is one of registers of AT/);
    const badDate = await download('type=jou&from=2026-02-30');
    assert.equal(badDate.status, 400);
    assert.match(badDate.body.toString(), /from: \\?"2026-02-30\\?" is not a date YYYY-MM-DD/);
    const reversed = await download(`type=jou&from=${DAYS[2] ?? ''}&till=${DAYS[1] ?? ''}`);
    assert.equal(reversed.status, 400);
    assert.match(reversed.body.toString(), /from: 2026-03-11 is after till 2026-03-10/);
    const unknown = await download('type=jou&rn=nope');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.toString(), /#UNKNOWN_REGISTER/);
    const empty = await download('type=jou&rn=def&from=2030-01-01');
    assert.equal(empty.status, 404);
    assert.match(empty.body.toString(), /#NOT_FOUND.*journal records of def dated 2030-01-01/);
    const target = await download(`type=jou&target=${encodeURIComponent(join(work, 'no-such-folder'))}`);
    assert.equal(target.status, 400);
    assert.match(target.body.toString(), /target: a folder that exists on this machine/);
  });

  test('an export taken while receipts are being registered is a consistent, verifiable snapshot', async () => {
    clock.set(new Date(2026, 2, 14, 12, 0, 0));
    const posting = Promise.all(Array.from({ length: 100 }, () => post(`${svc.url}/register`, sale())));
    const live = await fetchExport('live', 'type=jou');
    const answers = await posting;
    assert.ok(answers.every((a) => a.json?.TraC?.Result?.RC === 'OK'));
    const manifest = readManifest(live.dir);
    assert.ok(typeof manifest.lastSQ === 'number' && manifest.lastSQ >= head && manifest.lastSQ <= head + 100);
    const report = await verifyZip(live.zip);
    assert.equal(report.ok, true, report.broken?.reason);
    assert.equal(report.lastSQ, manifest.lastSQ);
  });

  test('a late receipt dated back by the POS stretches the period range to itself, records of other days included', async () => {
    clock.set(new Date(2026, 2, 14, 13, 0, 0));
    const late = await post(`${svc.url}/register`, sale({ D: `${DAYS[1] ?? ''}T09:00:00` }));
    assert.equal(late.json?.TraC?.Result?.RC, 'OK', late.text);
    const lateSq = late.json.TraC.SQ as number;
    const res = await download(`type=jou&from=${DAYS[1] ?? ''}&till=${DAYS[1] ?? ''}`);
    assert.equal(res.headers['content-disposition'], `attachment; filename="jou_def_${PER_DAY + 1}-${lateSq}.zip"`);
    const zip = join(work, 'late.zip');
    writeFileSync(zip, res.body);
    const report = await verifyZip(zip);
    assert.deepEqual([report.ok, report.firstSQ, report.lastSQ], [true, PER_DAY + 1, lateSq]);
  });
});
