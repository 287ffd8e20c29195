/**
 * Backup and restore over real HTTP with real data folders: a backup taken while
 * transactions keep arriving restores into a fresh instance whose journal verifies and whose next
 * transaction continues SQ, TN and (Austria) the RKSV chain; refusals IN_USE and ONLINE; numbered
 * incremental files; `last`; GET /backup?log as GET /backup/log.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'undici';
import { openPromise } from 'yauzl';
import { ZipFile } from 'yazl';
import { verifyDepZip } from '../src/register/fiscal/at/verify-dep.js';
import { verifyZip } from '../src/register/journal/export/verify-zip.js';
import type { JournalRecord } from '../src/register/journal/types.js';
import { archivedUpTo } from '../src/register/maintenance/archive-marks.js';
import { ROOT, get, post, sale, startTestService, tempDir, unzip, type TestService } from './helpers.js';

interface Download {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

async function download(url: string): Promise<Download> {
  const r = await request(url);
  const body = Buffer.from(await r.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') headers[k] = v;
  return { status: r.statusCode, headers, body };
}

interface Manifest {
  name: string;
  RN: string;
  kind: string;
  firstSQ: number;
  lastSQ: number;
  count: number;
  prevHash: string;
  lastHash: string;
}

/** The zip's manifest, state and records (SQ of each line of journal.jsonl). */
async function readBackup(zip: Buffer): Promise<{ manifest: Manifest; state: { sq: number; tn: Record<string, { n: number }> }; sqs: number[]; names: string[] }> {
  const dir = tempDir('efr-backup-read-');
  try {
    const files = await unzip(zip, dir);
    const lines = (files['journal.jsonl'] ?? '').split('\n').filter((l) => l !== '');
    return {
      manifest: JSON.parse(files['manifest.json'] as string) as Manifest,
      state: JSON.parse(files['state.json'] as string) as { sq: number; tn: Record<string, { n: number }> },
      sqs: lines.map((l) => (JSON.parse(l) as { sq: number }).sq),
      names: Object.keys(files).sort(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** GET /export?type=jou of the service, checked by the in-process verifier. */
async function verifyJournalExport(svc: TestService, work: string): Promise<{ ok: boolean; count: number; lastSQ: number; zip: string }> {
  const exp = await download(`${svc.url}/export?type=jou`);
  assert.equal(exp.status, 200, exp.body.toString());
  const zip = join(work, `jou-${Date.now()}.zip`);
  writeFileSync(zip, exp.body);
  const report = await verifyZip(zip);
  return { ok: report.ok, count: report.count, lastSQ: report.lastSQ, zip };
}

/** The zip with its entries passed through `change`. */
async function rezip(zip: Buffer, change: (name: string, data: Buffer) => Buffer): Promise<Buffer> {
  const dir = tempDir('efr-backup-rezip-');
  try {
    await unzip(zip, dir);
    const out = new ZipFile();
    const z = await openPromise(join(dir, 'in.zip'), { lazyEntries: true, autoClose: false });
    try {
      for await (const e of z.eachEntry()) {
        const chunks: Buffer[] = [];
        for await (const c of await z.openReadStreamPromise(e)) chunks.push(c as Buffer);
        out.addBuffer(change(e.fileName, Buffer.concat(chunks)), e.fileName);
      }
    } finally {
      z.close();
    }
    out.end();
    const parts: Buffer[] = [];
    for await (const c of out.outputStream) parts.push(c as Buffer);
    return Buffer.concat(parts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The zip with more entries under files/, listed with their SHA-256 in the manifest as a real backup lists them. */
async function withFiles(zip: Buffer, files: Record<string, Buffer>): Promise<Buffer> {
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  const changed = await rezip(zip, (name, data) => {
    if (name !== 'manifest.json') return data;
    const m = JSON.parse(data.toString('utf8')) as { sha256: Record<string, string> };
    for (const [path, content] of Object.entries(files)) m.sha256[`files/${path}`] = sha(content);
    return Buffer.from(JSON.stringify(m));
  });
  const dir = tempDir('efr-backup-add-');
  try {
    await unzip(changed, dir);
    const out = new ZipFile();
    const z = await openPromise(join(dir, 'in.zip'), { lazyEntries: true, autoClose: false });
    try {
      for await (const e of z.eachEntry()) {
        const chunks: Buffer[] = [];
        for await (const c of await z.openReadStreamPromise(e)) chunks.push(c as Buffer);
        out.addBuffer(Buffer.concat(chunks), e.fileName);
      }
    } finally {
      z.close();
    }
    for (const [path, content] of Object.entries(files)) out.addBuffer(content, `files/${path}`);
    out.end();
    const parts: Buffer[] = [];
    for await (const c of out.outputStream) parts.push(c as Buffer);
    return Buffer.concat(parts);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Holds back the commits of the service's real journal store that `select` picks, until release(): the
 * store writes them afterwards, in the order they came. `held` settles when the first one is waiting.
 */
function holdCommits(svc: TestService, select: (records: readonly JournalRecord[]) => boolean = () => true): { held: Promise<void>; release: () => void } {
  const store = svc.ctx.store;
  const real = store.append.bind(store);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  store.append = async (records, states) => {
    if (select(records)) {
      reached();
      await gate;
    }
    return real(records, states);
  };
  return {
    held,
    release() {
      store.append = real;
      open();
    },
  };
}

/** Waits until the last backup result (GET /service/config) names `pattern`: the backup was noted. */
async function noted(svc: TestService, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await get(`${svc.url}/service/config`, { accept: 'application/json' });
    const info = String(r.json?.ServiceConfig?.LastBackup?.info ?? '');
    if (pattern.test(info)) return;
    if (Date.now() > deadline) assert.fail(`the backup was not noted: ${info}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function register(svc: TestService, extra: Record<string, unknown> = {}, positions?: Array<[string, string]>): Promise<{ sq: number; tn: string; body: Record<string, unknown> }> {
  const r = await post(`${svc.url}/register`, positions ? sale(extra, positions) : sale(extra));
  assert.equal(r.json?.TraC?.Result?.RC, 'OK', r.text);
  return { sq: Number(r.json.TraC.SQ ?? r.json.TraC.ESR?.SQ), tn: String(r.json.TraC.ESR.TN), body: r.json.TraC };
}

async function restoreBody(svc: TestService, zip: Buffer, query = ''): Promise<{ status: number; json: { Result: { RC: string; ErrorCode?: string; UserMessage?: string }; Restore?: { state: string; lastSQ: number; records: number } }; text: string }> {
  const r = await request(`${svc.url}/backup/restore${query}`, { method: 'POST', body: zip, headers: { 'content-type': 'application/zip' } });
  const text = await r.body.text();
  return { status: r.statusCode, json: JSON.parse(text), text };
}

describe('backup and restore', () => {
  test('a backup taken under load restores into a fresh data folder: the chain verifies, SQ and TN continue', async () => {
    const work = tempDir('efr-backup-work-');
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 20; i++) await register(a);
      // 40 more transactions are sealed (SQ 21 to 60 given out) but their commits are still pending when
      // the backup is planned; they are committed while the zip is streamed
      const hold = holdCommits(a);
      const load = Promise.all(Array.from({ length: 40 }, () => register(a)));
      await hold.held;
      const def = a.ctx.registers.get('def');
      for (let waited = 0; def?.state.sq !== 60; waited += 10) {
        assert.ok(waited < 10_000, `only SQ ${def?.state.sq} sealed`);
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(def.pending.size, 40, 'SQ 21 to 60 are being committed');
      const response = await request(`${a.url}/backup`);
      assert.equal(def.pending.size, 40, 'still pending once the backup was planned (the headers are sent after it)');
      hold.release();
      const backup: Download = { status: response.statusCode, headers: Object.fromEntries(Object.entries(response.headers).filter((e): e is [string, string] => typeof e[1] === 'string')), body: Buffer.from(await response.body.arrayBuffer()) };
      const loaded = await load;
      assert.deepEqual(loaded.map((x) => x.sq).sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 21), 'the pending ones were all committed');
      assert.equal(backup.status, 200, backup.body.toString());
      assert.equal(backup.headers['content-type'], 'application/zip');
      const { manifest, state, sqs, names } = await readBackup(backup.body);
      assert.equal(manifest.lastSQ, 20, 'the backup holds what was committed when it was planned, not the pending records');
      assert.equal(backup.headers['content-disposition'], `attachment; filename=def_${manifest.lastSQ}.zip`);
      assert.equal(manifest.name, `def_${manifest.lastSQ}`);
      assert.deepEqual(sqs, Array.from({ length: manifest.lastSQ }, (_, i) => i + 1), 'every record up to the committed SQ, once');
      assert.equal(state.sq, manifest.lastSQ, 'the state is the one of the last record');
      assert.ok(names.includes('files/keys/instance.key.pem') && names.includes('state.json') && names.includes('settings.json'));

      const restored = await restoreBody(b, backup.body);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.json.Result.RC, 'OK');
      assert.equal(restored.json.Restore?.state, 'DONE');
      const info = await get(`${b.url}/backup/info`);
      assert.equal(info.json.state, 'DONE');
      assert.equal(info.json.records, manifest.lastSQ);
      assert.equal(info.json.lastSQ, manifest.lastSQ);
      assert.equal(readFileSync(join(b.dataDir, 'keys', 'instance.pub.pem'), 'utf8'), readFileSync(join(a.dataDir, 'keys', 'instance.pub.pem'), 'utf8'));

      const next = await register(b);
      assert.equal(next.sq, manifest.lastSQ + 1, 'SQ continues');
      assert.equal(Number(next.tn), (state.tn['1/1']?.n ?? 0) + 1, 'TN continues');
      const verified = await verifyJournalExport(b, work);
      assert.equal(verified.ok, true);
      assert.equal(verified.count, manifest.lastSQ + 1);
      // the real `efr verify` command agrees
      const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', verified.zip], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      assert.equal(cli.status, 0, `${cli.stdout}${cli.stderr}`);

      // a restore over the register now in use is refused, and changes nothing
      const again = await restoreBody(b, backup.body);
      assert.equal(again.status, 409, again.text);
      assert.equal(again.json.Result.RC, 'BAD');
      assert.match(again.text, /IN_USE/);
      assert.equal((await get(`${b.url}/backup/info`)).json.state, 'IN_USE');
      assert.equal((await register(b)).sq, manifest.lastSQ + 2);
    } finally {
      await a.stop();
      await b.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('Austria: the restored cashbox continues its RKSV chain (DEP verifies across the restore)', async () => {
    const work = tempDir('efr-backup-at-');
    const a = await startTestService();
    const b = await startTestService();
    const c = tempDir('efr-backup-at-used-');
    try {
      assert.equal((await post(`${a.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: 'ATU12345678' } } })).status, 200);
      for (let i = 0; i < 5; i++) await register(a);
      const backup = await download(`${a.url}/backup`);
      assert.equal(backup.status, 200);
      const { manifest, names } = await readBackup(backup.body);
      assert.ok(names.some((n) => /^files\/at\/1\/device-0\/key\.pem$/.test(n)), names.join(' '));
      assert.ok(names.includes('files/at/1/aes.key'));

      // an instance where the cashbox's folder exists is in use
      mkdirSync(join(c, 'at', '1'), { recursive: true });
      const used = await startTestService({ dataDir: c });
      try {
        const refused = await restoreBody(used, backup.body);
        assert.equal(refused.status, 409, refused.text);
        assert.match(refused.json.Result.UserMessage ?? '', /IN_USE.*at\/1/);
        assert.deepEqual(readdirSync(join(c, 'at', '1')), [], 'nothing written into the folder in use');
      } finally {
        await used.stop();
      }

      // restored from a path (the zip as a file on this machine)
      const file = join(work, `${manifest.name}.zip`);
      writeFileSync(file, backup.body);
      const restored = await get(`${b.url}/backup/restore?path=${encodeURIComponent(file)}`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.json.Restore.state, 'DONE');
      const next = await register(b);
      assert.equal(next.sq, manifest.lastSQ + 1);
      const dep = await download(`${b.url}/export?type=dep&aes=1`);
      assert.equal(dep.status, 200, dep.body.toString());
      const depZip = join(work, 'dep.zip');
      writeFileSync(depZip, dep.body);
      const report = await verifyDepZip(depZip);
      assert.equal(report.ok, true, JSON.stringify(report.broken));
      assert.equal(report.counterChecked, true);
      // the start receipt and five sales from A, the sale of B: one chain
      assert.equal(report.count, 7);
      assert.equal((await verifyJournalExport(b, work)).ok, true);
    } finally {
      await a.stop();
      await b.stop();
      rmSync(work, { recursive: true, force: true });
      rmSync(c, { recursive: true, force: true });
    }
  });

  test('a restore onto an instance that registered since it started is refused (ONLINE); a broken zip changes nothing', async () => {
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 3; i++) await register(a);
      const backup = await download(`${a.url}/backup`);
      // one amount of one record changed (the zip itself is sound)
      const broken = await rezip(backup.body, (name, data) => (name === 'journal.jsonl' ? Buffer.from(data.toString('utf8').replace('3.50', '3.60')) : data));
      const bad = await restoreBody(b, broken);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.Result.RC, 'BAD');
      assert.match(bad.json.Result.UserMessage ?? '', /SQ 1: the hash does not match/);
      assert.equal((await get(`${b.url}/backup/info`)).json.state, 'FAILED');
      assert.equal(existsSync(join(b.dataDir, 'profile')), false);
      assert.deepEqual(readdirSync(b.dataDir).filter((n) => n.startsWith('restore.tmp')), [], 'no staging left');

      assert.equal((await post(`${b.url}/register?rn=other`, sale({ RN: 'other' }))).json.TraC.Result.RC, 'OK');
      const online = await restoreBody(b, backup.body);
      assert.equal(online.status, 409, online.text);
      assert.match(online.text, /ONLINE/);
      assert.equal((await get(`${b.url}/backup/info`)).json.state, 'ONLINE');
      const state = await get(`${b.url}/state`);
      assert.equal(state.status, 200);
      // def was not restored: its first transaction is SQ 1
      assert.equal((await register(b)).sq, 1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('incremental backups: numbered files, each with what came after the one before; the folder restores', async () => {
    const root = tempDir('efr-backup-inc-');
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 4; i++) await register(a);
      // the path preset by /service/config
      const form = await post(`${a.url}/service/config`, `path=${encodeURIComponent(root)}`, { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(form.status, 200, form.text);
      assert.match(form.text, /<form/);
      const first = await get(`${a.url}/backup/incremental`);
      assert.equal(first.status, 200, first.text);
      assert.match(first.contentType, /^text\/plain/);
      assert.match(first.text, /SQ 1 to 4 \(4\)/);
      for (let i = 0; i < 3; i++) await register(a);
      const second = await get(`${a.url}/backup/incremental?path=${encodeURIComponent(root)}`);
      assert.match(second.text, /SQ 5 to 7 \(3\)/);
      const third = await get(`${a.url}/backup/incremental`);
      assert.match(third.text, /none new since SQ 7/);
      const dir = join(root, 'def');
      assert.deepEqual(readdirSync(dir).sort(), ['0001.zip', '0002.zip', '0003.zip']);
      const m = await Promise.all(['0001.zip', '0002.zip', '0003.zip'].map((n) => readBackup(readFileSync(join(dir, n)))));
      assert.deepEqual(m.map((x) => [x.manifest.firstSQ, x.manifest.lastSQ]), [[1, 4], [5, 7], [8, 7]]);
      assert.deepEqual(m.map((x) => x.sqs), [[1, 2, 3, 4], [5, 6, 7], []]);
      assert.equal(m[1]?.manifest.prevHash, m[0]?.manifest.lastHash);
      const page = await get(`${a.url}/service/config`);
      assert.match(page.text, /incremental backup of register def/);
      assert.ok(page.text.includes(join(dir, '0003.zip')));

      // the folder: applied in order
      const restored = await post(`${b.url}/backup/restore?path=${encodeURIComponent(dir)}`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.json.Restore.lastSQ, 7);
      assert.equal((await register(b)).sq, 8);
      const work = tempDir('efr-backup-inc-v-');
      try {
        const v = await verifyJournalExport(b, work);
        assert.deepEqual([v.ok, v.count], [true, 8]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      // a later file alone does not start at SQ 1
      const c = await startTestService();
      try {
        const alone = await restoreBody(c, readFileSync(join(dir, '0002.zip')));
        assert.equal(alone.status, 400, alone.text);
        assert.match(alone.json.Result.UserMessage ?? '', /SQ 1/);
      } finally {
        await c.stop();
      }
    } finally {
      await a.stop();
      await b.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('GET /backup?last= gives only what came after; bad last and from are BAD; ?log answers as /backup/log', async () => {
    const a = await startTestService();
    try {
      for (let i = 0; i < 5; i++) await register(a);
      const full = await download(`${a.url}/backup`);
      const name = /filename=(.+)$/.exec(full.headers['content-disposition'] ?? '')?.[1];
      assert.equal(name, 'def_5.zip');
      for (let i = 0; i < 2; i++) await register(a);
      const inc = await download(`${a.url}/backup?last=${name}`);
      assert.equal(inc.status, 200);
      assert.equal(inc.headers['content-disposition'], 'attachment; filename=def_7.zip');
      const read = await readBackup(inc.body);
      assert.deepEqual(read.sqs, [6, 7]);
      assert.equal(read.manifest.kind, 'incremental');
      assert.equal(read.manifest.prevHash, (await readBackup(full.body)).manifest.lastHash);
      // nothing new: the same name again, no records
      const none = await download(`${a.url}/backup?last=def_7`);
      assert.equal(none.headers['content-disposition'], 'attachment; filename=def_7.zip');
      assert.deepEqual((await readBackup(none.body)).sqs, []);
      // the two together restore
      const b = await startTestService();
      const dir = tempDir('efr-backup-last-');
      try {
        writeFileSync(join(dir, '1.zip'), full.body);
        writeFileSync(join(dir, '2.zip'), inc.body);
        const r = await post(`${b.url}/backup/restore?path=${encodeURIComponent(dir)}`);
        assert.equal(r.status, 200, r.text);
        assert.equal((await register(b)).sq, 8);
      } finally {
        await b.stop();
        rmSync(dir, { recursive: true, force: true });
      }

      for (const q of ['last=def_99', 'last=other_3', 'last=nonsense', 'from=2024-13-45', 'from=yesterday']) {
        const r = await get(`${a.url}/backup?${q}`);
        assert.equal(r.status, 400, `${q}: ${r.text}`);
        assert.equal(r.json.Result.RC, 'BAD');
        assert.match(r.json.Result.UserMessage, /^(last|from)/, q);
      }
      const fromToday = await download(`${a.url}/backup?from=2000-01-01`);
      assert.equal((await readBackup(fromToday.body)).manifest.kind, 'full');

      const viaFlag = await download(`${a.url}/backup?log&from=2000-01-01`);
      const direct = await download(`${a.url}/backup/log?from=2000-01-01`);
      assert.equal(viaFlag.status, direct.status);
      assert.equal(viaFlag.headers['content-type'], direct.headers['content-type']);
      assert.equal(viaFlag.headers['content-disposition'], direct.headers['content-disposition']);
      if (direct.headers['content-type'] === 'application/zip') {
        const dirA = tempDir('efr-log-a-');
        const dirB = tempDir('efr-log-b-');
        try {
          assert.deepEqual(Object.keys(await unzip(viaFlag.body, dirA)).sort(), Object.keys(await unzip(direct.body, dirB)).sort());
        } finally {
          rmSync(dirA, { recursive: true, force: true });
          rmSync(dirB, { recursive: true, force: true });
        }
      } else {
        assert.equal(viaFlag.body.toString(), direct.body.toString());
      }
      // the restore page
      const page = await get(`${a.url}/backup/restore`);
      assert.equal(page.status, 200);
      assert.match(page.text, /<form method="post" action="\/backup\/restore"/);
    } finally {
      await a.stop();
    }
  });
  test('the archive mark: only for a backup joining what is archived; never for HEAD or a client\'s `last` alone', async () => {
    const a = await startTestService();
    try {
      for (let i = 0; i < 6; i++) await register(a);
      const mark = async (): Promise<number | undefined> => (await archivedUpTo(a.ctx.store, 'def'))?.sq;
      // a) `last` names the head: an empty zip, nothing was ever handed over
      const head = await download(`${a.url}/backup?last=def_6`);
      assert.equal(head.status, 200);
      await noted(a, /def_6\.zip: SQ 7 to 6 \(0 records\)/);
      assert.equal(await mark(), undefined, 'no mark from a client\'s `last`');
      // SQ 4 to 6 continue nothing archived: SQ 1 to 3 are in no backup this instance handed over
      const tail = await download(`${a.url}/backup?last=def_3`);
      assert.deepEqual((await readBackup(tail.body)).sqs, [4, 5, 6]);
      await noted(a, /def_6\.zip: SQ 4 to 6 \(3 records\)/);
      assert.equal(await mark(), undefined);
      // b) HEAD: the headers, no zip, no mark
      const probe = await request(`${a.url}/backup`, { method: 'HEAD' });
      await probe.body.dump();
      assert.equal(probe.statusCode, 200);
      assert.equal(probe.headers['content-disposition'], 'attachment; filename=def_6.zip');
      const incremental = await download(`${a.url}/backup?last=def_5`);
      assert.deepEqual((await readBackup(incremental.body)).sqs, [6]);
      await noted(a, /def_6\.zip: SQ 6 to 6 \(1 records\)/);
      assert.equal(await mark(), undefined, 'HEAD marked nothing');
      // a full backup marks; one continuing it (or overlapping it) moves the mark on
      await download(`${a.url}/backup`);
      await noted(a, /full backup def_6\.zip/);
      assert.equal(await mark(), 6);
      for (let i = 0; i < 3; i++) await register(a);
      await download(`${a.url}/backup?last=def_5`);
      await noted(a, /def_9\.zip: SQ 6 to 9/);
      assert.equal(await mark(), 9);
      // cleaning removes only what is archived: with nothing beyond SQ 9 archived, SQ 10 stays
      for (let i = 0; i < 2; i++) await register(a);
      const tooFar = await download(`${a.url}/backup?last=def_10`);
      assert.equal(tooFar.status, 200);
      await noted(a, /def_11\.zip: SQ 11 to 11/);
      assert.equal(await mark(), 9, 'SQ 10 is in no backup: SQ 11 alone does not join the archive');
    } finally {
      await a.stop();
    }
  });

  test('an incremental folder of another instance with the same RN is refused, never continued or marked', async () => {
    const root = tempDir('efr-backup-nas-');
    const a = await startTestService();
    const b = await startTestService();
    // c has a's instance key (a copied data folder's keys) but a journal of its own
    const cDir = tempDir('efr-backup-copy-');
    cpSync(join(a.dataDir, 'keys'), join(cDir, 'keys'), { recursive: true });
    const c = await startTestService({ dataDir: cDir });
    try {
      for (let i = 0; i < 5; i++) await register(a);
      const first = await get(`${a.url}/backup/incremental?path=${encodeURIComponent(root)}`);
      assert.equal(first.status, 200, first.text);
      assert.equal((await archivedUpTo(a.ctx.store, 'def'))?.sq, 5);
      const dir = join(root, 'def');
      const before = readFileSync(join(dir, '0001.zip'));

      for (let i = 0; i < 8; i++) await register(b);
      const other = await get(`${b.url}/backup/incremental?path=${encodeURIComponent(root)}`);
      assert.equal(other.status, 400, other.text);
      assert.equal(other.json.Result.RC, 'BAD');
      assert.match(other.json.Result.UserMessage, /^path.*0001\.zip is not a backup of this instance's register def: it was signed with the instance key/);

      for (let i = 0; i < 8; i++) await register(c, {}, [['A', '9.99']]);
      assert.equal(c.ctx.signer.keyId, a.ctx.signer.keyId);
      const copy = await get(`${c.url}/backup/incremental?path=${encodeURIComponent(root)}`);
      assert.equal(copy.status, 400, copy.text);
      assert.match(copy.json.Result.UserMessage, /its record SQ 5 differs from this journal's/);

      assert.deepEqual(readdirSync(dir), ['0001.zip'], 'nothing written beside the other instance\'s file');
      assert.ok(readFileSync(join(dir, '0001.zip')).equals(before));
      assert.equal(await archivedUpTo(b.ctx.store, 'def'), undefined, 'b marked nothing archived');
      assert.equal(await archivedUpTo(c.ctx.store, 'def'), undefined, 'c marked nothing archived');
      // a itself goes on with its folder
      await register(a);
      const next = await get(`${a.url}/backup/incremental?path=${encodeURIComponent(root)}`);
      assert.match(next.text, /SQ 6 to 6 \(1\)/);
      assert.equal((await archivedUpTo(a.ctx.store, 'def'))?.sq, 6);
    } finally {
      await a.stop();
      await b.stop();
      await c.stop();
      rmSync(root, { recursive: true, force: true });
      rmSync(cDir, { recursive: true, force: true });
    }
  });

  test('concurrent incremental backups take one number each; none overwrites another', async () => {
    const root = tempDir('efr-backup-conc-');
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 4; i++) await register(a);
      const path = encodeURIComponent(root);
      assert.equal((await get(`${a.url}/backup/incremental?path=${path}`)).status, 200);
      for (let i = 0; i < 30; i++) await register(a);
      const answers = await Promise.all(Array.from({ length: 4 }, () => get(`${a.url}/backup/incremental?path=${path}`)));
      for (const r of answers) assert.equal(r.status, 200, r.text);
      const numbers = answers.map((r) => Number(/incremental backup (\d+) written/.exec(r.text)?.[1])).sort();
      assert.deepEqual(numbers, [2, 3, 4, 5]);
      const dir = join(root, 'def');
      assert.deepEqual(readdirSync(dir).sort(), ['0001.zip', '0002.zip', '0003.zip', '0004.zip', '0005.zip']);
      const ranges = await Promise.all(readdirSync(dir).sort().map(async (n) => (await readBackup(readFileSync(join(dir, n)))).manifest));
      assert.deepEqual(ranges.map((m) => [m.firstSQ, m.lastSQ]), [[1, 4], [5, 34], [35, 34], [35, 34], [35, 34]]);
      assert.equal((await archivedUpTo(a.ctx.store, 'def'))?.sq, 34);
      const restored = await post(`${b.url}/backup/restore?path=${encodeURIComponent(dir)}`);
      assert.equal(restored.status, 200, restored.text);
      assert.equal((await register(b)).sq, 35);
    } finally {
      await a.stop();
      await b.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('while a restore writes, no register of the instance registers (#BACKUP_BUSY): the instance key it replaces signed nothing meanwhile', async () => {
    const work = tempDir('efr-backup-busy-');
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 5; i++) await register(a);
      const backup = await download(`${a.url}/backup`);
      assert.notEqual(b.ctx.signer.keyId, a.ctx.signer.keyId);
      // the restore's one store transaction (the five records) waits; everything else commits as usual
      const hold = holdCommits(b, (records) => records.length === 5);
      const restoring = restoreBody(b, backup.body);
      await hold.held;
      const other = await post(`${b.url}/register?rn=other`, sale({ RN: 'other' }));
      const own = await post(`${b.url}/register`, sale());
      hold.release();
      const restored = await restoring;
      assert.equal(restored.status, 200, restored.text);
      for (const r of [other, own]) {
        assert.equal(r.status, 406, r.text);
        assert.equal(r.json.TraC.Result.RC, 'NO');
        assert.equal(r.json.TraC.Result.ErrorCode, '#BACKUP_BUSY');
      }
      assert.equal(b.ctx.signer.keyId, a.ctx.signer.keyId, 'the backup\'s instance key is in place');
      // afterwards both registers go on, and every record verifies with the one instance key
      assert.equal((await post(`${b.url}/register?rn=other`, sale({ RN: 'other' }))).json.TraC.Result.RC, 'OK');
      assert.equal((await register(b)).sq, 6);
      const exp = await download(`${b.url}/export?type=jou&rn=other`);
      assert.equal(exp.status, 200, exp.body.toString());
      const zip = join(work, 'other.zip');
      writeFileSync(zip, exp.body);
      const report = await verifyZip(zip);
      assert.deepEqual([report.ok, report.count], [true, 1]);
      const all = await verifyJournalExport(b, work);
      assert.deepEqual([all.ok, all.count], [true, 6]);
    } finally {
      await a.stop();
      await b.stop();
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('a restore accepts only the files a register\'s backup holds, and no entry beyond its size limit', async () => {
    const a = await startTestService();
    const b = await startTestService();
    try {
      for (let i = 0; i < 3; i++) await register(a);
      const backup = await download(`${a.url}/backup`);
      const planted: Record<string, string> = {
        'cer/htdigest': 'admin:efr:00000000000000000000000000000000\n',
        'req/evil.req': '{"Tra":{"ESR":{}}}',
        'de/other/tse.json': '{}',
        'keys/extra.pem': 'x',
        'pt/private-key.pem': 'x',
        'at/1/aes.key': 'x',
        'profile/def.json': '{}',
      };
      for (const [path, text] of Object.entries(planted)) {
        const crafted = await withFiles(backup.body, { [path]: Buffer.from(text) });
        const r = await restoreBody(b, crafted);
        assert.equal(r.status, 400, `${path}: ${r.text}`);
        assert.equal(r.json.Result.ErrorCode, '#BACKUP_INVALID', path);
        assert.ok((r.json.Result.UserMessage ?? '').includes(`files/${path} is none of a register's key or device files`), `${path}: ${r.json.Result.UserMessage}`);
        assert.equal(existsSync(join(b.dataDir, ...path.split('/'))), false, `${path} was not written`);
      }
      // a zip bomb: 65 MiB of zeros in a few dozen KiB, refused by its size before it is read
      const bomb = await withFiles(backup.body, { 'de/def/big.bin': Buffer.alloc(65 * 1024 * 1024) });
      assert.ok(bomb.length < 1024 * 1024);
      const r = await restoreBody(b, bomb);
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.Result.UserMessage ?? '', /files\/de\/def\/big\.bin is larger than 64 MiB/);
      // nothing was restored: def starts at SQ 1, and the untouched backup still restores
      const ok = await restoreBody(b, backup.body);
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await register(b)).sq, 4);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
