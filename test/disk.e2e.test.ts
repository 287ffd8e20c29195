/**
 * Storage over real HTTP: GET /disk and /disk/dir against the files themselves,
 * DiskQuota and a really full disk (a tmpfs of 4 MB) answering #DISK_FULL with nothing journaled and the
 * chain going on once there is room, and POST /disk/clean removing logs, exports and old backups first,
 * journal records only when archived and older than `keep`, the rest still verifying from the cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { formatLocalDateTime } from '../src/register/esr/datetime.js';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import { markArchived } from '../src/register/maintenance/archive-marks.js';
import { get, type HttpAnswer, post, sale, startTestService, tempDir, type TestService } from './helpers.js';

interface Walked {
  total: number;
  top: Record<string, { dirs: number; files: number; size: number }>;
}

/** The data folder as the test sees it. */
function walk(root: string): Walked {
  const out: Walked = { total: 0, top: {} };
  const visit = (abs: string, top: string | undefined): void => {
    for (const name of readdirSync(abs)) {
      const p = join(abs, name);
      const s = lstatSync(p);
      const key = top ?? (s.isDirectory() ? name : '.');
      const u = (out.top[key] ??= { dirs: 0, files: 0, size: 0 });
      if (s.isDirectory()) {
        if (top !== undefined) u.dirs += 1;
        visit(p, key);
      } else {
        u.files += 1;
        u.size += s.size;
        out.total += s.size;
      }
    }
  };
  visit(root, undefined);
  return out;
}

async function download(url: string): Promise<Buffer> {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString('utf8', 0, 300));
  return body;
}

/** GET /export?type=jou, verified with the export's own verifier; the manifest and the records' hashes. */
async function exportAndVerify(svc: TestService, work: string, name: string): Promise<{ firstSQ: number; lastSQ: number; count: number; prevHash: string; hashes: Map<number, string> }> {
  const zip = join(work, `${name}.zip`);
  writeFileSync(zip, await download(`${svc.url}/export?type=jou`));
  const report = await verifyZip(zip);
  assert.ok(report.ok, JSON.stringify(report));
  const { openPromise } = await import('yauzl');
  const z = await openPromise(zip, { lazyEntries: true });
  const texts = new Map<string, string>();
  try {
    for await (const entry of z.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const c of await z.openReadStreamPromise(entry)) chunks.push(c as Buffer);
      texts.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
    }
  } finally {
    z.close();
  }
  const manifest = JSON.parse(texts.get('manifest.json') ?? '{}') as { firstSQ: number; lastSQ: number; count: number; prevHash: string };
  const hashes = new Map<number, string>();
  for (const [n, text] of texts) if (n.endsWith('.jou')) for (const r of JSON.parse(text) as Array<{ SQ: number; hash: string }>) hashes.set(r.SQ, r.hash);
  assert.equal(report.count, manifest.count);
  return { ...manifest, hashes };
}

const setAttributes = (svc: TestService, attributes: string): Promise<HttpAnswer> => post(`${svc.url}/profile`, { Badge: 'B-1', Attributes: attributes });

