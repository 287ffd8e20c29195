/**
 * Germany: a software TSE over real HTTP. Start/finish pairs, parallel open transactions and a TSE
 * failure; the log messages checked with openssl (asn1parse of the DER, dgst -verify of the signature
 * over the signed part), counters gapless.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import Database from 'better-sqlite3';
import { parseLog } from '../src/register/fiscal/de/log-message.js';
import { type DecodedOperation, decodeSystemOperationData } from '../src/register/fiscal/de/system-operations.js';
import { tseDir } from '../src/register/fiscal/de/tse.js';
import { ROOT, get, post, startTestService, tempDir } from './helpers.js';
import { request } from 'undici';
import { pack } from 'tar-stream';
import { readTar } from '../src/register/fiscal/de/tar.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

const LOG_KEYS = ['LogInit', 'LogTime', 'LogAudit', 'LogSystem', 'LogStart', 'LogUpdate', 'LogFinish'];

const receipt = (extra: Record<string, unknown> = {}): object => ({
  Tra: { ESR: { TL: '001', TT: '1', PosA: [{ _: 'Pos', Dsc: 'Brot', TaxG: 'B', Amt: '1.50' }, { _: 'Pos', Dsc: 'Bier', TaxG: 'A', Amt: '6.88' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '8.38' }], ...extra } },
});

/** plain R‖S to the DER form openssl reads */
function derSignature(plain: Buffer): Buffer {
  const int = (b: Buffer): asn1js.Integer => asn1js.Integer.fromBigInt(BigInt(`0x${b.toString('hex')}`));
  return Buffer.from(new asn1js.Sequence({ value: [int(plain.subarray(0, 32)), int(plain.subarray(32))] }).toBER(false));
}

