/**
 * The service as a real process: #DUPLICATE after a restart on the same data folder, and
 * SIGKILL under load from 8 clients loses nothing that was answered OK.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { type ServiceProcess, freePort, get, post, sale, spawnService, tempDir } from './helpers.js';
import { verifyJournal } from './verify-journal.js';

test('a transaction answered before a restart is a #DUPLICATE after it', async () => {
  const dataDir = tempDir();
  const port = await freePort();
  let svc: ServiceProcess | undefined;
  try {
    svc = await spawnService(dataDir, port);
    const body = sale({ TN: '42' });
    const first = await post(`${svc.url}/register`, body);
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exited, 0);
    // a fresh port: the old one may meanwhile be the local port of any client connection on this machine
    svc = await spawnService(dataDir, await freePort());
    const again = await post(`${svc.url}/register`, body);
    assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.deepEqual(again.json.TraC.Fis, first.json.TraC.Fis);
    // POS crash recovery: the same content without TN is still recognised after the restart
    const restart = await post(`${svc.url}/restart`, sale({ TN: undefined }));
    assert.equal(restart.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(restart.json.TraC.SQ, first.json.TraC.SQ);
    // SQ 2 is the journaled start of the service (START_EFR)
    const next = await post(`${svc.url}/register`, sale());
    assert.equal(next.json.TraC.SQ, 3);
    assert.equal(next.json.TraC.ESR.TN, '43', 'automatic TN continues after the highest TN of the year');
    const last = await get(`${svc.url}/last`);
    assert.equal(last.json.TraC.SQ, 3);
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exited, 0);
  } finally {
    svc?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// 8 clients: batches committed by the journal's writer thread; 1 client (one POS in sequence): each
// receipt committed on the main thread, as a lone request is
for (const clientCount of [8, 1]) test(`SIGKILL while ${clientCount} client(s) register: every OK is in the journal, SQ is gapless, the chain verifies`, async () => {
  const dataDir = tempDir();
  const port = await freePort();
  const children: ServiceProcess[] = [];
  try {
    const svc = await spawnService(dataDir, port);
    children.push(svc);
    const answered: Array<{ sq: number; tt: string; tn: string; fn: string }> = [];
    let killed = false;
    const client = async (n: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await request(`${svc.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sale({ TT: String(n), TN: String(i + 1) })) });
          const text = await res.body.text();
          if (res.statusCode === 200) {
            const c = JSON.parse(text).TraC;
            if (c.Result.RC === 'OK') answered.push({ sq: c.SQ, tt: String(n), tn: c.ESR.TN, fn: c.ESR.FN });
          }
        } catch {
          return; // connection cut by the kill
        }
      }
    };
    const clients = Array.from({ length: clientCount }, (_, n) => client(n + 1));
    await new Promise((r) => setTimeout(r, 1500));
    killed = true;
    svc.child.kill('SIGKILL');
    await svc.exited;
    await Promise.all(clients);
    assert.ok(answered.length > 50, `only ${answered.length} answered before the kill`);

    const report = await verifyJournal(dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.ok(report.count >= answered.length);
    const db = new Database(join(dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT sq, tt, tn, fn FROM journal ORDER BY sq').all() as Array<{ sq: number; tt: string; tn: string; fn: string }>;
    db.close();
    rows.forEach((r, i) => assert.equal(r.sq, i + 1, 'SQ gapless'));
    const bySq = new Map(rows.map((r) => [r.sq, r]));
    for (const a of answered) {
      const r = bySq.get(a.sq);
      assert.ok(r, `SQ ${a.sq} answered OK but missing`);
      assert.deepEqual({ tt: r.tt, tn: r.tn, fn: r.fn }, { tt: a.tt, tn: a.tn, fn: a.fn });
    }

    // after the restart the chain continues and an answered transaction is a duplicate
    const again = await spawnService(dataDir, await freePort());
    children.push(again);
    const some = answered[answered.length - 1];
    assert.ok(some);
    const dup = await post(`${again.url}/register`, sale({ TT: some.tt, TN: some.tn }));
    assert.equal(dup.json.TraC.Result.ErrorCode, '#DUPLICATE', dup.text);
    assert.equal(dup.json.TraC.SQ, some.sq);
    // after the journaled start of the service (START_EFR)
    const next = await post(`${again.url}/register`, sale({ TT: '99' }));
    assert.equal(next.json.TraC.SQ, rows.length + 2);
    again.child.kill('SIGTERM');
    await again.exited;
    const final = await verifyJournal(dataDir);
    assert.ok(final.ok, JSON.stringify(final));
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