test('GET /disk answers the storage record that the files give; GET /disk/dir lists every file with time and size', async () => {
  const svc = await startTestService();
  try {
    for (let i = 0; i < 3; i++) assert.equal((await post(`${svc.url}/register`, sale())).status, 200);
    mkdirSync(join(svc.dataDir, 'retrieve', 'x'), { recursive: true });
    writeFileSync(join(svc.dataDir, 'retrieve', 'x', '0000.jou'), 'y'.repeat(12_345));
    writeFileSync(join(svc.dataDir, 'loose.txt'), 'z'.repeat(77));

    const r = await get(`${svc.url}/disk`);
    const seen = walk(svc.dataDir);
    assert.equal(r.status, 200, r.text);
    assert.match(r.contentType, /json/);
    const disk = r.json.Disk;
    assert.equal(typeof disk.Usage, 'number');
    assert.equal(disk.Usage, Number((seen.total / 1_048_576).toFixed(3)));
    assert.deepEqual(disk.Path, seen.top);
    assert.deepEqual(disk.Path.retrieve, { dirs: 1, files: 1, size: 12_345 });
    assert.deepEqual(disk.Path['.'], { dirs: 0, files: 1, size: 77 });
    assert.ok(disk.Path.journal.files >= 1 && disk.Path.journal.size > 0);

    const x = await get(`${svc.url}/disk`, { accept: 'application/xml' });
    assert.match(x.text, /<Disk Usage="\d+\.\d{3}"><Path>/);
    assert.match(x.text, /<Dir Name="retrieve" dirs="1" files="1" size="12345"\/>/);

    const dir = await get(`${svc.url}/disk/dir`);
    assert.equal(dir.status, 200);
    assert.match(dir.contentType, /^text\/plain/);
    const lines = dir.text.trim().split('\n');
    const line = (path: string): string | undefined => lines.find((l) => l.endsWith(`  ${path}`));
    const jou = statSync(join(svc.dataDir, 'retrieve', 'x', '0000.jou'));
    assert.equal(line('retrieve/x/0000.jou'), `${formatLocalDateTime(jou.mtime)}  ${'12345'.padStart(String(walk(svc.dataDir).total).length)}  retrieve/x/0000.jou`);
    assert.match(line('retrieve/')?.trim() ?? '', /^\S+\s+12345\s+retrieve\/$/);
    assert.match(line('keys/instance.pub.pem') ?? '', new RegExp(`\\s${statSync(join(svc.dataDir, 'keys', 'instance.pub.pem')).size}\\s`));
    // every file is listed once
    const files = lines.filter((l) => !l.startsWith('#') && !l.endsWith('/'));
    assert.equal(files.length, Object.values(walk(svc.dataDir).top).reduce((a, u) => a + u.files, 0));
  } finally {
    await svc.stop();
  }
});

