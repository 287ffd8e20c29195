/**
 * The journal contract on the real PostgreSQL server (EFR_TEST_PG, default postgres://postgres@127.0.0.1:5432/test):
 * every test works in its own schema efr_j_<random>, dropped after. An unreachable server fails the tests with
 * a message that says how to start it, never a silent skip. Beyond the contract: two stores (two pools, as two
 * processes) appending for the same register, registers created at once, the guards of the schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { journalStoreContract } from '../journal-store.contract.js';
import { loadOrCreateSigner, type Signer } from '../../security/signer.js';
import { initialState } from '../../registers.js';
import { GENESIS, chainHash, signingPayload, verifyChain } from '../chain.js';
import { openJournalStore } from '../open.js';
import { type JournalRecord, RegisterExists, type RegisterState, StaleRegister } from '../types.js';
import { createScratchSchema, type ScratchSchema } from '../../../../test/scratch-schema.js';
import { PostgresJournalStore } from './postgres-journal-store.js';

const PREFIX = 'efr_j_';

async function scratchStore(options: { poolSize?: number } = {}): Promise<{ scratch: ScratchSchema; store: PostgresJournalStore }> {
  const scratch = await createScratchSchema(undefined, PREFIX);
  const store = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: options.poolSize ?? 3 });
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    await scratch.drop();
    throw err;
  }
  return { scratch, store };
}

journalStoreContract('PostgreSQL', async () => {
  const { scratch, store } = await scratchStore();
  const dir = mkdtempSync(join(tmpdir(), 'efr-pgj-'));
  return {
    store,
    signer: loadOrCreateSigner(dir),
    async close() {
      await store.close();
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

async function inSchema<T>(scratch: ScratchSchema, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: scratch.url, options: `-c search_path=${scratch.schema}` });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A receipt record after `prev`, signed, as the pipeline makes one; `tag` tells two writers' records apart. */
function receipt(signer: Signer, rid: number, rn: string, sq: number, prev: string, tag: string): JournalRecord {
  const data = { _: 'Tra', SQ: String(sq), RN: rn, ESR: { TL: '1', TT: tag, TN: String(sq), D: '2026-11-21T10:00:00', T: '1.00' } };
  const text = JSON.stringify(data);
  const hash = chainHash(prev, text);
  return { rid, sq, type: 'Tra', d: '2026-11-21T10:00:00', tl: '1', tt: tag, tn: String(sq), data: text, hash, sig: signer.sign(signingPayload(data, hash.toString('hex'))) };
}

const stateJson = (rn: string, sq: number, hash: string): string => JSON.stringify({ ...initialState(rn), sq, hash } satisfies Omit<RegisterState, 'rid'>);