test('start and finish, parallel transactions, TSE failure; log messages pass openssl', async () => {
  const svc = await startTestService();
  const work = tempDir('efr-de-');
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } });
    // one receipt in one go
    const one = await post(`${svc.url}/register`, receipt());
    assert.equal(one.json.TraC.Result.RC, 'OK', one.text);
    const fis = one.json.TraC.Fis;
    const parts = (fis.Code as string).split(';');
    assert.deepEqual(parts.slice(0, 4), ['V0', '001/1', 'Kassenbeleg-V1', 'Beleg^6.88_1.50_0.00_0.00_0.00^8.38:Bar']);
    assert.equal(parts[8], 'ecdsa-plain-SHA256');
    assert.equal(parts[9], 'unixTime');
    assert.deepEqual(fis.Tag.map((t: { Name: string }) => t.Name), ['FN', 'StartD', 'FinishD', 'Serial', 'SignCnt', 'Sign', 'KSNr']);
    assert.equal(fis.LogFinish, undefined, 'log messages stay in the journal');
    // parallel: three started, finished in another order
    const starts = [];
    for (let i = 0; i < 3; i++) starts.push((await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '1' } } })).json.TraSC.Fis.TID as number);
    assert.deepEqual(starts, [2, 3, 4]);
    for (const tid of [3, 2, 4]) {
      const r = await post(`${svc.url}/register`, receipt({ TID: String(tid) }));
      assert.equal(r.json.TraC.Fis.TID, tid, r.text);
    }
    const again = await post(`${svc.url}/register`, receipt({ TID: '3' }));
    assert.equal(again.status, 400, 'a finished transaction cannot be finished again');
    // the TSE does not answer: registered all the same, marked
    const key = join(tseDir(svc.dataDir, 'def'), 'tse.key.pem');
    renameSync(key, `${key}.gone`);
    const failed = await post(`${svc.url}/register`, receipt());
    const failedStart = await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '1' } } });
    renameSync(`${key}.gone`, key);
    assert.equal(failed.json.TraC.Result.RC, 'OK', failed.text);
    assert.ok(failed.json.TraC.Fis.Tag.some((t: { Value: string }) => t.Value === 'TSE ausgefallen'));
    assert.equal(failedStart.json.TraSC.Result.RC, 'OK', failedStart.text);
    // the TSE is back: the transaction started during the failure is closed with a start and finish of its own
    const closed = await post(`${svc.url}/register`, receipt({ TID: String(failedStart.json.TraSC.Fis.TID) }));
    assert.equal(closed.json.TraC.Result.RC, 'OK', closed.text);
    assert.equal(failedStart.json.TraSC.Fis.TID, 5, 'a number of the TSE sequence, never used by the TSE');
    assert.equal(closed.json.TraC.Fis.TID, 6);

    // every log message from the journal: openssl reads the DER and verifies the signature
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT data FROM journal ORDER BY sq').all() as Array<{ data: Buffer }>;
    db.close();
    const logs = rows.flatMap((r) => {
      const f = JSON.parse(unpackRecordText(r.data)).Fis ?? {};
      return LOG_KEYS.map((k) => f[k]).filter(Boolean).map((b: string) => Buffer.from(b, 'base64'));
    });
    assert.equal(logs.length, 1 + 1 + 1 * 2 + 3 + 3 + 1 + 2, 'the initialization, the clock set, start and finish of the first, three starts, three finishes, the audit of the failure, start and finish after it');
    const kinds = logs.map((m) => parseLog(m));
    assert.equal(kinds[1]?.operationType, 'updateTime', 'the TSE clock is set at its first use after the start');
    const audit = kinds.filter((k) => k.certifiedDataType === '0.4.0.127.0.7.3.7.1.3');
    assert.equal(audit.length, 1, 'one audit log when the TSE answers again');
    assert.match(audit[0]?.auditData?.toString('utf8') ?? '', /did not answer from unixTime \d+ to \d+: 2 operation\(s\)/);
    const q = parseLog(logs[0] as Buffer);
    const pub = Buffer.from(parts[11] as string, 'base64');
    const pem = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: pub.subarray(1, 33).toString('base64url'), y: pub.subarray(33).toString('base64url') }, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    writeFileSync(join(work, 'pub.pem'), pem);
    const counters: bigint[] = [];
    logs.forEach((m, i) => {
      const p = parseLog(m);
      counters.push(p.signatureCounter);
      assert.deepEqual(p.serialNumber, q.serialNumber);
      writeFileSync(join(work, `log${i}.der`), m);
      const parsed = spawnSync('openssl', ['asn1parse', '-inform', 'DER', '-in', join(work, `log${i}.der`)], { encoding: 'utf8' });
      assert.equal(parsed.status, 0, parsed.stderr);
      const oid = p.certifiedDataType.replace(/\./g, '\\.');
      assert.match(parsed.stdout, new RegExp(`INTEGER\\s+:02\\n.*OBJECT\\s+:${oid}`));
      assert.ok(i > 1 || p.certifiedDataType === '0.4.0.127.0.7.3.7.1.2', 'system logs first');
      assert.match(parsed.stdout, /OBJECT\s+:0\.4\.0\.127\.0\.7\.1\.1\.4\.1\.3/);
      writeFileSync(join(work, `signed${i}.bin`), p.signed);
      writeFileSync(join(work, `sig${i}.der`), derSignature(p.signatureValue));
      const v = spawnSync('openssl', ['dgst', '-sha256', '-verify', join(work, 'pub.pem'), '-signature', join(work, `sig${i}.der`), join(work, `signed${i}.bin`)], { encoding: 'utf8' });
      assert.match(v.stdout, /Verified OK/, v.stderr);
    });
    assert.deepEqual(counters, counters.map((_, i) => BigInt(i + 1)), 'signature counter gapless');
    const last = await get(`${svc.url}/last?_=TraS`);
    assert.ok(last.json.TraSC.Fis.TID > 0);

    // an update keeps the transaction open; an abort finishes it with AVBelegabbruch
    const s7 = (await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '1' } } })).json.TraSC.Fis.TID as number;
    const upd = await post(`${svc.url}/register`, { TraU: { ESR: { TL: '001', TT: '1', TID: String(s7), PosA: [{ _: 'Pos', Dsc: 'Brot', TaxG: 'B', Amt: '1.50' }] } } });
    assert.equal(upd.json.TraUC.Result.RC, 'OK', upd.text);
    assert.equal(upd.json.TraUC.Fis.TID, s7);
    // Fis.D is an ESR date-time (T between date and time), not the printed form with a space
    assert.match(upd.json.TraUC.Fis.D, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, upd.text);
    const updXml = await post(`${svc.url}/register`, `<TraU><ESR TL="001" TT="1" TID="${s7}"/></TraU>`, { 'content-type': 'application/xml' });
    assert.equal(updXml.status, 200, updXml.text);
    assert.match(updXml.text, /<TraUC [^>]*>/);
    assert.match(updXml.text, /<Fis [^>]*\bD="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"/, updXml.text);
    const abort = await post(`${svc.url}/register`, { TraV: { ESR: { TL: '001', TT: '1', TID: String(s7) } } });
    assert.equal(abort.json.TraVC.Result.RC, 'OK', abort.text);
    assert.match(abort.json.TraVC.Fis.Code, new RegExp(`^V0;001/1;Kassenbeleg-V1;AVBelegabbruch\\^0\\.00_0\\.00_0\\.00_0\\.00_0\\.00\\^;${s7};`));
    const closedAgain = await post(`${svc.url}/register`, receipt({ TID: String(s7) }));
    assert.equal(closedAgain.status, 400, 'an aborted transaction is finished');
    const noTid = await post(`${svc.url}/register`, { TraU: { ESR: { TL: '001', TT: '1' } } });
    assert.equal(noTid.status, 400);
    assert.match(noTid.json.TraUC.Result.UserMessage, /ESR\.TID is required/);
    logs.push(...(await (async () => {
      const db2 = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
      const more = db2.prepare("SELECT data FROM journal WHERE type IN ('TraS', 'TraU', 'TraV') AND sq > ? ORDER BY sq").all(rows.length) as Array<{ data: Buffer }>;
      db2.close();
      return more.flatMap((r) => {
        const f = JSON.parse(unpackRecordText(r.data)).Fis ?? {};
        return LOG_KEYS.map((k) => f[k]).filter(Boolean).map((b: string) => Buffer.from(b, 'base64'));
      });
    })()));
    assert.equal(logs.length, 17, 'plus start, two updates (JSON and XML) and finish of the aborted one');

    // the TSE export TAR, verified by `efr verify --country de`; one changed byte is named
    const res = await request(`${svc.url}/export?type=tse`);
    assert.equal(res.statusCode, 200);
    const tarPath = join(work, 'export.tar');
    writeFileSync(tarPath, Buffer.from(await res.body.arrayBuffer()));
    const files = await readTar(tarPath);
    const names = [...files.keys()];
    assert.equal(names.filter((n) => n.endsWith('.log')).length, logs.length + 1, 'and the system log of this export');
    assert.ok(names.some((n) => new RegExp(`^Unixt_\\d+_Sig-${logs.length + 1}_Log-Sys_exportData\\.log$`).test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^Unixt_\d+_Sig-1_Log-Sys_initialize\.log$/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^Unixt_\d+_Sig-2_Log-Sys_updateTime\.log$/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^Unixt_\d+_Sig-3_Log-Tra_No-1_Start_Client-001-1\.log$/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^Unixt_\d+_Sig-\d+_Log-Aud\.log$/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^[0-9a-f]{64}_X509\.cer$/.test(n)));
    assert.ok(names.includes('info.csv'));
    const certFile = names.find((n) => n.endsWith('_X509.cer')) as string;
    writeFileSync(join(work, 'tse.cer'), files.get(certFile) as Buffer);
    const x = spawnSync('openssl', ['x509', '-inform', 'DER', '-in', join(work, 'tse.cer'), '-noout', '-subject', '-ext', 'keyUsage'], { encoding: 'utf8' });
    const serialHex = certFile.slice(0, 64);
    assert.match(x.stdout, new RegExp(`subject=CN ?= ?${serialHex}, ?serialNumber ?= ?${serialHex}, ?O ?= ?efr`), x.stdout + x.stderr);
    assert.match(x.stdout, /Digital Signature/, 'a signing key, not a CA');
    // the system logs of the export in TR-03151's layout, decoded field by field
    const sys = names.filter((n) => n.includes('_Log-Sys_')).map((n) => ({ n, p: parseLog(files.get(n) as Buffer) }));
    assert.deepEqual(sys.map(({ p }) => p.operationType), ['initialize', 'updateTime', 'exportData']);
    for (const { n, p } of sys) {
      assert.equal(p.certified.size, 2, `${n}: operationType [0] and systemOperationData [1]`);
      assert.ok(n.endsWith(`_Log-Sys_${p.operationType}.log`), n);
    }
    const [init, time, exp] = sys.map(({ p }) => decodeSystemOperationData(p.operationType as string, p.systemOperationData as Buffer)) as [DecodedOperation, DecodedOperation, DecodedOperation];
    assert.deepEqual(init, { fields: { description: 'efr software TSE' }, bare: false });
    assert.deepEqual(time.fields, { timeBeforeUpdate: sys[0]?.p.signatureCreationTime, timeAfterUpdate: sys[1]?.p.signatureCreationTime });
    assert.deepEqual(sys[2]?.p.systemOperationData, Buffer.from('3000', 'hex'), 'a whole export: exportData without dates or counter');
    assert.deepEqual(exp.fields, {});
    const verifyTar = (path: string): { code: number | null; out: string } => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'de', path], { cwd: ROOT, encoding: 'utf8' });
      return { code: r.status, out: `${r.stdout}${r.stderr}` };
    };
    const ok = verifyTar(tarPath);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, new RegExp(`OK: ${logs.length + 1} log messages`));
    assert.match(ok.out, /signature counters 1 to \d+ \(from the TSE's first log message\), ending with the export's own exportData log; certificate [0-9a-f]{64}_X509\.cer, self-signed/);
    const victim = names.find((n) => /_Sig-5_/.test(n)) as string;
    const changed = Buffer.from(files.get(victim) as Buffer);
    changed[20] = (changed[20] as number) ^ 1;
    const tamperedPath = join(work, 'tampered.tar');
    const out = pack();
    for (const [n, b] of files) out.entry({ name: n }, n === victim ? changed : b);
    out.finalize();
    const chunks: Buffer[] = [];
    for await (const c of out) chunks.push(c as Buffer);
    writeFileSync(tamperedPath, Buffer.concat(chunks));
    const broken = verifyTar(tamperedPath);
    assert.equal(broken.code, 1, broken.out);
    assert.match(broken.out, new RegExp(`BROKEN at ${victim.replace(/[.]/g, '\\.')}`));
  } finally {
    await svc.stop();
  }
});