test('DiskQuota: a registration that would exceed it is refused with #DISK_FULL, nothing journaled; raising it lets the chain go on', async () => {
  const svc = await startTestService();
  const work = tempDir('efr-disk-');
  try {
    const first = await post(`${svc.url}/register`, sale({ TN: '100' }));
    assert.equal(first.json.TraC.SQ, 1);
    const bad = await setAttributes(svc, 'DiskQuota=abc');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.ProfileC.Result.ErrorCode, '#INVALID_TYPE');
    assert.match(bad.json.ProfileC.Result.UserMessage, /Attributes\.DiskQuota/);
    assert.equal((await setAttributes(svc, 'DiskQuota=0.01')).status, 200);
    assert.equal((await get(`${svc.url}/state`)).json.DiskQuota, 0.01);

    const refused = await post(`${svc.url}/register`, sale());
    assert.equal(refused.status, 406, refused.text);
    assert.equal(refused.json.TraC.Result.RC, 'NO');
    assert.equal(refused.json.TraC.Result.ErrorCode, '#DISK_FULL');
    assert.match(refused.json.TraC.Result.UserMessage, /full/);
    const xml = await post(`${svc.url}/register`, '<Tra><ESR TL="1" TT="1"><PosA><Pos Dsc="Tea" TaxG="A" Amt="1.00"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="1.00"/></PayA></ESR></Tra>', { 'content-type': 'text/xml' });
    assert.equal(xml.status, 406, xml.text);
    assert.match(xml.text, /<ErrorCode>#DISK_FULL<\/ErrorCode>/);
    // no new register is made either
    const other = await post(`${svc.url}/register?rn=other`, sale());
    assert.equal(other.json.TraC.Result.ErrorCode, '#DISK_FULL');
    assert.equal((await get(`${svc.url}/state`)).json.RN, 'def');
    // a retry of the answered transaction still gets its answer
    const again = await post(`${svc.url}/register`, sale({ TN: '100' }));
    assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(again.json.TraC.SQ, 1);
    assert.equal(await svc.ctx.store.count(), 1, 'nothing journaled');
    assert.equal((await get(`${svc.url}/last`)).json.TraC.SQ, 1);

    assert.equal((await setAttributes(svc, 'DiskQuota=200')).status, 200);
    const next = await post(`${svc.url}/register`, sale());
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.TraC.SQ, 2);
    assert.equal(next.json.TraC.ESR.TN, '101');
    const exp = await exportAndVerify(svc, work, 'after-quota');
    assert.equal(exp.count, 2);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

/** Fills a file system to the last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler.bin');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 16, 4096, 1]) {
      const chunk = Buffer.alloc(size, 7);
      for (;;) {
        try {
          if (writeSync(fd, chunk) < size) break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

test('a really full disk (tmpfs of 4 MB): #DISK_FULL, no partial record; after space is freed the chain continues', async (t) => {
  const mnt = tempDir('efr-tmpfs-');
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt], { encoding: 'utf8' });
  if (mount.status !== 0) {
    rmSync(mnt, { recursive: true, force: true });
    t.skip(`mounting a tmpfs is not permitted here (${(mount.stderr || mount.error?.message || '').trim()}): the real full disk is not tested`);
    return;
  }
  const work = tempDir('efr-disk-');
  let svc: TestService | undefined;
  try {
    svc = await startTestService({ dataDir: join(mnt, 'data') });
    for (let i = 1; i <= 3; i++) assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.SQ, i);
    const filler = fill(mnt);
    assert.ok(statSync(filler).size > 1_000_000);

    const full = await post(`${svc.url}/register`, sale());
    assert.equal(full.status, 406, full.text);
    assert.equal(full.json.TraC.Result.RC, 'NO');
    assert.equal(full.json.TraC.Result.ErrorCode, '#DISK_FULL');
    // several at once: all refused the same way, none half-written
    const burst = await Promise.all(Array.from({ length: 5 }, () => post(`${svc!.url}/register`, sale())));
    for (const b of burst) assert.equal(b.json.TraC.Result.ErrorCode, '#DISK_FULL', b.text);
    assert.equal(await svc.ctx.store.count(), 3, 'no record of the refused transactions');
    assert.equal((await svc.ctx.store.loadRegisters())[0]?.sq, 3, 'the stored state did not move');

    unlinkSync(filler);
    const next = await post(`${svc.url}/register`, sale());
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.TraC.SQ, 4, 'SQ continues without a gap');
    assert.equal(next.json.TraC.ESR.TN, '4');
    const exp = await exportAndVerify(svc, work, 'after-full');
    assert.deepEqual([exp.firstSQ, exp.lastSQ, exp.count], [1, 4, 4]);
  } finally {
    await svc?.stop();
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

/** A file of `size` bytes modified at `when`. */
function put(dataDir: string, path: string, size: number, when: Date): void {
  const p = join(dataDir, path);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, Buffer.alloc(size, 1));
  utimesSync(p, when, when);
}

test('POST /disk/clean: logs, exports and old backups go first; journal records only archived and older than keep; the rest verifies and goes on', async () => {
  const clock = new ManualClock(new Date(2026, 4, 4, 9, 0, 0));
  const svc = await startTestService({ clock });
  const work = tempDir('efr-disk-');
  try {
    const reg = async (body: object): Promise<number> => {
      clock.advance(60_000);
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.json.TraC?.Result?.RC, 'OK', r.text);
      return r.json.TraC.SQ as number;
    };
    // May: a day of sales closed by a Z; then November
    for (let i = 0; i < 6; i++) await reg(sale());
    const mayZ = await reg({ Tra: { ESR: { NFS: 'Z' } } });
    clock.set(new Date(2026, 10, 20, 9, 0, 0));
    const firstNov = await reg(sale());
    await reg(sale());
    const novZ = await reg({ Tra: { ESR: { NFS: 'Z' } } });
    clock.set(new Date(2026, 10, 23, 9, 0, 0));
    const afterZ = await reg(sale());
    assert.deepEqual([mayZ, firstNov, novZ, afterZ], [7, 8, 10, 11]);
    const full = await exportAndVerify(svc, work, 'before');

    const old = new Date(2026, 0, 10);
    const recent = new Date(2026, 9, 10);
    put(svc.dataDir, 'log/efr.log', 1000, recent);
    put(svc.dataDir, 'log/efr.1.log', 1_000_000, old);
    put(svc.dataDir, 'retrieve/day/0000.jou', 200_000, recent);
    put(svc.dataDir, 'de/R/backup/tse-1.tar', 100_000, old);
    put(svc.dataDir, 'de/R/backup/dsfinvk-2.zip', 100_000, new Date(2026, 1, 10));
    put(svc.dataDir, 'de/R/backup/tse-3.tar', 100_000, recent);
    put(svc.dataDir, 'de/S/backup/tse-1.tar', 50_000, old);
    // files of an incremental chain, however old: never removed
    put(svc.dataDir, 'backup/def/0001.zip', 100_000, old);
    put(svc.dataDir, 'backup/def/0002.zip', 100_000, old);

    // bad parameters, named
    for (const [q, field] of [['quota=abc', 'quota'], ['quota=-1', 'quota'], ['keep=2999-01-01', 'keep'], ['keep=soon', 'keep']] as const) {
      const bad = await post(`${svc.url}/disk/clean?${q}`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.Result.ErrorCode, '#INVALID_VALUE');
      assert.match(bad.json.Result.UserMessage, new RegExp(`^${field}`));
    }

    // within the quota: nothing goes
    const within = await post(`${svc.url}/disk/clean?quota=100`);
    assert.equal(within.status, 200, within.text);
    assert.equal(within.json.Disk.Clean.Log.files, 0);
    assert.ok(existsSync(join(svc.dataDir, 'log/efr.1.log')));

    // a quota that removing the rotated log alone satisfies: only the log goes
    const total = walk(svc.dataDir).total;
    // over the quota, and 80 % of it is reached by removing 90 % of the log's bytes
    const quotaMb = ((total - 900_000) / 0.8 / 1_048_576).toFixed(6);
    assert.ok(Number(quotaMb) * 1_048_576 < total);
    const logsOnly = await post(`${svc.url}/disk/clean?quota=${quotaMb}`);
    assert.equal(logsOnly.status, 200, logsOnly.text);
    assert.deepEqual(logsOnly.json.Disk.Clean.Log, { files: 1, size: 1_000_000 });
    assert.deepEqual(logsOnly.json.Disk.Clean.Export, { files: 0, size: 0 });
    assert.ok(!existsSync(join(svc.dataDir, 'log/efr.1.log')));
    assert.ok(existsSync(join(svc.dataDir, 'log/efr.log')), 'the log being written stays');
    assert.ok(existsSync(join(svc.dataDir, 'retrieve/day/0000.jou')));
    assert.deepEqual(logsOnly.json.Disk.Path, walk(svc.dataDir).top, 'the answer is the storage record after cleaning');
    assert.equal(await svc.ctx.store.count(), 11);

    // nothing archived yet: exports and old backups go, no journal record
    const noArchive = await post(`${svc.url}/disk/clean?quota=0`);
    assert.equal(noArchive.status, 200, noArchive.text);
    assert.deepEqual(noArchive.json.Disk.Clean.Export, { files: 1, size: 200_000 });
    assert.deepEqual(noArchive.json.Disk.Clean.Backup, { files: 2, size: 200_000 });
    assert.deepEqual(noArchive.json.Disk.Clean.Journal.def, { removed: 0, firstSQ: 1, limit: 'archive' });
    assert.ok(!existsSync(join(svc.dataDir, 'retrieve/day')), 'emptied export folders go too');
    assert.ok(!existsSync(join(svc.dataDir, 'de/R/backup/tse-1.tar')) && !existsSync(join(svc.dataDir, 'de/R/backup/dsfinvk-2.zip')));
    assert.ok(existsSync(join(svc.dataDir, 'de/R/backup/tse-3.tar')), 'a backup newer than keep stays');
    assert.ok(existsSync(join(svc.dataDir, 'de/S/backup/tse-1.tar')), 'the newest backup of a folder stays');
    assert.ok(existsSync(join(svc.dataDir, 'backup/def/0001.zip')) && existsSync(join(svc.dataDir, 'backup/def/0002.zip')), 'an incremental chain stays');
    assert.equal(await svc.ctx.store.count(), 11);

    // a backup inside the data folder is no archive: nothing of the journal goes
    await markArchived(svc.ctx.store, 'def', { sq: 2, at: clock.now().toISOString(), kind: 'incremental', file: join(svc.dataDir, 'backup', 'def', '0002.zip') });
    const sameDisk = await post(`${svc.url}/disk/clean?quota=0`);
    assert.deepEqual(sameDisk.json.Disk.Clean.Journal.def, { removed: 0, firstSQ: 1, limit: 'archive' });
    assert.equal(await svc.ctx.store.count(), 11);

    // archived up to SQ 3: only SQ 1..3 go
    await markArchived(svc.ctx.store, 'def', { sq: 3, at: clock.now().toISOString(), kind: 'backup', file: 'def-3.zip' });
    const part = await post(`${svc.url}/disk/clean?quota=0`, undefined, { accept: 'application/xml' });
    assert.equal(part.status, 200, part.text);
    assert.match(part.text, /<Register RN="def" removed="3" firstSQ="4" limit="archive"\/>/);
    assert.equal(await svc.ctx.store.count(), 8);

    // everything archived: the records before keep (default: from 2026-08-01) go, November's stay
    await markArchived(svc.ctx.store, 'def', { sq: 11, at: clock.now().toISOString(), kind: 'backup' });
    const byKeep = await post(`${svc.url}/disk/clean?quota=0`);
    assert.deepEqual(byKeep.json.Disk.Clean.Journal.def, { removed: 4, firstSQ: firstNov, limit: 'keep' });
    const after = await exportAndVerify(svc, work, 'after-keep');
    assert.deepEqual([after.firstSQ, after.lastSQ, after.count], [firstNov, 11, 11 - firstNov + 1]);
    assert.equal(after.prevHash, full.hashes.get(firstNov - 1), 'the remaining chain hangs on the hash of the last removed record');
    for (const [sq, h] of after.hashes) assert.equal(h, full.hashes.get(sq));

    // keep=0 (today only): still never the last Z, the records after it, the last of each type
    const byNeed = await post(`${svc.url}/disk/clean?quota=0&keep=0`);
    assert.deepEqual(byNeed.json.Disk.Clean.Journal.def, { removed: novZ - firstNov, firstSQ: novZ, limit: 'needed' });
    assert.equal((await get(`${svc.url}/last`)).json.TraC.SQ, 11);
    assert.equal((await get(`${svc.url}/find?fn=1`)).json.Find.Count, '0');

    // the register goes on: SQ, TN and the chain; the next Z folds what came after the last one
    const more = await post(`${svc.url}/register`, sale());
    assert.equal(more.json.TraC.SQ, 12);
    const z = await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'Z' } } });
    assert.equal(z.json.TraC.Result.RC, 'OK', z.text);
    assert.equal(z.json.TraC.Z.T, '9.40');
    const last = await exportAndVerify(svc, work, 'after-need');
    assert.deepEqual([last.firstSQ, last.lastSQ], [novZ, 13]);
    assert.deepEqual((await get(`${svc.url}/disk`)).json.Disk.Path, walk(svc.dataDir).top);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('POST /disk/clean: a register named backup keeps its TSE keys; an incremental chain in the data folder stays whole and restores', async () => {
  const clock = new ManualClock(new Date(2026, 10, 23, 9, 0, 0));
  const svc = await startTestService({ clock });
  const b = await startTestService();
  try {
    const de = { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } };
    assert.equal((await post(`${svc.url}/cfg?rn=backup`, de)).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await post(`${svc.url}/register?rn=backup`, sale())).json.TraC.Result.RC, 'OK');
    for (let i = 0; i < 3; i++) assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
    // the TSE of register `backup` keeps its key and state in de/backup/
    const tse = join(svc.dataDir, 'de', 'backup');
    const tseFiles = readdirSync(tse).filter((n) => statSync(join(tse, n)).isFile()).sort();
    assert.ok(tseFiles.includes('tse.key.pem'), tseFiles.join(' '));
    // the incremental backups go into <data>/backup (/service/config): <data>/backup/def/0001.zip, 0002.zip
    const root = join(svc.dataDir, 'backup');
    mkdirSync(root);
    const form = await post(`${svc.url}/service/config`, `path=${encodeURIComponent(root)}`, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 200, form.text);
    assert.equal((await get(`${svc.url}/backup/incremental`)).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
    const second = await get(`${svc.url}/backup/incremental`);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(readdirSync(join(root, 'def')).sort(), ['0001.zip', '0002.zip']);
    // German backups of register backup, and everything made long ago
    put(svc.dataDir, 'de/backup/backup/tse-20260110-034000.tar', 40_000, new Date(2026, 0, 10));
    put(svc.dataDir, 'de/backup/backup/tse-20260210-034000.tar', 40_000, new Date(2026, 1, 10));
    const old = new Date(2026, 0, 1);
    const kept = [...tseFiles.map((n) => `de/backup/${n}`), 'backup/def/0001.zip', 'backup/def/0002.zip'];
    const bytes = new Map(kept.map((p) => [p, readFileSync(join(svc.dataDir, p))]));
    for (const p of kept) utimesSync(join(svc.dataDir, p), old, old);

    const clean = await post(`${svc.url}/disk/clean?quota=0`);
    assert.equal(clean.status, 200, clean.text);
    assert.deepEqual(clean.json.Disk.Clean.Backup, { files: 1, size: 40_000 }, 'only the older TSE backup');
    assert.ok(!existsSync(join(svc.dataDir, 'de/backup/backup/tse-20260110-034000.tar')));
    assert.ok(existsSync(join(svc.dataDir, 'de/backup/backup/tse-20260210-034000.tar')), 'the newest TSE backup stays');
    for (const [p, data] of bytes) assert.deepEqual(readFileSync(join(svc.dataDir, p)), data, `${p} stays as it was`);
    // the TSE goes on signing
    assert.equal((await post(`${svc.url}/register?rn=backup`, sale())).json.TraC.Result.RC, 'OK');

    // the chain restores whole on another instance
    const restored = await post(`${b.url}/backup/restore?path=${encodeURIComponent(join(root, 'def'))}`);
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.json.Restore.lastSQ, 5);
  } finally {
    await svc.stop();
    await b.stop();
  }
});

