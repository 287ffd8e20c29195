/**
 * The group commit over a shared PostgreSQL journal (EFR_TEST_PG, default postgres://postgres@127.0.0.1:5432/test,
 * each test in its own schema): two stores with their own registers and committers stand for two processes.
 * A batch refused because one register is stale writes the other registers' records again (nothing of them is
 * lost), answers the stale register's records with StaleAttempt only after its state was read back (so a rerun
 * continues the other process's chain), and refuses what was sealed on the old state meanwhile. And with
 * SQLite: a failed append is answered with its error and the state is read back, as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateSigner, type Signer } from '../security/signer.js';
import { type Register, Registers } from '../registers.js';
import { chainHash, signingPayload, verifyChain } from './chain.js';
import { GroupCommitter, StaleAttempt } from './group-commit.js';
import type { JournalRecord, JournalStore } from './types.js';
import { PostgresJournalStore } from './postgres/postgres-journal-store.js';
import { SqliteJournalStore } from './sqlite/sqlite-store.js';
import { createScratchSchema } from '../../../test/scratch-schema.js';

/** One "process": its own store (pool), registers in memory and group commit. */
interface Side {
  store: JournalStore;
  registers: Registers;
  committer: GroupCommitter;
}

/** @param duringReadBack called when the committer starts reading state back (what a request would submit meanwhile) */
async function side(store: JournalStore, duringReadBack?: () => void): Promise<Side> {
  const registers = new Registers(store);
  await registers.load();
  const committer = new GroupCommitter(store, (rid) => registers.stateJson(rid), (rids) => {
    duringReadBack?.();
    return registers.readBack(rids);
  });
  return { store, registers, committer };
}

/** Seals one log record onto the register's chain in memory (as sealRecord does) and submits it. */
function seal(s: Side, reg: Register, signer: Signer, text: string): { record: JournalRecord; done: Promise<void> } {
  const sq = reg.state.sq + 1;
  const data = { _: 'log', SQ: String(sq), RN: reg.state.rn, Event: text };
  const json = JSON.stringify(data);
  const hash = chainHash(reg.state.hash, json);
  const record: JournalRecord = { rid: reg.state.rid, sq, type: 'log', d: '2026-05-01T10:00:00', data: json, hash, sig: signer.sign(signingPayload(data, hash.toString('hex'))) };
  reg.state.sq = sq;
  reg.state.hash = hash.toString('hex');
  return { record, done: s.committer.submit(record) };
}

const outcome = (p: Promise<void>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof StaleAttempt ? `stale ${e.rid}` : `error ${String(e)}`));

/** Seals and commits, sealing again on the state read back while the register is refused as stale. */
async function write(s: Side, reg: Register, signer: Signer, text: string): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const r = await outcome(seal(s, reg, signer, text).done);
    if (r === 'ok') return;
    assert.match(r, /^stale/);
  }
  assert.fail('still stale');
}