test('the TSE tests itself daily at TSE_SelfTestAt: a signed system log, once a day', async () => {
  const { ManualClock } = await import('../src/shared/clock.js');
  const { runScheduled } = await import('../src/register/fiscal/de/schedule.js');
  const clock = new ManualClock(new Date(2026, 10, 21, 2, 0, 0));
  const svc = await startTestService({ clock });
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } });
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'TSE_SelfTestAt=3:30 TSE_BackupAt=NO Fiscal_BackupAt=NO' });
    assert.equal((await post(`${svc.url}/register`, receipt())).json.TraC.Result.RC, 'OK');
    assert.equal(await runScheduled(svc.ctx), 0, 'not yet 03:30');
    clock.set(new Date(2026, 10, 21, 3, 31, 0));
    assert.equal(await runScheduled(svc.ctx), 1);
    assert.equal(await runScheduled(svc.ctx), 0, 'once a day');
    clock.set(new Date(2026, 10, 22, 3, 30, 5));
    assert.equal(await runScheduled(svc.ctx), 1, 'and again the next day');
    const found = await get(`${svc.url}/find?_=log&sort=asc`);
    const events = found.json.Find.Records.map((r: { Event: string; Fis: { LogSystem: string } }) => parseLog(Buffer.from(r.Fis.LogSystem, 'base64')));
    assert.deepEqual(events.map((e: { operationType: string }) => e.operationType), ['selfTest', 'selfTest']);
    assert.deepEqual(events.map((e: { signatureCounter: bigint }) => e.signatureCounter), [5n, 6n], 'after initialize, the clock set, start and finish');
    // the host's clock goes back behind the TSE's last log: the TSE's clock is set again, logged
    clock.set(new Date(2026, 10, 22, 1, 0, 0));
    assert.equal((await post(`${svc.url}/register`, receipt())).json.TraC.Result.RC, 'OK');
    const last = await get(`${svc.url}/find?_=Tra&limit=1rows`);
    const timeLog = parseLog(Buffer.from(last.json.Find.Records[0].Fis.LogTime, 'base64'));
    assert.equal(timeLog.operationType, 'updateTime');
    assert.equal(timeLog.signatureCounter, 7n);
  } finally {
    await svc.stop();
  }
});