test('POST /disk/clean of many records: registrations go on meanwhile; a journal without auto_vacuum is not rewritten, later records reuse its space', async () => {
  const dataDir = tempDir('efr-disk-');
  const file = join(dataDir, 'journal', 'journal.sqlite');
  // a journal made before cleaning existed: auto_vacuum=0
  mkdirSync(join(dataDir, 'journal'));
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  old.exec(`CREATE TABLE journal (rid INTEGER NOT NULL, sq INTEGER NOT NULL, type TEXT NOT NULL, d TEXT NOT NULL, tl TEXT, tt TEXT, tn TEXT, fn TEXT, t TEXT, nfs TEXT, bc TEXT,
    ch BLOB, rh BLOB, ref TEXT, resume TEXT, data BLOB NOT NULL, hash BLOB NOT NULL, sig BLOB NOT NULL, UNIQUE (rid, sq));`);
  old.close();
  const pragma = (name: string): number => {
    const db = new Database(file, { readonly: true });
    try {
      return db.pragma(name, { simple: true }) as number;
    } finally {
      db.close();
    }
  };
  const clock = new ManualClock(new Date(2026, 4, 4, 9, 0, 0));
  const svc = await startTestService({ clock, dataDir });
  const work = tempDir('efr-disk-');
  try {
    // May: 3000 sales, 30 at a time; a Z
    const MANY = 3000;
    for (let i = 0; i < MANY; i += 30) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => post(`${svc.url}/register`, sale())));
      for (const a of answers) assert.equal(a.json.TraC?.Result?.RC, 'OK', a.text);
    }
    assert.equal((await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'Z' } } })).json.TraC.SQ, MANY + 1);
    clock.set(new Date(2026, 10, 23, 9, 0, 0));
    await markArchived(svc.ctx.store, 'def', { sq: MANY + 1, at: clock.now().toISOString(), kind: 'backup', file: '/elsewhere/def.zip' });

    // the cleaning and registrations at the same time
    let cleaned = false;
    const cleaning = post(`${svc.url}/disk/clean?quota=0`).then((r) => {
      cleaned = true;
      return r;
    });
    const during: HttpAnswer[] = [];
    while (!cleaned) during.push(await post(`${svc.url}/register`, sale()));
    const clean = await cleaning;
    assert.equal(clean.status, 200, clean.text);
    assert.deepEqual(clean.json.Disk.Clean.Journal.def, { removed: MANY, firstSQ: MANY + 1, limit: 'needed' });
    assert.ok(during.length >= 1);
    during.forEach((r, i) => {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.TraC.SQ, MANY + 2 + i, 'in order, no gap');
    });

    // not rewritten: the freed pages stay for the next records (the file's size is taken after the cleaning:
    // a registration during it may have needed a page before the first step had freed any)
    assert.equal(pragma('auto_vacuum'), 0);
    const free = pragma('freelist_count');
    const pages = pragma('page_count');
    assert.ok(free > 50, `free pages: ${free}`);
    for (let i = 0; i < 300; i += 30) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => post(`${svc.url}/register`, sale())));
      for (const a of answers) assert.equal(a.status, 200, a.text);
    }
    assert.ok(pragma('freelist_count') < free, `reused: ${pragma('freelist_count')} < ${free}`);
    assert.ok(pragma('page_count') <= pages, `the file did not grow: ${pragma('page_count')} <= ${pages}`);
    const exp = await exportAndVerify(svc, work, 'after-many');
    assert.equal(exp.firstSQ, MANY + 1);
    assert.equal(exp.lastSQ, MANY + 1 + during.length + 300);
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});
