/**
 * The register service with its journal on PostgreSQL, end to end: the real service (startService with `db`)
 * on a fresh schema registers sales over HTTP, sequentially and concurrently; GET /export?type=jou verifies;
 * then the service is started again on the same schema as a real process (`efr serve --db ...`) and the
 * register goes on with the next SQ and TN, the export verifying over both runs. Nothing journal-like is
 * written into the data folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import pg from 'pg';
import { startService } from '../../server.js';
import { verifyZip } from '../export/verify-zip.js';
import { createScratchSchema } from '../../../../test/scratch-schema.js';
import { ROOT, freePort, get, post, sale, tempDir } from '../../../../test/helpers.js';

async function exportVerifies(url: string, dir: string, name: string): Promise<{ ok: boolean; count: number; lastSQ: number }> {
  const res = await request(`${url}/export?type=jou`);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString('utf8', 0, 300));
  const zip = join(dir, `${name}.zip`);
  writeFileSync(zip, body);
  const report = await verifyZip(zip);
  assert.ok(report.ok, JSON.stringify(report));
  return report;
}

test('the service on PostgreSQL: sales over HTTP, a verifying export, a restart on the same schema continues SQ and TN', async () => {
  const scratch = await createScratchSchema(undefined, 'efr_j_');
  const db = scratch.schemaUrl;
  const dataDir = tempDir('efr-pg-svc-');
  const work = tempDir('efr-pg-export-');
  try {
    const svc = await startService({ port: 0, host: '127.0.0.1', dataDir, db, log: false, env: {} });
    let headSq = 0;
    let lastTn = 0;
    try {
      const sqs: number[] = [];
      const tns: number[] = [];
      const take = (a: { status: number; text: string; json: { TraC?: { SQ?: number; ESR?: { TN?: string }; Result?: { RC?: string } } } }): void => {
        assert.equal(a.json?.TraC?.Result?.RC, 'OK', a.text);
        sqs.push(Number(a.json.TraC?.SQ));
        tns.push(Number(a.json.TraC?.ESR?.TN));
      };
      for (let i = 0; i < 10; i++) take(await post(`${svc.url}/register`, sale()));
      // concurrently: through the group commit, several appends in one transaction
      for (const a of await Promise.all(Array.from({ length: 40 }, () => post(`${svc.url}/register`, sale())))) take(a);
      assert.deepEqual([...sqs].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => (sqs[0] ?? 0) + i), 'gapless SQ');
      assert.deepEqual([...tns].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1), 'gapless TN');
      headSq = svc.ctx.registers.get('def')?.state.sq ?? 0;
      lastTn = 50;
      assert.ok(headSq >= 50);
      // the records are in PostgreSQL, in the named schema, and nothing of a journal in the data folder
      const c = new pg.Client({ connectionString: db });
      await c.connect();
      try {
        const row = (await c.query<{ n: string; max: string }>('SELECT count(*) AS n, max(sq) AS max FROM journal')).rows[0];
        assert.equal(Number(row?.n), headSq);
        assert.equal(Number(row?.max), headSq);
        const reg = (await c.query<{ sq: string }>("SELECT sq FROM journal_registers WHERE rn = 'def'")).rows[0];
        assert.equal(Number(reg?.sq), headSq);
      } finally {
        await c.end();
      }
      assert.equal(existsSync(join(dataDir, 'journal', 'journal.sqlite')), false);
      const report = await exportVerifies(svc.url, work, 'first');
      assert.equal(report.count, headSq);
      // a lookup through the store: GET /find by TN
      const found = await get(`${svc.url}/find?tn=7`);
      assert.equal(found.status, 200, found.text);
      assert.match(found.text, /"TN":"7"/);
    } finally {
      await svc.close();
    }

    // the same schema and data folder, as a real process started with --db
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir, '--db', db], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EFR_DB: '' },
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        assert.equal(child.exitCode, null, `the service exited: ${output}`);
        const up = await get(`${url}/state`).then((r) => r.status === 200, () => false);
        if (up) break;
        assert.ok(Date.now() < deadline, `the service did not start: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const next = await post(`${url}/register`, sale());
      assert.equal(next.json?.TraC?.Result?.RC, 'OK', next.text);
      // SQ headSq + 1 is the journaled start of the service (START_EFR)
      assert.equal(next.json.TraC.SQ, headSq + 2, 'SQ goes on after the restart');
      assert.equal(next.json.TraC.ESR.TN, String(lastTn + 1), 'TN goes on after the restart');
      const report = await exportVerifies(url, work, 'second');
      assert.equal(report.count, headSq + 2);
      assert.equal(report.lastSQ, headSq + 2);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    }
  } finally {
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

test('a process that did not write reads what another process wrote: /last, /state, /find and a register made elsewhere', async () => {
  const scratch = await createScratchSchema(undefined, 'efr_j_');
  const db = scratch.schemaUrl;
  const dataDir = tempDir('efr-pg-read-');
  try {
    const a = await startService({ port: 0, host: '127.0.0.1', dataDir, db, log: false, env: {} });
    const b = await startService({ port: 0, host: '127.0.0.1', dataDir, db, log: false, env: {} });
    try {
      const first = await post(`${a.url}/register`, sale());
      assert.equal(first.status, 200, first.text);
      // b has not seen def yet: it reads it from the journal
      const seen = await get(`${b.url}/last`);
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.json.TraC?.SQ, first.json.TraC?.SQ);
      // b reads def (now known to it); a writes on: b's next read is not the stale one
      const second = await post(`${a.url}/register`, sale());
      const later = await get(`${b.url}/last`);
      assert.equal(later.json.TraC?.SQ, second.json.TraC?.SQ, 'the last record written by the other process');
      assert.equal(later.json.TraC?.ESR?.TN, second.json.TraC?.ESR?.TN);
      const found = await get(`${b.url}/find?tn=${String(second.json.TraC?.ESR?.TN)}`);
      assert.equal(found.status, 200, found.text);
      // a register created by a after b started is in b's /state
      assert.equal((await post(`${a.url}/register?rn=kasse2`, sale())).status, 200);
      const state = await get(`${b.url}/state`);
      assert.match(String(state.json?.RN), /\bkasse2\b/);
      // and b goes on with it from a's head: SQ and TN continue
      const third = await post(`${b.url}/register`, sale());
      assert.equal(third.json.TraC?.SQ, Number(second.json.TraC?.SQ) + 1, third.text);
    } finally {
      await a.close();
      await b.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await scratch.drop();
  }
});