test('scheduled backups: the TSE export after each Z and daily at TSE_BackupAt, the DSFinV-K export at Fiscal_BackupAt', async () => {
  const { ManualClock } = await import('../src/shared/clock.js');
  const { runScheduled, defaultTseBackupAt } = await import('../src/register/fiscal/de/schedule.js');
  const { readdirSync } = await import('node:fs');
  const clock = new ManualClock(new Date(2026, 10, 21, 1, 0, 0));
  const svc = await startTestService({ clock });
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } });
    const bad = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'TSE_BackupAt=25:00' });
    assert.equal(bad.status, 400, 'a time of day or NO');
    assert.match(bad.text, /TSE_BackupAt/);
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'TSE_SelfTestAt=NO TSE_BackupAt=3:40 Fiscal_BackupAt=4:00 TSE_BackupDelete=1' });
    const backups = join(tseDir(svc.dataDir, 'def'), 'backup');
    const list = (): string[] => { try { return readdirSync(backups).sort(); } catch { return []; } };
    assert.equal((await post(`${svc.url}/register`, receipt())).status, 200);
    assert.equal(await runScheduled(svc.ctx), 0, 'no Z yet, not yet the time');
    assert.equal((await post(`${svc.url}/register`, { Tra: { ESR: { TL: '001', TT: '1', NFS: 'Z' } } })).status, 200);
    assert.equal(await runScheduled(svc.ctx), 1, 'the TSE export after the Z');
    assert.equal(await runScheduled(svc.ctx), 0, 'once per Z');
    clock.set(new Date(2026, 10, 21, 3, 41, 0));
    assert.equal((await post(`${svc.url}/register`, receipt())).status, 200);
    assert.equal(await runScheduled(svc.ctx), 1, 'the daily TSE backup');
    clock.set(new Date(2026, 10, 21, 4, 1, 0));
    assert.equal(await runScheduled(svc.ctx), 1, 'the fiscal backup');
    assert.equal(await runScheduled(svc.ctx), 0);
    const files = list();
    assert.equal(files.filter((f) => /^tse-20261121-\d{6}\.tar$/.test(f)).length, 2, files.join(' '));
    assert.equal(files.filter((f) => /^dsfinvk-20261121-040100\.zip$/.test(f)).length, 1, files.join(' '));
    // each TAR verifies; the second holds only what came after the first
    const [first, second] = files.filter((f) => f.endsWith('.tar')) as [string, string];
    const outs = [first, second].map((f) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'de', join(backups, f)], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 0, `${f}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    });
    assert.match(outs[0] ?? '', /signature counters 1 to (\d+) \(from the TSE's first log message\)/);
    const end = /signature counters 1 to (\d+)/.exec(outs[0] ?? '')?.[1] ?? '';
    assert.match(outs[1] ?? '', new RegExp(`signature counters ${Number(end) + 1} to \\d+ \\(the export starts in the middle of the TSE's series: counters 1 to ${end} are in earlier exports\\)`), outs[1]);
    const a = [...(await readTar(join(backups, first))).keys()].filter((n) => n.endsWith('.log'));
    const b = [...(await readTar(join(backups, second))).keys()].filter((n) => n.endsWith('.log'));
    assert.ok(a.some((n) => /_Log-Sys_initialize\.log$/.test(n)) && !b.some((n) => /_Log-Sys_initialize\.log$/.test(n)), b.join(' '));
    assert.ok(b.some((n) => /_Finish_/.test(n)), 'the receipt after the first backup');
    assert.match(defaultTseBackupAt('def'), /^0(3:[1-5]\d|4:0\d|3:1\d|4:10):\d\d$/);
  } finally {
    await svc.stop();
  }
});