test('PostgreSQL journal: two stores (two processes) appending with the same stale state: one succeeds, the other gets StaleRegister, no fork', async () => {
  const { scratch, store: a } = await scratchStore();
  const b = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'efr-pgj-'));
  try {
    const signer = loadOrCreateSigner(dir);
    const rid = await a.createRegister('R1', initialState('R1'));
    const first = receipt(signer, rid, 'R1', 1, GENESIS, 'a');
    await a.append([first], new Map([[rid, stateJson('R1', 1, first.hash.toString('hex'))]]));
    // both processes hold the state at SQ 1 and seal SQ 2 and 3 on it, each its own
    const prev = first.hash.toString('hex');
    const mine = (tag: string): JournalRecord[] => {
      const r2 = receipt(signer, rid, 'R1', 2, prev, tag);
      return [r2, receipt(signer, rid, 'R1', 3, r2.hash.toString('hex'), tag)];
    };
    const [ra, rb] = [mine('a'), mine('b')];
    const outcomes = await Promise.allSettled([
      a.append(ra, new Map([[rid, stateJson('R1', 3, (ra[1] as JournalRecord).hash.toString('hex'))]])),
      b.append(rb, new Map([[rid, stateJson('R1', 3, (rb[1] as JournalRecord).hash.toString('hex'))]])),
    ]);
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    assert.equal(ok.length, 1, JSON.stringify(outcomes));
    assert.equal(refused.length, 1);
    const err = refused[0];
    assert.ok(err instanceof StaleRegister, String(err));
    assert.equal(err.rid, rid);
    assert.equal(err.expectedSq, 1);
    assert.equal(err.foundSq, 3);
    assert.equal(err.message, `register ${rid} is stale: the append continues from SQ 1, the journal is at SQ 3`);
    const winner = outcomes[0]?.status === 'fulfilled' ? 'a' : 'b';
    // one chain: SQ 1..3, the winner's records only, verifying
    const records: JournalRecord[] = [];
    for await (const r of a.range(rid, 1)) records.push(r);
    assert.deepEqual(records.map((r) => r.sq), [1, 2, 3]);
    assert.deepEqual(records.slice(1).map((r) => r.tt), [winner, winner]);
    const report = await verifyChain(records, signer.publicKey);
    assert.ok(report.ok, JSON.stringify(report));
    const stored = (await b.loadRegisters()).find((r) => r.rid === rid);
    assert.equal(stored?.sq, 3);
    assert.equal(stored?.hash, (records[2] as JournalRecord).hash.toString('hex'));
    // the loser refuses until resume(), then continues from the state read back
    const loser = winner === 'a' ? b : a;
    const next = receipt(signer, rid, 'R1', 4, stored?.hash ?? '', 'c');
    await assert.rejects(loser.append([next], new Map()), StaleRegister);
    await loser.resume();
    await loser.append([next], new Map([[rid, stateJson('R1', 4, next.hash.toString('hex'))]]));
    assert.equal(await a.count(rid), 4);
    // a gap is refused too (SQ 6 after 4), and the unique key refuses a second SQ 4 written behind the store's back
    await a.resume();
    await assert.rejects(a.append([receipt(signer, rid, 'R1', 6, next.hash.toString('hex'), 'x')], new Map()), (e: unknown) => e instanceof StaleRegister && e.expectedSq === 5 && e.foundSq === 4);
    await inSchema(scratch, async (c) => {
      await assert.rejects(
        c.query("INSERT INTO journal (rid, sq, type, d, data, hash, sig) VALUES ($1, 4, 'Tra', 'x', '\\x00', '\\x00', '\\x00')", [rid]),
        (e: unknown) => (e as { code?: string }).code === '23505',
      );
    });
    assert.equal(await a.count(rid), 4);
  } finally {
    await b.close();
    await a.close();
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL journal: many appends for several registers from two stores at once never deadlock, never fork', async () => {
  const { scratch, store: a } = await scratchStore();
  const b = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'efr-pgj-'));
  try {
    const signer = loadOrCreateSigner(dir);
    const rids = [await a.createRegister('X', initialState('X')), await a.createRegister('Y', initialState('Y'))];
    // each store appends to both registers in one transaction, in opposite orders; on StaleRegister it
    // reads the heads back and tries again: both must finish, and both chains stay single
    const writer = async (store: PostgresJournalStore, order: number[], tag: string, rounds: number): Promise<number> => {
      let refusals = 0;
      for (let done = 0; done < rounds;) {
        const states = await store.loadRegisters();
        const recs: JournalRecord[] = [];
        const next = new Map<number, string>();
        for (const rid of order) {
          const s = states.find((x) => x.rid === rid) as RegisterState;
          const r = receipt(signer, rid, s.rn, s.sq + 1, s.hash, tag);
          recs.push(r);
          next.set(rid, stateJson(s.rn, r.sq, r.hash.toString('hex')));
        }
        try {
          await store.append(recs, next);
          done += 1;
        } catch (e) {
          assert.ok(e instanceof StaleRegister, String(e));
          refusals += 1;
          await store.resume();
        }
      }
      return refusals;
    };
    await Promise.all([writer(a, rids, 'a', 25), writer(b, [...rids].reverse(), 'b', 25)]);
    for (const rid of rids) {
      const report = await verifyChain(a.range(rid, 1), signer.publicKey);
      assert.ok(report.ok, JSON.stringify(report));
      assert.equal(report.count, 50);
    }
  } finally {
    await b.close();
    await a.close();
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL journal: a register created by two processes at once exists once; the other learns its id', async () => {
  const { scratch, store: a } = await scratchStore();
  const b = new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 2 });
  try {
    for (const rn of ['P1', 'P2', 'P3']) {
      const outcomes = await Promise.allSettled([a.createRegister(rn, initialState(rn)), b.createRegister(rn, initialState(rn))]);
      const made = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      assert.equal(made.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(lost[0] instanceof RegisterExists, String(lost[0]));
      assert.equal(lost[0].rid, made[0]);
      assert.equal(lost[0].rn, rn);
    }
    const all = await b.loadRegisters();
    assert.deepEqual(all.map((r) => r.rn).sort(), ['P1', 'P2', 'P3']);
  } finally {
    await b.close();
    await a.close();
    await scratch.drop();
  }
});