test('group commit on a shared journal: a stale register is refused and read back, the other registers of its batches are written', async () => {
  const scratch = await createScratchSchema(undefined, 'efr_j_');
  const dir = mkdtempSync(join(tmpdir(), 'efr-gc-'));
  const storeA = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 3 });
  const storeB = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 3 });
  try {
    await storeA.migrate();
    const signer = loadOrCreateSigner(dir);
    let meanwhile: (() => void) | undefined;
    const a = await side(storeA, () => {
      meanwhile?.();
      meanwhile = undefined;
    });
    const x = await a.registers.getOrCreate('X');
    const y = await a.registers.getOrCreate('Y');
    // B started before they existed: it meets them through getOrCreate (RegisterExists underneath)
    const b = await side(storeB);
    const bx = await b.registers.getOrCreate('X');
    assert.equal(bx.state.rid, x.state.rid);

    // B writes X: A's memory of X is now stale
    await seal(b, bx, signer, 'b1').done;
    // A: two batches (two turns of the event loop), each with a record of X and one of Y
    const first = [seal(a, x, signer, 'a-x1'), seal(a, y, signer, 'a-y1')];
    await new Promise((r) => setImmediate(r));
    const second = [seal(a, x, signer, 'a-x2'), seal(a, y, signer, 'a-y2')];
    // and two submitted while the state is being read back: X's on the old state, Y's after the rewritten ones
    const third: Array<Promise<string>> = [];
    meanwhile = () => third.push(outcome(seal(a, x, signer, 'a-x3').done), outcome(seal(a, y, signer, 'a-y3').done));
    const results = await Promise.all([...first, ...second].map((s) => outcome(s.done)));
    assert.deepEqual(results, [`stale ${x.state.rid}`, 'ok', `stale ${x.state.rid}`, 'ok']);
    assert.equal(third.length, 2);
    assert.deepEqual(await Promise.all(third), [`stale ${x.state.rid}`, 'ok']);
    // Y's first record is written again; its second too when that batch was handed over before the refusal
    // (else it waited in the queue and went after the recovery)
    assert.equal(a.committer.stale.refusals, 1);
    assert.equal(a.committer.stale.retried, 3);
    assert.ok(a.committer.stale.rewritten >= 1 && a.committer.stale.rewritten <= 2, JSON.stringify(a.committer.stale));
    // X was read back before the refusal was answered: A goes on from B's record
    assert.equal(x.state.sq, 1);
    assert.equal(x.state.hash, bx.state.hash);
    assert.equal(x.pending.size, 0);
    const rerun = seal(a, x, signer, 'a-x1 again');
    assert.equal(await outcome(rerun.done), 'ok');
    assert.equal(rerun.record.sq, 2);
    // Y kept its records, in order; both chains verify, single and gapless
    const key = createPublicKey(readFileSync(join(dir, 'keys', 'instance.pub.pem')));
    for (const [reg, n] of [[x, 2], [y, 3]] as const) {
      const report = await verifyChain(storeA.range(reg.state.rid, 1), key);
      assert.ok(report.ok, JSON.stringify(report));
      assert.equal(report.count, n);
    }
    const events = [];
    for await (const r of storeA.range(y.state.rid, 1)) events.push((JSON.parse(r.data) as { Event: string }).Event);
    assert.deepEqual(events, ['a-y1', 'a-y2', 'a-y3']);
    const xs = [];
    for await (const r of storeA.range(x.state.rid, 1)) xs.push((JSON.parse(r.data) as { Event: string }).Event);
    assert.deepEqual(xs, ['b1', 'a-x1 again']);

    // both stale in one batch: both dropped at once, both read back, nothing written for them
    // (B's memory of X and Y is stale too: its first attempts are refused, read back and sealed again)
    await write(b, bx, signer, 'b2');
    await write(b, await b.registers.getOrCreate('Y'), signer, 'b-y');
    const before = a.committer.stale.refusals;
    const both = [seal(a, x, signer, 'a-x4'), seal(a, y, signer, 'a-y4')];
    assert.deepEqual(await Promise.all(both.map((s) => outcome(s.done))), [`stale ${x.state.rid}`, `stale ${y.state.rid}`]);
    // one refusal: the journal names X, the heads read after it name Y too
    assert.equal(a.committer.stale.refusals, before + 1);
    const hx = (await storeA.loadRegisters()).find((s) => s.rid === x.state.rid);
    assert.equal(x.state.sq, hx?.sq);
    assert.equal(x.state.hash, hx?.hash);
    await a.committer.drain();
    await b.committer.drain();
  } finally {
    await storeA.close();
    await storeB.close();
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('group commit on SQLite: a failed append is answered with its error and the state read back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-gc-'));
  const store = new SqliteJournalStore(join(dir, 'journal.sqlite'));
  try {
    const signer = loadOrCreateSigner(dir);
    const s = await side(store);
    const reg = await s.registers.getOrCreate('def');
    await seal(s, reg, signer, 'one').done;
    const real = store.append.bind(store);
    let calls = 0;
    store.append = async (records, states) => {
      calls += 1;
      if (calls === 1) throw new Error('disk failure (injected)');
      return real(records, states);
    };
    // two in one batch: both fail with the error (never StaleAttempt: the commit may not be run again blindly)
    const failed = [seal(s, reg, signer, 'two'), seal(s, reg, signer, 'three')];
    for (const f of failed) assert.match(await outcome(f.done), /^error Error: disk failure/);
    await s.committer.drain();
    assert.equal(reg.state.sq, 1, 'read back');
    const next = seal(s, reg, signer, 'four');
    assert.equal(await outcome(next.done), 'ok');
    assert.equal(next.record.sq, 2);
    assert.equal(await store.count(), 2);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