test('PostgreSQL journal: records cannot be changed or deleted past the cut, a cut never moves back; stores migrating at once migrate once', async () => {
  const scratch = await createScratchSchema(undefined, PREFIX);
  const stores = [0, 1, 2].map(() => new PostgresJournalStore({ url: scratch.url, schema: scratch.schema, poolSize: 1 }));
  const dir = mkdtempSync(join(tmpdir(), 'efr-pgj-'));
  try {
    await Promise.all(stores.map((s) => s.migrate()));
    const store = stores[0] as PostgresJournalStore;
    await store.migrate();
    const signer = loadOrCreateSigner(dir);
    const rid = await store.createRegister('def', initialState('def'));
    let prev = GENESIS;
    const recs: JournalRecord[] = [];
    for (let sq = 1; sq <= 5; sq++) {
      const r = receipt(signer, rid, 'def', sq, prev, '1');
      recs.push(r);
      prev = r.hash.toString('hex');
    }
    await store.append(recs, new Map());
    assert.equal(await store.removeUpTo(rid, 2, '2026-11-22T00:00:00Z'), 2);
    await inSchema(scratch, async (c) => {
      assert.deepEqual((await c.query<{ version: number }>('SELECT version FROM journal_migrations')).rows.map((r) => r.version), [1]);
      await assert.rejects(c.query("UPDATE journal SET d = 'x'"), /cannot be changed/);
      await assert.rejects(c.query('DELETE FROM journal WHERE sq = 3'), /cannot be deleted/);
      await assert.rejects(c.query('TRUNCATE journal'), /cannot be deleted/);
      await assert.rejects(c.query('UPDATE journal_cut SET sq = 1'), /cannot move back/);
      await assert.rejects(c.query('DELETE FROM journal_cut'), /cannot be removed/);
      assert.equal((await c.query<{ n: string }>('SELECT count(*) AS n FROM journal')).rows[0]?.n, '3');
      // the record's text is stored compressed, as in SQLite, and the lookups have their indexes
      const idx = (await c.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname', [scratch.schema, 'journal'])).rows.map((r) => r.indexname);
      assert.deepEqual(idx, ['journal_d', 'journal_fn', 'journal_pkey', 'journal_ref', 'journal_resume', 'journal_tn']);
    });
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL journal: openJournalStore with a URL that names the schema; without one, SQLite in the data folder', async () => {
  const scratch = await createScratchSchema(undefined, PREFIX);
  const dir = mkdtempSync(join(tmpdir(), 'efr-pgj-'));
  try {
    const store = await openJournalStore({ dataDir: dir, url: scratch.schemaUrl });
    try {
      assert.ok(store instanceof PostgresJournalStore);
      await store.putSetting('profile:def', '{"a":1}');
      const v = await inSchema(scratch, async (c) => (await c.query<{ value: string }>("SELECT value FROM journal_settings WHERE key = 'profile:def'")).rows[0]?.value);
      assert.equal(v, '{"a":1}', 'the row is in the named schema');
    } finally {
      await store.close();
    }
    await assert.rejects(openJournalStore({ dataDir: dir, url: 'mysql://x' }), /must start with postgres:\/\//);
    const local = await openJournalStore({ dataDir: dir });
    try {
      assert.equal(local.constructor.name, 'SqliteJournalStore');
      await local.putSetting('k', 'v');
      assert.equal(await local.getSetting('k'), 'v');
    } finally {
      await local.close();
    }
  } finally {
    await scratch.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('PostgreSQL journal: an unreachable server fails opening with the reason, and appends fail (they are never lost silently)', async () => {
  await assert.rejects(openJournalStore({ dataDir: '/nonexistent', url: 'postgres://postgres@127.0.0.1:1/test' }), /ECONNREFUSED|connect/);
  const store = new PostgresJournalStore({ url: 'postgres://postgres@127.0.0.1:1/test' });
  try {
    await assert.rejects(store.append([{ rid: 1, sq: 1, type: 'log', d: 'x', data: '{}', hash: Buffer.alloc(32), sig: Buffer.alloc(64) }], new Map()));
    await assert.rejects(store.append([], new Map()), 'refused until resume');
  } finally {
    await store.close();
  }
});
